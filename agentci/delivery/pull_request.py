"""The change as a branch and a pull request: ``agentci/<recipe>-<task>``, updated, not duplicated.

The commit is made from ``patch.diff`` alone, in a temporary index on top of the checked-out
commit (the working tree and the index of the checkout are not touched), and force-pushed to
the branch, so a rerun replaces agentci's previous proposal. The push authenticates through
``gh`` as git's credential helper: the token is in gh's environment, never in a URL, a git
config file or agentci's run. An open pull request from that branch is edited (title, body);
otherwise one is created, with summary.md as its body.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

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
    workspace: Path, *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None
) -> str:
    done = run_bounded(
        git_argv(args, repo=workspace / ".git"),
        cwd=workspace,
        # Pinned to the checkout's repository: nothing in the workspace makes git discover another.
        env=git_env(
            {"GIT_DIR": str(workspace / ".git"), "GIT_WORK_TREE": str(workspace), **(env or {})},
            base=delivery_env(),
        ),
        stdin=stdin,
        timeout=timeout_for(GIT_TIMEOUT),
        what=f"git {_verb(args)}",
    )
    if done.returncode != 0:
        raise DeliveryError(
            f"git {_verb(args)} failed: {done.stderr.decode(errors='replace').strip()}"
        )
    return done.stdout.decode().strip()


def commit_patch(workspace: Path, patch: bytes, message: str) -> str:
    """A commit holding HEAD plus ``patch`` (the text of a patch.diff), made without touching
    the checkout's index."""
    with tempfile.TemporaryDirectory(prefix="agentci-deliver-") as tmp:
        index = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(workspace, "read-tree", "HEAD", env=index)
        _git(workspace, "apply", "--cached", "--binary", "-", env=index, stdin=patch)
        tree = _git(workspace, "write-tree", env=index)
        who = {
            "GIT_AUTHOR_NAME": BOT_NAME, "GIT_AUTHOR_EMAIL": BOT_EMAIL,
            "GIT_COMMITTER_NAME": BOT_NAME, "GIT_COMMITTER_EMAIL": BOT_EMAIL,
        }  # fmt: skip
        return _git(workspace, "commit-tree", tree, "-p", "HEAD", "-F", "-", env=who,
                    stdin=message.encode())  # fmt: skip


def push_branch(workspace: Path, ctx: GitHubContext, gh: Gh, commit: str, branch: str) -> None:
    """Force-push ``commit`` to ``branch`` of the repository, authenticated by gh."""
    url = f"{ctx.server_url}/{ctx.repository}.git"
    scheme = url.split(":", 1)[0].lower()  # agentci's git allows no protocol unless told
    helper = f"!{gh.exe} auth git-credential"
    env = {"GH_TOKEN": gh.env["GH_TOKEN"], "GH_PROMPT_DISABLED": "1", "GIT_TERMINAL_PROMPT": "0"}
    _git(workspace, "-c", f"protocol.{scheme}.allow=always", "-c", "credential.helper=",
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
