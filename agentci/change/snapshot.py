"""Snapshots of a workspace in agentci's private git dir (the snapshot model, docs/architecture.md).

:func:`capture_baseline` takes the first snapshot (after setup and the baseline verify);
:func:`take` takes the others. A snapshot is a git tree of every file that is not ignored by
the **baseline's** ignore rules — tracked, modified and untracked alike — plus fingerprints of
the ignored files, so that:

* an agent that edits ``.gitignore`` changes nothing about which files are the change: a user's
  ignored ``.env`` does not become a "new file", and a file the agent hides with a new ignore
  rule is still in it;
* files the agent writes that the baseline's rules ignore are noticed (size, mtime or inode
  changed, or new) and reported, never published;
* the private index never inherits ``assume-unchanged`` / ``skip-worktree`` bits;
* a checked-out submodule's files are snapshotted as files (its gitlink is replaced by the tree
  of its working copy), so edits inside it are in the change; so are the files of a git
  repository the user already had inside the workspace (a nested clone, not a submodule);
* a git repository the agent creates inside the workspace is reported, not stored as a gitlink;
* a file git cannot read is reported, not silently skipped; so is a tracked file replaced by a
  named pipe, socket or device (git cannot store one: the snapshot keeps the file as it was).

What a verify command writes is subtracted (:func:`record_verify`): the paths it changed go back
to their pre-verify content in later snapshots, unless the agent changed them again since.

The parts live in their own modules: the data in :mod:`~agentci.change.baseline`, ignore rules
and ignored files in :mod:`~agentci.change.ignored`, verify's writes in
:mod:`~agentci.change.overlay`, submodules in :mod:`~agentci.change.submodules`.
"""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

from agentci.change.baseline import CACHE_PATTERNS, DEFAULT_EXCLUDE, Baseline, Snapshot
from agentci.change.gitreads import refuse_blocking_files
from agentci.change.ignored import freeze_rules, remove_paths, scan_ignored
from agentci.change.overlay import apply_overlay, record_verify
from agentci.change.privgit import (
    GITLINK,
    GitFailed,
    PrivateGit,
    add_alternate,
    copy_index,
    create,
    raw_records,
    split_z,
)
from agentci.change.repo_dirs import dot_git_dir, find_repo_dirs, head_commit, objects_dir
from agentci.change.submodules import adopt_nested, find_submodules, graft, own_objects
from agentci.change.walk import set_head, status, update_index
from agentci.errors import InvalidInput
from agentci.tempdirs import make_temp_dir

__all__ = [
    "DEFAULT_EXCLUDE",
    "Baseline",
    "Snapshot",
    "capture_baseline",
    "carry_over",
    "find_repo_dirs",
    "head_commit",
    "record_verify",
    "take",
]


# -- the user's repository ------------------------------------------------------------------


def _common_dir(git_dir: Path) -> Path:
    return objects_dir(git_dir).parent


# -- baseline -------------------------------------------------------------------------------


def capture_baseline(
    workspace: Path, *, exclude: tuple[str, ...] = DEFAULT_EXCLUDE, deadline: float | None = None
) -> Baseline:
    """Snapshot ``workspace`` (see the module docstring) into a new private git dir; its git
    calls end by ``deadline`` (``time.monotonic()``, see :class:`~agentci.change.privgit.PrivateGit`).

    ``exclude`` lists folders/files relative to the workspace left out (default ``.agentci``).
    Raises :class:`InvalidInput` when the folder does not exist or git is missing.
    """
    workspace = Path(workspace)
    if not workspace.is_dir():
        raise InvalidInput(f"workspace {workspace} does not exist or is not a folder")
    workspace = workspace.resolve()
    git_dir = make_temp_dir("baseline")
    try:
        b = _new_baseline(workspace, git_dir, tuple(exclude))
        b.deadline = deadline
        b.watch = partial(refuse_blocking_files, b)
        _first_head(b)
        try:
            snap = take(b)
        except GitFailed:  # the copied index could not be used (newer format): start empty
            b.git.index.unlink(missing_ok=True)
            b.head = ""  # the index no longer holds that tree
            snap = take(b)
        known = {sm.path for sm in b.submodules}
        if set(snap.repos) - known and adopt_nested(b, b.git):
            snap = take(b)  # the user's nested clones: snapshotted like submodules
        user_git = dot_git_dir(b.repo_root) if b.repo_root is not None else None
        own_objects(b, b.git, objects_dir(user_git) if user_git is not None else None)
        b.tree, b.raw, b.ignored_ref = snap.tree, snap.raw, dict(snap.ignored)
        b.ignored_start = dict(snap.ignored)
        b.unreadable_at_start, b.ignored_truncated = snap.unreadable, snap.scan_truncated
        b.nested_at_start = snap.nested
    except BaseException:
        shutil.rmtree(git_dir, ignore_errors=True)
        raise
    return b


def carry_over(
    prev: Baseline, snap: Snapshot, workspace: Path, exclude: tuple[str, ...]
) -> Baseline | None:
    """The baseline of the next task on the same tree, from the last snapshot of the task
    before, when nothing ran in the workspace since it was taken (the caller knows): no walk,
    the private git dir goes on (its index is the stat cache). None when that snapshot is not
    what a new baseline would hold: another folder or other excluded paths, paths verify wrote
    subtracted or ignore rules frozen (the snapshot is not the disk as it is), or a repository
    the agent made (a new baseline would adopt it)."""
    if (
        Path(workspace).resolve() != prev.workspace
        or _covering(exclude) != _covering(prev.exclude)
        or prev.overlay
        or prev.rules_changed
        or set(snap.nested) - set(prev.nested_at_start)
    ):
        return None
    shutil.rmtree(prev.git_dir / "rules", ignore_errors=True)  # the old baseline's .gitignore
    b = Baseline(workspace=prev.workspace, work_tree=prev.work_tree, prefix=prev.prefix,
                 git_dir=prev.git_dir, tree=snap.tree, exclude=prev.exclude,
                 repo_root=prev.repo_root, raw=snap.raw, submodules=prev.submodules,
                 ignored_ref=dict(snap.ignored), ignored_start=dict(snap.ignored),
                 unreadable_at_start=list(snap.unreadable),
                 nested_at_start=list(snap.nested), ignored_truncated=snap.scan_truncated,
                 head=prev.head)  # fmt: skip
    b.watch = partial(refuse_blocking_files, b)
    return b


def _covering(exclude: tuple[str, ...]) -> set[str]:
    """The excluded paths that are not inside another one (what is left out, as a set)."""
    paths = {p.strip("/") for p in exclude if p.strip("/")}
    return {p for p in paths if not any(p.startswith(q + "/") for q in paths)}


def _first_head(b: Baseline) -> None:
    """The private ``HEAD``: the tree of the user's index, when it has one (the first status
    then lists only what differs from it)."""
    if not b.git.index.is_file():
        return
    try:
        b.head = b.git.write_tree()
        set_head(b.git, b.head)
    except GitFailed:  # an index git cannot write as a tree (a conflict): no HEAD, same result
        b.head = ""


def _new_baseline(workspace: Path, git_dir: Path, exclude: tuple[str, ...]) -> Baseline:
    found = find_repo_dirs(workspace)
    top, user_git = found if found else (workspace, None)
    pg = create(git_dir, top)
    if user_git is not None:
        common = _common_dir(user_git)
        if (common / "info" / "exclude").is_file():
            shutil.copyfile(common / "info" / "exclude", git_dir / "info" / "exclude")
        if top != workspace:
            rel = workspace.relative_to(top).as_posix() + "/"
            hit = pg.out(["check-ignore", "--no-index", "--", rel], ok=(0, 1))
            if hit:  # e.g. a workspace under build/: snapshot it on its own
                (git_dir / "info" / "exclude").unlink(missing_ok=True)
                top, user_git = workspace, None
                pg = PrivateGit(git_dir, top, git_dir / "index")
    _ignore_caches(git_dir)
    b = Baseline(workspace=workspace, work_tree=top, git_dir=git_dir, exclude=exclude,
                 prefix="" if top == workspace else workspace.relative_to(top).as_posix(),
                 repo_root=top if user_git is not None else None)  # fmt: skip
    if user_git is not None:
        add_alternate(pg, objects_dir(user_git))
        if copy_index(pg, user_git / "index", pg.index):
            try:  # one listing: the index bits and the submodules
                out = pg.out(["ls-files", "-s", "-v", "-z"])
                if not _plain_files(out):
                    listing = split_z(out)
                    _clear_index_bits(pg, listing)
                    b.submodules = find_submodules(pg, top, listing)
            except GitFailed:
                pg.index.unlink(missing_ok=True)
    return b


def _ignore_caches(git_dir: Path) -> None:
    """Add the tools' caches (:data:`CACHE_PATTERNS`) to the private git dir's ignore rules."""
    exclude = git_dir / "info" / "exclude"
    old = exclude.read_text(encoding="utf-8", errors="surrogateescape") if exclude.is_file() else ""
    lines = "\n".join(CACHE_PATTERNS)
    text = f"{old}\n# agentci: tool caches\n{lines}\n" if old else f"{lines}\n"
    exclude.write_text(text, encoding="utf-8", errors="surrogateescape")


def _plain_files(listing: bytes) -> bool:
    """True when every entry of ``git ls-files -s -v -z`` output is a file or link with no
    index bit (tag ``H``) and none is a gitlink: nothing to clear, no submodule. Counted in
    the bytes (a path holds no NUL), so a large index needs no pass in Python."""
    entries = listing.count(b"\0")
    plain = listing.count(b"\0H ") + listing.startswith(b"H ")
    gitlinks = listing.count(b"\0H " + GITLINK.encode()) + listing.startswith(
        b"H " + GITLINK.encode()
    )
    return plain == entries and gitlinks == 0


def _clear_index_bits(pg: PrivateGit, listing: list[str]) -> None:
    """Drop the user's ``assume-unchanged`` / ``skip-worktree`` bits from the private index
    (``listing``: ``git ls-files -s -v -z``)."""
    tagged = [(line[:1], line.split("\t", 1)[1]) for line in listing]
    for flag, paths in (
        ("--no-assume-unchanged", [p for tag, p in tagged if tag.islower()]),
        ("--no-skip-worktree", [p for tag, p in tagged if tag in ("S", "s")]),
    ):  # one flag per call: git applies only the last flag given to every path
        for i in range(0, len(paths), 500):
            pg.run(["update-index", flag, "--", *paths[i : i + 500]], literal=True)


# -- one snapshot ---------------------------------------------------------------------------


def take(b: Baseline) -> Snapshot:
    """Snapshot the workspace as it is now (see the module docstring): one walk of the work
    tree (:mod:`~agentci.change.walk`). Raises :class:`~agentci.errors.GitWouldBlock` when git
    would wait on a file for ever."""
    pg = b.git
    specs = b.pathspecs
    walk = status(pg, specs)
    unreadable: list[str] = []
    nested = list(walk.nested)
    # the walk compares the work tree with the index: an index written by a snapshot that
    # stopped before its tree became HEAD would make this one reuse that older HEAD
    stale, b.index_ahead = b.index_ahead, True
    if not b.raw and walk.nested:  # the baseline: the user's own clones, as gitlinks to adopt
        _, err = pg.run(["add", "--ignore-errors", "--", *walk.nested], literal=True, ok=(0, 1))
        unreadable = _add_problems(err)[0]
    # the baseline makes the index a split index: later snapshots write only what changed
    split = not b.raw and not any(b.git_dir.glob("sharedindex.*"))
    if not update_index(pg, walk, split=split):  # git refused a path: add -A names each one
        _, err = pg.run(["add", "-A", "--ignore-errors", "--", *specs], ok=(0, 1))
        unreadable, more = _add_problems(err)
        nested += more
        if b.raw:  # a repository the agent made is reported, never stored as a gitlink
            remove_paths(pg, walk.nested)
    dropped: list[str] = []
    forced: set[str] = set()
    if b.raw:
        b.rules_changed = b.rules_changed or walk.rules_touched
        if b.rules_changed:
            dropped, forced = freeze_rules(b, pg, _index_changes(pg, b.raw, specs), specs)
        if b.overlay:
            apply_overlay(b, pg)
    touched = walk.changed or walk.new or unreadable or b.rules_changed or b.overlay or nested
    # nothing changed the index since its tree was written: that tree, without a git call
    raw = pg.write_tree() if touched or stale or not b.head else b.head
    if raw != b.head:
        set_head(pg, raw)
        b.head = raw
    b.index_ahead = False
    tree = graft(b, pg, raw)
    ignored, truncated = scan_ignored(b, walk.ignored, dropped, forced)
    return Snapshot(tree=tree, raw=raw, ignored=ignored, nested=sorted(set(nested)),
                    unreadable=sorted(set(unreadable)), scan_truncated=truncated,
                    repos=sorted(walk.nested))  # fmt: skip


#: ``git add``'s error for a path that is a named pipe, socket or device (``error: PATH: …``).
_NOT_A_FILE = ": can only add regular files, symbolic links or git-directories"


def _add_problems(stderr: bytes) -> tuple[list[str], list[str]]:
    """(unreadable files, nested repositories without a commit) from ``git add`` errors; a
    tracked file replaced by a named pipe, socket or device is an unreadable file (git cannot
    store what is there: the snapshot keeps the file as it was)."""
    unreadable, nested = [], []
    for line in stderr.decode("utf-8", "surrogateescape").splitlines():
        if line.startswith("error: open(") and '"' in line:
            unreadable.append(line.split('"', 2)[1])
        elif line.startswith("error: ") and line.endswith(_NOT_A_FILE):
            unreadable.append(line[len("error: ") : -len(_NOT_A_FILE)])
        elif line.startswith("error: unable to index file "):
            name = line[len("error: unable to index file ") :].strip("'")
            if name not in unreadable:
                unreadable.append(name)
        elif line.startswith("error: ") and line.endswith("does not have a commit checked out"):
            nested.append(line.split("'", 2)[1].rstrip("/"))
    return unreadable, nested


def _index_changes(pg: PrivateGit, tree: str, specs: list[str]) -> list[tuple[str, ...]]:
    """(old mode, new mode, status, path) of every path the index changes against ``tree``."""
    out = pg.out(["diff-index", "--cached", "-z", "--raw", "--no-renames", tree, "--", *specs])
    return [(h[1:].split()[0], h.split()[1], h.split()[4], p) for h, p in raw_records(out)]
