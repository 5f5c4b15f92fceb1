"""The change as a branch and a pull request: ``agentci/<recipe>-<task>``, updated, not duplicated.

The commit is made from ``patch.diff`` alone, on top of the checked-out commit, in a scratch
repository of agentci's own that reads the checkout's objects (:func:`scratch_repository`: the
checkout's index, working tree and config play no part), and force-pushed from there to
the branch, so a rerun replaces agentci's previous proposal. The push authenticates through
``gh`` as git's credential helper: the token is in gh's environment, never in a URL, a git
config file or agentci's run. An open pull request from that branch is edited (title, body);
otherwise one is created, with summary.md as its body.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentci.change.repo_dirs import objects_dir
from agentci.delivery.context import DeliveryError, GitHubContext
from agentci.delivery.gh import Gh
from agentci.delivery.process import GIT_TIMEOUT, delivery_env, run_bounded, timeout_for
from agentci.gitenv import git_argv, git_env

BOT_NAME = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
MAX_BODY = 60_000  # GitHub refuses bodies over 65,536 characters


@dataclass
class Proposal:
    """What went to GitHub for one task."""

    branch: str
    url: str
    created: bool


def branch_name(recipe: str, task: str) -> str:
    """``agentci/<recipe>-<task>`` with anything git refuses in a branch name replaced."""
    raw = f"{recipe}-{task}"
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", raw).strip(".-") or "run"
    safe = re.sub(r"\.{2,}", ".", safe).removesuffix(".lock")
    return f"agentci/{safe}"


def clip(text: str, limit: int = MAX_BODY) -> str:
    """``text`` within GitHub's size limit, saying when it was cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 80] + "\n\n… (cut: the whole summary is summary.md in the artifact)\n"


def _verb(args: tuple[str, ...]) -> str:
    """The git command of ``args`` (``push`` of ``-c k=v … push …``)."""
    i = 0
    while i < len(args) - 1 and args[i] == "-c":
        i += 2
    return args[i] if i < len(args) else "git"


def _git(
    git_dir: Path,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    repo: Path | None = None,
) -> str:
    """agentci's git on ``git_dir`` (pinned: nothing in the current folder makes git discover
    another repository); ``repo`` when it is a repository agentci does not own (its drivers
    are neutralised)."""
    done = run_bounded(
        git_argv(args),
        cwd=git_dir,
        env=git_env({"GIT_DIR": str(git_dir), **(env or {})}, base=delivery_env(), repo=repo),
        stdin=stdin,
        timeout=timeout_for(GIT_TIMEOUT),
        what=f"git {_verb(args)}",
    )
    if done.returncode != 0:
        raise DeliveryError(
            f"git {_verb(args)} failed: {done.stderr.decode(errors='replace').strip()}"
        )
    return done.stdout.decode().strip()


@dataclass
class Scratch:
    """A bare repository of agentci's own that reads the checkout's objects, and the commit
    the checkout has checked out."""

    git_dir: Path
    head: str


@contextmanager
def scratch_repository(workspace: Path) -> Iterator[Scratch]:
    """A bare repository in a temporary folder, with a config of agentci's own, that reads the
    checkout's objects (``objects/info/alternates``) and its shallow list.

    The commit and the push happen there: the checkout's config was the project's and the
    agent's to write, and a network setting in it (``http.proxy`` with ``http.sslVerify``
    off, ``url.<x>.insteadOf``, ``http.extraHeader``, a credential helper of its own) would
    steer the push, and the token with it, elsewhere. Only the checkout's ``HEAD`` is read
    from it."""
    checkout = workspace / ".git"
    head = _git(checkout, "rev-parse", "--verify", "--end-of-options", "HEAD^{commit}",
                repo=checkout)  # fmt: skip
    objects = objects_dir(checkout).resolve()
    with tempfile.TemporaryDirectory(prefix="agentci-deliver-") as tmp:
        git_dir = Path(tmp) / "deliver.git"
        _git(Path(tmp), "init", "-q", "--bare", "--template=", str(git_dir))
        info = git_dir / "objects" / "info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "alternates").write_bytes(os.fsencode(objects) + b"\n")
        # a shallow clone (actions/checkout's default): history ends where the checkout's does
        if (objects.parent / "shallow").is_file():
            shutil.copyfile(objects.parent / "shallow", git_dir / "shallow", follow_symlinks=False)
        yield Scratch(git_dir, head)


def patch_directory(value: object) -> str:
    """A task's ``extra.patch.directory`` from result.json (the recipe's workspace folder inside
    the repository, "" at its top), checked: a relative path with no ``..``, else DeliveryError."""
    if value is None or value == "":
        return ""
    text = value if isinstance(value, str) else ""
    parts = text.split("/")
    if not text or any(p in ("", ".", "..") for p in parts) or "\\" in text or "\0" in text:
        raise DeliveryError(f"result.json's patch directory {value!r} is not a folder of the "
                            "repository")  # fmt: skip
    return "/".join(parts)


def commit_patch(scratch: Scratch, patch: bytes, message: str, directory: str = "") -> str:
    """A commit holding the checkout's ``HEAD`` plus ``patch`` (the text of a patch.diff),
    made in ``scratch``: the checkout's index and working tree are not touched. ``directory``:
    the workspace's folder inside the repository, which the patch's paths are relative to
    (a recipe's ``workspace.path``), from :func:`patch_directory`."""
    index = {"GIT_INDEX_FILE": str(scratch.git_dir / "agentci-index")}
    _git(scratch.git_dir, "read-tree", scratch.head, env=index)
    where = [f"--directory={directory}"] if directory else []
    _git(scratch.git_dir, "apply", "--cached", "--binary", *where, "-", env=index, stdin=patch)
    tree = _git(scratch.git_dir, "write-tree", env=index)
    who = {
        "GIT_AUTHOR_NAME": BOT_NAME, "GIT_AUTHOR_EMAIL": BOT_EMAIL,
        "GIT_COMMITTER_NAME": BOT_NAME, "GIT_COMMITTER_EMAIL": BOT_EMAIL,
    }  # fmt: skip
    return _git(scratch.git_dir, "commit-tree", tree, "-p", scratch.head, "-F", "-", env=who,
                stdin=message.encode())  # fmt: skip


def push_branch(scratch: Scratch, ctx: GitHubContext, gh: Gh, commit: str, branch: str) -> None:
    """Force-push ``commit`` to ``branch`` of the repository from ``scratch``, authenticated
    by gh."""
    url = f"{ctx.server_url}/{ctx.repository}.git"
    # agentci's git allows no protocol (GIT_ALLOW_PROTOCOL, agentci.gitenv.FORCED_ENV): this
    # push, in the scratch repository whose config is agentci's own, allows the URL's one
    scheme = url.split(":", 1)[0].lower()
    helper = f"!{gh.exe} auth git-credential"
    env = {"GH_TOKEN": gh.env["GH_TOKEN"], "GH_PROMPT_DISABLED": "1", "GIT_TERMINAL_PROMPT": "0",
           "GIT_ALLOW_PROTOCOL": scheme}  # fmt: skip
    _git(scratch.git_dir, "-c", f"protocol.{scheme}.allow=always", "-c", "credential.helper=",
         "-c", f"credential.helper={helper}", "push", "--force", "--quiet", url, f"{commit}:refs/heads/{branch}", env=env)  # fmt: skip


def open_or_update(gh: Gh, ctx: GitHubContext, branch: str, title: str, body: str) -> Proposal:
    """Edit the open pull request from ``branch``, or create one."""
    repo = ctx.repository
    found = gh.json_list("pr", "list", "--repo", repo, "--head", branch, "--state", "open",
                    "--json", "number,url")  # fmt: skip
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as fh:
        fh.write(clip(body))
    try:
        if found:
            number, url = found[0].get("number"), found[0].get("url")
            if not isinstance(number, int) or not isinstance(url, str):
                raise DeliveryError(f"gh pr list answered no number and url: {found[0]!r:.200}")
            gh.run(
                "pr", "edit", str(number), "--repo", repo, "--title", title, "--body-file", fh.name
            )
            return Proposal(branch, url, created=False)
        out = gh.run("pr", "create", "--repo", repo, "--head", branch,
                     "--base", ctx.base_branch(), "--title", title, "--body-file", fh.name)  # fmt: skip
        urls = re.findall(r"https?://\S+", out)
        if not urls:
            raise DeliveryError(f"gh pr create printed no URL: {out.strip()[:200]!r}")
        return Proposal(branch, urls[-1], created=True)
    finally:
        os.unlink(fh.name)
