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
  of its working copy), so edits inside it are in the change;
* a git repository the agent creates inside the workspace is reported, not stored as a gitlink;
* a file git cannot read is reported, not silently skipped.

What a verify command writes is subtracted (:func:`record_verify`): the paths it changed go back
to their pre-verify content in later snapshots, unless the agent changed them again since.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from agentci.errors import InvalidInput
from agentci.outputs.privgit import (
    GITLINK,
    GitFailed,
    PrivateGit,
    add_alternate,
    copy_index,
    create,
    dot_git_dir,
    encode_paths,
    objects_dir,
    split_z,
)
from agentci.tempdirs import make_temp_dir

DEFAULT_EXCLUDE = (".agentci",)
MAX_IGNORED_SCAN = 100_000  # ignored files fingerprinted per snapshot, at most
Entry = tuple[str, str] | None  # (mode, object id) of a path in a tree, None when absent
Fingerprint = tuple[int, int, int, int]


@dataclass
class Submodule:
    """A checked-out submodule of the user's repository (paths relative to the work tree)."""

    path: str
    index: Path


@dataclass
class Snapshot:
    """One snapshot: the tree (submodule contents inline) and what it could not store."""

    tree: str
    raw: str  # the private index's own tree (submodules as gitlinks)
    ignored: dict[str, Fingerprint] = field(default_factory=dict)
    nested: list[str] = field(default_factory=list)  # work-tree paths
    unreadable: list[str] = field(default_factory=list)
    scan_truncated: bool = False


@dataclass
class Baseline:
    """The first snapshot of a workspace and the private git dir that keeps it."""

    workspace: Path  # the folder the agent works in (resolved)
    work_tree: Path  # the git work tree the snapshot covers (repo top-level, or the workspace)
    prefix: str  # the workspace relative to work_tree, "" or "sub/dir"
    git_dir: Path  # the private, temporary git dir
    tree: str = ""  # the baseline tree id
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    repo_root: Path | None = None  # the user's repository, when there is one
    raw: str = ""
    submodules: list[Submodule] = field(default_factory=list)
    ignored_ref: dict[str, Fingerprint] = field(default_factory=dict)
    overlay: dict[str, tuple[Entry, Entry]] = field(default_factory=dict)  # verify's writes
    rules_dir: Path | None = None
    unreadable_at_start: list[str] = field(default_factory=list)

    @property
    def git(self) -> PrivateGit:
        """The private git dir."""
        return PrivateGit(self.git_dir, self.work_tree, self.git_dir / "index")

    @property
    def pathspecs(self) -> list[str]:
        """The workspace minus the excluded folders, as git pathspecs."""
        pre = self.prefix + "/" if self.prefix else ""
        specs = [self.prefix or "."]
        specs += [f":(exclude,top){pre}{ex.strip('/')}" for ex in self.exclude if ex.strip("/")]
        return specs

    def rel(self, path: str) -> str | None:
        """A work-tree path relative to the workspace (None when outside it)."""
        if not self.prefix:
            return path
        head = self.prefix + "/"
        return path[len(head) :] if path.startswith(head) else None

    def cleanup(self) -> None:
        """Delete the private git dir."""
        shutil.rmtree(self.git_dir, ignore_errors=True)

    def __enter__(self) -> Baseline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


# -- the user's repository ------------------------------------------------------------------


def find_repo_dirs(path: Path) -> tuple[Path, Path] | None:
    """(work tree top-level, git dir) of the repository containing ``path``, or None.

    Found by reading ``.git`` entries upwards; no git command runs in the user's repository.
    """
    for folder in [path, *path.parents]:
        git_dir = dot_git_dir(folder)
        if git_dir is not None and (objects_dir(git_dir)).is_dir():
            return folder, git_dir
    return None


def _common_dir(git_dir: Path) -> Path:
    return objects_dir(git_dir).parent


# -- baseline -------------------------------------------------------------------------------


def capture_baseline(workspace: Path, *, exclude: tuple[str, ...] = DEFAULT_EXCLUDE) -> Baseline:
    """Snapshot ``workspace`` (see the module docstring) into a new private git dir.

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
        try:
            snap = take(b)
        except GitFailed:  # the copied index could not be used (newer format): start empty
            b.git.index.unlink(missing_ok=True)
            snap = take(b)
        b.tree, b.raw, b.ignored_ref = snap.tree, snap.raw, dict(snap.ignored)
        b.unreadable_at_start = snap.unreadable
    except BaseException:
        shutil.rmtree(git_dir, ignore_errors=True)
        raise
    return b


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
    b = Baseline(workspace=workspace, work_tree=top, git_dir=git_dir, exclude=exclude,
                 prefix="" if top == workspace else workspace.relative_to(top).as_posix(),
                 repo_root=top if user_git is not None else None)  # fmt: skip
    if user_git is not None:
        add_alternate(pg, objects_dir(user_git))
        if copy_index(user_git / "index", pg.index):
            try:
                _clear_index_bits(pg)
                b.submodules = _submodules(pg, top)
            except GitFailed:
                pg.index.unlink(missing_ok=True)
    return b


def _clear_index_bits(pg: PrivateGit) -> None:
    """Drop the user's ``assume-unchanged`` / ``skip-worktree`` bits from the private index."""
    tagged = [(line[:1], line[2:]) for line in split_z(pg.out(["ls-files", "-v", "-z"]))]
    for flag, paths in (
        ("--no-assume-unchanged", [p for tag, p in tagged if tag.islower()]),
        ("--no-skip-worktree", [p for tag, p in tagged if tag in ("S", "s")]),
    ):  # one flag per call: git applies only the last flag given to every path
        for i in range(0, len(paths), 500):
            pg.run(["update-index", flag, "--", *paths[i : i + 500]], literal=True)


def _submodules(pg: PrivateGit, top: Path) -> list[Submodule]:
    out: list[Submodule] = []
    for line in split_z(pg.out(["ls-files", "-s", "-z"])):
        if not line.startswith(GITLINK + " "):
            continue
        path = line.split("\t", 1)[1]
        sub_git = dot_git_dir(top / path)
        if sub_git is None:
            continue  # not checked out: it stays a gitlink
        index = pg.git_dir / f"index-sub{len(out)}"
        add_alternate(pg, objects_dir(sub_git))
        copy_index(sub_git / "index", index)
        out.append(Submodule(path=path, index=index))
    return out


# -- one snapshot ---------------------------------------------------------------------------


def take(b: Baseline) -> Snapshot:
    """Snapshot the workspace as it is now (see the module docstring)."""
    pg = b.git
    specs = b.pathspecs
    _, err = pg.run(["add", "-A", "--ignore-errors", "--", *specs], ok=(0, 1))
    unreadable, nested = _add_problems(err)
    forced: set[str] = set()
    dropped: list[str] = []
    if b.raw:
        changes = _index_changes(pg, b.raw, specs)
        gitlinks = [c[3] for c in changes if c[1] == GITLINK and c[2] == "A"]
        nested += gitlinks
        _remove(pg, gitlinks)
        if any(c[3].rsplit("/", 1)[-1] == ".gitignore" for c in changes):
            dropped, forced = _freeze_rules(b, pg, changes, specs)
        if b.overlay:
            _apply_overlay(b, pg)
    raw = pg.write_tree()
    tree = _graft(b, pg, raw)
    ignored, truncated = _scan_ignored(b, pg, specs, dropped, forced)
    return Snapshot(tree=tree, raw=raw, ignored=ignored, nested=sorted(set(nested)),
                    unreadable=sorted(set(unreadable)), scan_truncated=truncated)  # fmt: skip


def _add_problems(stderr: bytes) -> tuple[list[str], list[str]]:
    """(unreadable files, nested repositories without a commit) from ``git add`` errors."""
    unreadable, nested = [], []
    for line in stderr.decode("utf-8", "surrogateescape").splitlines():
        if line.startswith("error: open(") and '"' in line:
            unreadable.append(line.split('"', 2)[1])
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
    return [(h[1:].split()[0], h.split()[1], h.split()[4], p) for h, p in _raw_records(out)]


def _raw_records(out: bytes) -> list[tuple[str, str]]:
    parts = split_z(out)
    return [(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]


def _remove(pg: PrivateGit, paths: list[str]) -> None:
    if paths:
        pg.run(["update-index", "--force-remove", "-z", "--stdin"], stdin=encode_paths(paths))


# -- ignore rules, frozen at the baseline ---------------------------------------------------


def _rules_dir(b: Baseline, pg: PrivateGit) -> Path:
    """A folder holding the baseline's ``.gitignore`` files (nothing else), made once."""
    if b.rules_dir is None:
        rules = b.git_dir / "rules"
        rules.mkdir()
        for line in split_z(pg.out(["ls-tree", "-r", "-z", "--full-tree", b.raw])):
            meta, path = line.split("\t", 1)
            if path.rsplit("/", 1)[-1] == ".gitignore" and meta.split()[1] == "blob":
                target = rules / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(pg.out(["cat-file", "blob", meta.split()[2]]))
        b.rules_dir = rules
    return b.rules_dir


def _baseline_ignored(b: Baseline, pg: PrivateGit, paths: list[str]) -> set[str]:
    """Which of ``paths`` the baseline's ignore rules ignore."""
    if not paths:
        return set()
    rules = _rules_dir(b, pg)
    out = pg.out(["check-ignore", "--no-index", "--stdin", "-z"], work_tree=rules, ok=(0, 1),
                 stdin=encode_paths(paths))  # fmt: skip
    return set(split_z(out))


def _freeze_rules(
    b: Baseline, pg: PrivateGit, changes: list[tuple[str, ...]], specs: list[str]
) -> tuple[list[str], set[str]]:
    """The agent changed a ``.gitignore``: undo its effect on the index. Returns the paths
    dropped (ignored at the baseline) and those forced in (ignored only by the new rules)."""
    added = [c[3] for c in changes if c[2] == "A" and c[1] != GITLINK]
    dropped = sorted(_baseline_ignored(b, pg, added))
    _remove(pg, dropped)
    entries = split_z(pg.out(["ls-files", "-o", "-i", "--exclude-standard", "--directory",
                              "-z", "--", *specs]))  # fmt: skip
    base = _baseline_ignored(b, pg, entries)
    forced: list[str] = []
    for entry in entries:
        if entry in base:
            continue
        if entry.endswith("/"):
            inner = split_z(pg.out(["ls-files", "-o", "-i", "--exclude-standard", "-z", "--",
                                    entry], literal=True))  # fmt: skip
            keep = _baseline_ignored(b, pg, inner)
            forced += [p for p in inner if p not in keep]
        else:
            forced.append(entry)
    if forced:
        pg.run(["add", "-f", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"],
               stdin=encode_paths(forced), literal=True, ok=(0, 1))  # fmt: skip
    return dropped, set(forced)


# -- what verify wrote ----------------------------------------------------------------------


def record_verify(b: Baseline, before: Snapshot, after: Snapshot) -> None:
    """Remember what a verify run changed (``before`` → ``after``), to subtract it later."""
    pg = b.git
    out = pg.out(["diff-tree", "-r", "-z", "--raw", "--no-renames", before.raw, after.raw])
    for head, path in _raw_records(out):
        old_mode, new_mode, old_id, new_id, status = head[1:].split()[:5]
        pre: Entry = None if status == "A" else (old_mode, old_id)
        post: Entry = None if status == "D" else (new_mode, new_id)
        if path in b.overlay:
            pre = b.overlay[path][0]
        b.overlay[path] = (pre, post)
    for path, fp in after.ignored.items():
        if before.ignored.get(path) != fp:
            b.ignored_ref[path] = fp


def _apply_overlay(b: Baseline, pg: PrivateGit) -> None:
    """Put back the pre-verify entry of every path verify wrote and the agent left alone."""
    paths = sorted(b.overlay)
    current: dict[str, Entry] = {}
    out = pg.out(["ls-files", "-s", "-z", "--", *paths], literal=True)
    for line in split_z(out):
        meta, path = line.split("\t", 1)
        mode, oid = meta.split()[:2]
        current[path] = (mode, oid)
    records = []
    for path in paths:
        pre, post = b.overlay[path]
        if current.get(path) != post or pre == post:
            continue
        if pre is None:
            records.append(f"0 {'0' * 40}\t{path}")
        else:
            records.append(f"{pre[0]} {pre[1]}\t{path}")
    if records:
        pg.run(["update-index", "-z", "--index-info"], stdin=encode_paths(records))


# -- submodules -----------------------------------------------------------------------------


def _graft(b: Baseline, pg: PrivateGit, raw: str) -> str:
    """``raw`` with each checked-out submodule's gitlink replaced by its working copy."""
    if not b.submodules:
        return raw
    graft = b.git_dir / "index-graft"
    graft.unlink(missing_ok=True)
    pg.run(["read-tree", raw], index=graft)
    for sm in b.submodules:
        where = b.work_tree / sm.path
        if dot_git_dir(where) is None:
            continue
        pg.run(["add", "-A", "--ignore-errors", "--", "."], index=sm.index, work_tree=where,
               ok=(0, 1))  # fmt: skip
        subtree = pg.write_tree(sm.index)
        _remove_from(pg, graft, sm.path)
        pg.run(["read-tree", f"--prefix={sm.path}/", subtree], index=graft)
    return pg.write_tree(graft)


def _remove_from(pg: PrivateGit, index: Path, path: str) -> None:
    pg.run(["update-index", "--force-remove", "-z", "--stdin"], index=index,
           stdin=encode_paths([path]))  # fmt: skip


# -- ignored files --------------------------------------------------------------------------


def _scan_ignored(
    b: Baseline, pg: PrivateGit, specs: list[str], dropped: list[str], forced: set[str]
) -> tuple[dict[str, Fingerprint], bool]:
    """Fingerprints of every file the baseline's rules ignore (at most MAX_IGNORED_SCAN)."""
    entries = split_z(pg.out(["ls-files", "-o", "-i", "--exclude-standard", "--directory",
                              "-z", "--", *specs]))  # fmt: skip
    found: dict[str, Fingerprint] = {}
    for entry in [*entries, *dropped]:
        if entry in forced:
            continue
        if len(found) >= MAX_IGNORED_SCAN:
            return found, True
        path = entry.rstrip("/")
        full = b.work_tree / path
        try:
            st = full.lstat()
        except OSError:
            continue
        if not full.is_dir() or full.is_symlink():
            found[path] = _fp(st)
            continue
        for root, dirs, files in os.walk(full):
            dirs.sort()
            rel_root = Path(root).relative_to(b.work_tree).as_posix()
            for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
                rel = f"{rel_root}/{name}"
                if rel in forced:
                    continue
                try:
                    found[rel] = _fp(os.lstat(os.path.join(root, name)))
                except OSError:
                    continue
                if len(found) >= MAX_IGNORED_SCAN:
                    return found, True
    return found, False


def _fp(st: os.stat_result) -> Fingerprint:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode)
