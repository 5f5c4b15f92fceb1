"""Where the agent works: in place, in a copy, or in a temporary git worktree.

``workspace.isolation`` in the recipe:

* ``none`` — the agent works in ``workspace.path`` itself. The folder does not need to be a git
  repository: the patch baseline (:mod:`agentci.change.patch`) lives in a private temporary git
  dir and never ``git init``-s or otherwise touches the user's folder or repository.
* ``copy`` — the folder is copied to a fresh temp dir (everything, including ignored files such as
  virtualenvs, except ``.git`` and the top-level ``.agentci/``). The copy is made a git repository
  of its own with one commit of everything, so the agent can run ``git diff`` / ``git status``.
  When the original is in a git repository, the copy's repository reads that repository's
  objects (``objects/info/alternates``, :func:`_borrow_objects`): a file the original already
  stores is hashed but not stored again. Reading goes one way only: what git writes in the copy
  stays in the copy. The original stays untouched, uncommitted changes included.
* ``worktree`` — ``git worktree add --detach`` of ``HEAD`` of the repository containing the path,
  in a temp dir. Uncommitted changes of the original are *not* in it (it is HEAD). When the path
  is a subfolder of the repository, the agent works in the same subfolder of the worktree.
  :meth:`PreparedWorkspace.cleanup` removes the worktree again (that worktree alone). Adding
  and removing it hold locks, so runs and batch tasks on one repository at once do not make
  each other's ``git worktree add`` fail (:mod:`agentci.worktree`).

Every problem the user can fix (missing path, not a git repository, no commit yet, no git) is an
:class:`~agentci.errors.InvalidInput` naming the path.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agentci.change.patch import find_repo_root, worktree_base
from agentci.change.repo_dirs import objects_dir
from agentci.change.snapshot import find_repo_dirs
from agentci.errors import InvalidInput
from agentci.gitenv import run_git
from agentci.hostprog import add_workspace, host_program
from agentci.recipe.schema import Workspace
from agentci.tempdirs import PREFIX, make_temp_dir
from agentci.worktree import Worktree, git_step

Isolation = Literal["none", "copy", "worktree"]


@dataclass
class PreparedWorkspace:
    """A workspace ready for the agent. Call :meth:`cleanup` (or use ``with``) when done."""

    path: Path  # resolved real path where the agent works
    original: Path  # resolved path the recipe named
    isolation: Isolation
    _cleanup: Callable[[], None] | None = field(default=None, repr=False)
    base_commit: str | None = None  # worktree: the commit it was made from (the original's HEAD)
    #: copy or worktree: where :meth:`keep` moves the agent's folder (out of the leftovers a
    #: later run prunes); None for ``none``
    kept_path: Path | None = None
    _keep: Callable[[], None] | None = field(default=None, repr=False)

    def cleanup(self) -> None:
        """Remove the copy or worktree (nothing for ``none``). Safe to call twice."""
        fn, self._cleanup = self._cleanup, None
        if fn is not None:
            fn()

    def keep(self) -> None:
        """Keep the copy or worktree (its work is in no written patch): moved to
        :attr:`kept_path` (``git worktree move`` for a worktree); never removed by agentci
        after this. Raises what the move raises (it then stays where it was, not removed)."""
        self._cleanup = None
        fn, self._keep = self._keep, None
        if fn is not None:
            fn()

    def __enter__(self) -> PreparedWorkspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


def _git_dir(top: Path) -> Path | None:
    """The git dir of the repository whose top level is ``top`` (None when git says none)."""
    done = run_git(["rev-parse", "--absolute-git-dir"], cwd=top)
    out = done.stdout.decode(errors="replace").strip()
    return Path(out) if done.returncode == 0 and out else None


def ensure_git(path: Path) -> Path | None:
    """Check that git can be used for ``path``; return its repository's top-level, or None.

    Never modifies anything. A folder that is not a git repository is fine for every isolation
    except ``worktree``: the patch baseline is kept in a private temp git dir, so the user's folder
    is not ``git init``-ed. Raises :class:`InvalidInput` when git itself is not installed.
    """
    if host_program("git") is None:
        raise InvalidInput("git is not installed or not on PATH; agentci needs it for the patch")
    return find_repo_root(path)  # reads .git entries: no GitPython import on start-up


class Originals:
    """What the tasks of one run or batch read once from the checkout their worktrees come
    from: the commit every worktree starts from (``git rev-parse``), and the checkout's
    uncommitted changes, which no worktree has (``git status``, a walk of the whole tree).
    A batch of 16 tasks on one repository used to ask git both for each task. Safe to use
    from several threads (tasks make their worktrees in worker threads)."""

    def __init__(self) -> None:
        self._head_lock = threading.Lock()
        self._status_lock = threading.Lock()  # a long `git status` holds no head() back
        self._heads: dict[Path, str] = {}
        self._uncommitted: dict[Path, str] = {}

    def head(self, top: Path, git_dir: Path | None) -> str:
        """The commit ``HEAD`` of the repository at ``top`` names, read once ("" when none)."""
        with self._head_lock:
            if top not in self._heads:
                done = run_git(["rev-parse", "--verify", "-q", "HEAD^{commit}"], cwd=top,
                               repo=git_dir)  # fmt: skip
                commit = done.stdout.decode(errors="replace").strip()
                if done.returncode != 0 or not commit:
                    return ""  # no commit yet: asked again by the next task, which fails too
                self._heads[top] = commit
            return self._heads[top]

    def uncommitted(self, original: Path) -> str:
        """The original checkout's uncommitted changes, described once ("" when clean; see
        :func:`~agentci.change.patch.worktree_base`)."""
        with self._status_lock:
            if original not in self._uncommitted:
                self._uncommitted[original] = worktree_base(original)[1]
            return self._uncommitted[original]


def prepare_workspace(
    ws: Workspace, *, base_dir: Path, originals: Originals | None = None
) -> PreparedWorkspace:
    """Make the workspace the recipe asks for; ``ws.path`` is relative to ``base_dir``.
    ``originals``: what the run's tasks have read from the original checkout already."""
    src = Path(base_dir) / ws.path
    if not src.exists():
        hint = (
            ""
            if Path(ws.path).is_absolute()
            else (
                f" (a relative workspace.path is taken from the directory agentci runs in, {base_dir};"
                " run agentci from there or pass -w DIR)"
            )
        )
        raise InvalidInput(f"workspace.path {ws.path!r}: {src} does not exist{hint}")
    if not src.is_dir():
        raise InvalidInput(f"workspace.path {ws.path!r}: {src} is not a folder")
    src = src.resolve()
    add_workspace(src)  # before any git call: no program agentci runs comes from in here
    if ws.isolation == "none":
        ensure_git(src)
        return PreparedWorkspace(path=src, original=src, isolation="none")
    if ws.isolation in ("copy", "worktree"):
        if ws.isolation == "copy":
            made = _copy(src)
        else:
            made = _worktree(src, originals if originals is not None else Originals())
        add_workspace(made.path)
        return made
    raise InvalidInput(f"workspace.isolation: unknown value {ws.isolation!r}")


def _copy(src: Path) -> PreparedWorkspace:
    ensure_git(src)
    tmp = make_temp_dir("copy")
    dest = tmp / (src.name or "workspace")

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n == ".git"}
        if Path(folder) == src and ".agentci" in names:
            skip.add(".agentci")
        return skip

    try:
        shutil.copytree(src, dest, symlinks=True, ignore=ignore)
        git_step(["init", "-q"], dest)
        _borrow_objects(src, dest / ".git")
        git_step(["add", "-A"], dest)
        git_step(["commit", "-q", "--no-verify", "--allow-empty", "-m", "agentci: baseline"], dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    # "agentci-kept-copy-…": not a name the leftovers' pruning (agentci.tempdirs) matches
    kept_dir = tmp.with_name(tmp.name.replace(f"{PREFIX}copy-", f"{PREFIX}kept-copy-", 1))
    return PreparedWorkspace(
        path=dest.resolve(),
        original=src,
        isolation="copy",
        _cleanup=lambda: shutil.rmtree(tmp, ignore_errors=True),
        kept_path=kept_dir.parent.resolve() / kept_dir.name / dest.name,
        _keep=lambda: os.rename(tmp, kept_dir),
    )


def _borrow_objects(src: Path, copy_git: Path) -> None:
    """Let the copy's new repository read the objects of the repository ``src`` is in, so that
    ``git add -A`` in the copy stores only what the original does not have (creating one file
    per object costs as much as copying the file). git stores nothing in an alternate object
    store (it may refresh the time stamp of an object file it finds there, as ``git add`` in
    the original would): the copy's own objects, the agent's included, are written in the
    copy. Nothing is borrowed
    from a repository whose objects are not SHA-1 (the copy's format) or whose path cannot be
    written on one line."""
    found = find_repo_dirs(src)
    if found is None:
        return
    store = objects_dir(found[1]).resolve()
    config = store.parent / "config"
    try:
        text = config.read_text(encoding="utf-8", errors="replace").lower()
    except OSError:
        return
    if "objectformat" in text or "\n" in str(store) or not store.is_dir():
        return
    info = copy_git / "objects" / "info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "alternates").write_bytes(os.fsencode(store) + b"\n")  # a name not UTF-8 too


def _worktree(src: Path, originals: Originals) -> PreparedWorkspace:
    top = ensure_git(src)
    if top is None:
        raise InvalidInput(
            f"workspace.isolation: worktree needs a git repository, but {src} is not in one "
            "(use isolation: copy for plain folders)"
        )
    found = find_repo_dirs(top)  # read from .git entries, as ensure_git found the top
    git_dir = found[1] if found is not None else _git_dir(top)
    commit = originals.head(top, git_dir)
    if not commit:
        raise InvalidInput(f"workspace.isolation: worktree needs a commit, but {top} has none yet")
    common = objects_dir(git_dir).parent if git_dir is not None else top / ".git"
    wt = Worktree.add(top, git_dir, common, commit)
    rel = src.relative_to(top)
    path = (wt.path / rel).resolve()
    if not path.is_dir():  # the subfolder exists only uncommitted in the original
        path.mkdir(parents=True, exist_ok=True)
    # "agentci-kept-worktree-…": not a name the leftovers' pruning (agentci.tempdirs) matches
    kept_dir = wt.tmp.with_name(
        wt.tmp.name.replace(f"{PREFIX}worktree-", f"{PREFIX}kept-worktree-", 1)
    )
    return PreparedWorkspace(path=path, original=src, isolation="worktree", _cleanup=wt.remove,
                             base_commit=commit, kept_path=kept_dir / wt.path.name / rel,
                             _keep=lambda: wt.move(kept_dir))  # fmt: skip
