"""The change: what the agent did to the workspace, computed once from two snapshots.

A :class:`Change` is a value: the changed files, the line count, the trees it was taken
between, and what could not be part of it (ignored files the agent wrote, repositories it
created, unreadable files). The guards, the task's status, ``changed_files`` and the patch all
read the same value (see the snapshot model in docs/architecture.md).

:func:`patch_text` renders the change as ``git diff --binary --full-index`` that ``git apply``
reproduces in a copy of the workspace as it was at the baseline. A file whose content (before or
after) is larger than :data:`MAX_FILE_BYTES`, or the largest files when all of them together
exceed :data:`MAX_PATCH_BYTES`, is listed in :attr:`Patch.omitted` instead of being inlined.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentci.change.ignored import beyond_baseline_scan, gone_since_baseline
from agentci.change.privgit import encode_paths, split_z
from agentci.change.snapshot import Baseline, Snapshot
from agentci.change.submodules import damaged

MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_PATCH_BYTES = 50 * 1024 * 1024
_DIFF = ["--no-color", "--no-ext-diff", "--no-textconv", "--no-renames"]


@dataclass
class Change:
    """The agent's change at one snapshot (paths relative to the workspace)."""

    base: str
    tree: str
    files: list[str] = field(default_factory=list)
    lines: int = 0  # added + deleted; a binary file counts 1
    ignored_written: list[str] = field(default_factory=list)
    #: ignored files that were not there at the baseline, whoever wrote them (verify included)
    ignored_new: list[str] = field(default_factory=list)
    #: ignored files that were there at the baseline and are gone (never in the patch either)
    ignored_deleted: list[str] = field(default_factory=list)
    nested_repos: list[str] = field(default_factory=list)
    #: the user's nested repositories (submodules, clones) the run removed or damaged: path -> how
    nested_damaged: dict[str, str] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    ignored_scan_truncated: bool = False
    #: the object ids of each changed path, repository path -> (baseline's, this tree's): read
    #: with the file list, so the patch needs no second diff of the trees
    blobs: dict[str, tuple[str, str]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def empty(self) -> bool:
        """True when no file differs from the baseline."""
        return not self.files


@dataclass
class Patch:
    """A rendered patch and the files left out of it (``{"path", "bytes"}``)."""

    text: str
    omitted: list[dict[str, object]] = field(default_factory=list)


def change_of(b: Baseline, snap: Snapshot) -> Change:
    """The change from the baseline to ``snap``."""
    rel = [r for r in (b.rel(p) for p in snap.nested) if r is not None]
    unreadable = [r for r in (b.rel(p) for p in snap.unreadable) if r is not None]
    unknown = beyond_baseline_scan(b, snap.ignored)  # never the agent's: nobody knows
    written = sorted(r for p, fp in snap.ignored.items() if b.ignored_ref.get(p) != fp
                     and p not in unknown and (r := b.rel(p)) is not None)  # fmt: skip
    new = sorted(r for p in snap.ignored if p not in b.ignored_start and p not in unknown
                 and (r := b.rel(p)) is not None)  # fmt: skip
    gone = gone_since_baseline(b, snap.ignored, snap.scan_truncated)
    ignored_gone = [r for p in gone if (r := b.rel(p)) is not None]
    change = Change(base=b.tree, tree=snap.tree, ignored_written=written, ignored_new=new,
                    ignored_deleted=ignored_gone, nested_repos=rel,
                    nested_damaged={r: how for p, how in damaged(b).items()
                                    if (r := b.rel(p)) is not None},
                    unreadable=unreadable,
                    ignored_scan_truncated=snap.scan_truncated or b.ignored_truncated)  # fmt: skip
    if snap.tree == b.tree:
        return change
    out = b.git.out(["diff", "--raw", "--no-abbrev", "--numstat", "-z", *_DIFF, *_relative(b),
                     b.tree, snap.tree, "--", *b.pathspecs])  # fmt: skip
    files = []
    records = iter(split_z(out))
    pre = b.prefix + "/" if b.prefix else ""
    for record in records:
        if record.startswith(":"):  # --raw: ":old-mode new-mode old-id new-id status", path
            head = record[1:].split()
            change.blobs[pre + next(records, "")] = (head[2], head[3])
            continue
        parts = record.split("\t", 2)  # --numstat: "added deleted path"
        if len(parts) < 3:
            continue
        added, deleted, path = parts
        files.append(path)
        change.lines += 1 if "-" in (added, deleted) else int(added) + int(deleted)
    change.files = sorted(files)
    return change


def _relative(b: Baseline) -> list[str]:
    return [f"--relative={b.prefix}"] if b.prefix else []


def patch_text(
    b: Baseline,
    change: Change,
    *,
    max_file: int = MAX_FILE_BYTES,
    max_total: int = MAX_PATCH_BYTES,
) -> Patch:
    """The change as a patch (decoded with ``surrogateescape``), large files listed instead."""
    if change.empty:
        return Patch("")
    pg = b.git
    ids = change.blobs or _blob_ids(b, change)
    sizes = _sizes(b, {oid for pair in ids.values() for oid in pair})
    size = {path: max(sizes.get(o, 0), sizes.get(n, 0)) for path, (o, n) in ids.items()}
    omit = {p for p, n in size.items() if n > max_file}
    total = sum(n for p, n in size.items() if p not in omit)
    for path in sorted(size, key=lambda p: -size[p]):
        if total <= max_total:
            break
        if path not in omit:
            omit.add(path)
            total -= size[path]
    excludes = [f":(top,exclude,literal){p}" for p in sorted(omit)]
    text = ""
    if len(omit) < len(size):
        args = ["diff", "--binary", "--full-index", "--src-prefix=a/", "--dst-prefix=b/", *_DIFF,
                *_relative(b), b.tree, change.tree, "--", *b.pathspecs, *excludes]  # fmt: skip
        text = pg.out(args).decode("utf-8", "surrogateescape")
    omitted = [{"path": b.rel(p) or p, "bytes": size[p]} for p in sorted(omit)]
    return Patch(text, omitted)


def _blob_ids(b: Baseline, change: Change) -> dict[str, tuple[str, str]]:
    """(baseline's id, the change's id) of each path the change holds (repository paths)."""
    raw = b.git.out(["diff-tree", "-r", "-z", "--raw", "--no-renames", b.tree, change.tree, "--",
                     *b.pathspecs])  # fmt: skip
    parts = split_z(raw)
    ids: dict[str, tuple[str, str]] = {}
    for i in range(0, len(parts) - 1, 2):
        head = parts[i][1:].split()
        ids[parts[i + 1]] = (head[2], head[3])
    return ids


def _sizes(b: Baseline, ids: set[str]) -> dict[str, int]:
    real = sorted(i for i in ids if i.strip("0"))
    if not real:
        return {}
    out = b.git.out(["cat-file", "--batch-check=%(objectname) %(objectsize)"],
                    stdin=encode_paths(real).replace(b"\0", b"\n"))  # fmt: skip
    sizes = {}
    for line in out.decode().splitlines():
        oid, _, n = line.partition(" ")
        if n.isdigit():
            sizes[oid] = int(n)
    return sizes
