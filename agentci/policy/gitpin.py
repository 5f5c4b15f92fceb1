"""The model's read-only git, pinned to the workspace's real repository.

git takes its configuration from the repository it *discovers* from its working directory,
and that configuration can make it run programs (``core.fsmonitor``, a ``man.<tool>.cmd``
help viewer, textconv, ``diff.external``, ``gpg.program``, an ``includeIf`` target). The agent
can plant a repository with four ``write_file`` calls (``x/HEAD``, ``x/config``,
``x/objects/``, ``x/refs/``), so a ``cd x && git status`` that passes as read-only would run
what the agent wrote. Two things stop that:

* **by construction**, every shell command allowed because its git is a built-in read-only
  command runs with :func:`pinned_env`: ``GIT_DIR``/``GIT_WORK_TREE`` name the repository
  the workspace had when the task started (git discovers nothing, from any folder, in any
  git a script of the command might start) and ``GIT_CONFIG_*`` carry
  :data:`agentci.gitenv.TOOL_CONFIG` (no fsmonitor, hooks, pager, gpg … whatever a config
  says) and the repository's filter, diff and merge drivers and ``diff.external``
  neutralised (no textconv, external diff or filter program runs, in the sandbox either);
* **so the model knows**, a read-only git whose folder would make git discover another
  repository (a nested ``.git`` folder or file, a folder that looks like a git dir) is denied
  with a reason naming it (:func:`other_repository`), as is one in a workspace that is in no
  repository, or whose repository's config takes in a file the agent can write
  (:func:`config_from_workspace`).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from agentci.change.repo_dirs import dot_git_dir
from agentci.change.snapshot import find_repo_dirs
from agentci.gitenv import (
    FORCED_ENV,
    NO_REMOTE,
    TOOL_CONFIG,
    config_env,
    driver_overrides,
    git_env,
    git_program,
)
from agentci.policy.paths import is_below
from agentci.policy.shell_parse import Analysis, SimpleCommand
from agentci.policy.shell_words import GlobWord

#: Folders followed through the ``cd`` commands of one command line.
MAX_DIRS = 64

#: Entries that make a folder a git dir for git's discovery (with ``HEAD``).
_GIT_DIR_MARKS = ("objects", "refs", "commondir")


@dataclass(frozen=True)
class Repo:
    """A repository: its git dir and the top of its work tree (both real paths)."""

    git_dir: Path
    work_tree: Path


def find_repo(workspace: Path) -> Repo | None:
    """The repository the workspace is in (its ``.git``, or one above it), read from ``.git``
    entries without running git; None when there is none."""
    found = find_repo_dirs(Path(os.path.realpath(workspace)))
    if found is None:
        return None
    top, git_dir = found
    return Repo(Path(os.path.realpath(git_dir)), Path(os.path.realpath(top)))


def pinned_env(repo: Repo) -> dict[str, str]:
    """The environment additions that pin every git of a command to ``repo``, with
    :data:`~agentci.gitenv.TOOL_CONFIG` and the repository's drivers and ``diff.external``
    neutralised (:func:`~agentci.gitenv.driver_overrides`): a read-only ``git diff`` or
    ``git status`` runs no program the repository's config names (the policy refuses
    ``--ext-diff`` as an option; the config cannot turn an external diff on either, and a
    ``--textconv`` runs ``cat``) and reaches no remote (:data:`~agentci.gitenv.NO_REMOTE`: a
    lazy fetch from a promisor remote fails)."""
    return {
        "GIT_DIR": str(repo.git_dir),
        "GIT_WORK_TREE": str(repo.work_tree),
        "GIT_OPTIONAL_LOCKS": "0",
        **{k: FORCED_ENV[k] for k in NO_REMOTE},
        **config_env([*TOOL_CONFIG, *driver_overrides(repo.git_dir)]),
    }


def _looks_like_git_dir(folder: Path) -> bool:
    head = folder / "HEAD"
    if not (head.exists() or head.is_symlink()):
        return False
    return any((folder / m).exists() or (folder / m).is_symlink() for m in _GIT_DIR_MARKS)


def other_repository(start: Path, workspace: Path, repo: Repo | None) -> Path | None:
    """What git would discover from ``start`` instead of ``repo``, or None.

    Walks from ``start`` up to the workspace root as git does: a ``.git`` entry (folder, file
    or link) or a folder that looks like a git dir (``HEAD`` with ``objects``, ``refs`` or
    ``commondir``), other than ``repo``'s own, is another repository. The workspace root's
    ``.git`` is not the agent's to make (it is protected): it is skipped when it is not a
    repository (the sandbox's empty placeholder).
    """
    root = Path(os.path.realpath(workspace))
    here = Path(os.path.realpath(start))
    if not is_below(here, root):
        return None
    own = repo.git_dir if repo is not None else None
    for folder in [here, *here.parents]:
        if own is not None and is_below(folder, own):
            return None  # inside the repository's own git dir
        dot = folder / ".git"
        if dot.exists() or dot.is_symlink():
            real = Path(os.path.realpath(dot))
            if own is not None and folder == repo.work_tree and _names(dot, real, own):  # type: ignore[union-attr]
                return None
            if folder != root or _looks_like_git_dir(real) or dot.is_file():
                return dot
        if _looks_like_git_dir(folder):
            return folder
        if folder == root:
            return None
    return None


def _names(dot: Path, real: Path, own: Path) -> bool:
    """Whether a ``.git`` entry is (or points at) the git dir ``own``."""
    if real == own:
        return True
    if dot.is_file():
        target = dot_git_dir(dot.parent)
        return target is not None and Path(os.path.realpath(target)) == own
    return False


def config_from_workspace(repo: Repo, workspace: Path) -> list[Path]:
    """Config files ``repo``'s git reads that lie in the workspace outside its git dir
    (``include.path``/``includeIf`` targets the agent could write). Listing config runs
    nothing."""
    done = subprocess.run(
        [git_program(), "config", "--list", "--includes", "--show-origin", "--name-only"],
        cwd=repo.git_dir,
        env=git_env({"GIT_DIR": str(repo.git_dir)}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    root = Path(os.path.realpath(workspace))
    out: list[Path] = []
    for line in done.stdout.splitlines():
        origin = line.split("\t", 1)[0]
        if not origin.startswith("file:"):
            continue
        path = Path(os.path.realpath(repo.git_dir / origin[len("file:") :]))
        if is_below(path, root) and not is_below(path, repo.git_dir) and path not in out:
            out.append(path)
    return out


def command_dirs(found: Analysis, cwd: Path) -> list[Path] | None:
    """Every folder a command of ``found`` may run in: ``cwd`` and where its ``cd`` commands lead,
    in any order (None when a ``cd`` goes to a folder computed at run time)."""
    dirs = [Path(os.path.realpath(cwd))]
    for c in found.commands:
        if c.name != "cd" or len(c.words) != 2:
            continue
        target = c.words[1]
        if target is None or isinstance(target, GlobWord):
            return None
        if target == "-":
            continue
        for d in list(dirs):
            new = Path(os.path.realpath(d / target))
            if new not in dirs and len(dirs) < MAX_DIRS:
                dirs.append(new)
    return dirs


def git_dirs_of(words: list[str | None], dirs: list[Path]) -> list[Path]:
    """The folders a ``git`` command runs in: ``dirs``, or where its ``-C`` options lead."""
    out = list(dirs)
    args = words[1:]
    i = 0
    while i < len(args) and args[i] is not None and str(args[i]).startswith("-"):
        if args[i] == "-C" and i + 1 < len(args) and args[i + 1] is not None:
            out = [Path(os.path.realpath(d / str(args[i + 1]))) for d in out]
            i += 1
        i += 1
    return out


def judge(
    found: Analysis,
    cwd: Path,
    gits: list[SimpleCommand],
    workspace: Path,
    repo: Repo | None,
) -> tuple[str | None, dict[str, str]]:
    """For a command line whose ``gits`` were allowed as read-only: why it may not run, or
    None and the environment that pins it (:func:`pinned_env`)."""
    if repo is None:
        return "the workspace is in no git repository, so git would obey any it finds", {}
    dirs = command_dirs(found, cwd)
    if dirs is None:
        return "it changes to a folder computed at run time before running git", {}
    root = Path(os.path.realpath(workspace))
    for c in gits:
        for d in git_dirs_of(c.words, dirs):
            other = other_repository(d, root, repo)
            if other is not None:
                return (
                    f"git in {_rel(d, root)} would use another git repository "
                    f"({_rel(other, root)}), not the workspace's own, and obey its config; "
                    "run read-only git where it reads the workspace's repository"
                ), {}
    taken = config_from_workspace(repo, root)
    if taken:
        names = ", ".join(_rel(p, root) for p in taken)
        return f"the repository's git config includes {names}, a file the agent can write", {}
    return None, pinned_env(repo)


def _rel(path: Path, root: Path) -> str:
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
    return rel if rel != "." else "the workspace root"
