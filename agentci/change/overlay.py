"""What a verify command writes is never the agent's change, nor what the next verify sees.

:func:`restore_verify_writes` puts every file a verify run wrote that the patch is made of
(tracked, or untracked and not ignored) back as it was before that run: content, mode and
existence, so the workspace the agent and the next verify run see is always the baseline plus
the agent's own changes (a test module that rewrites the code under test as it is imported
cannot leave its fix on disk, out of the patch, for the run that decides). A git repository
the run made (a folder holding a ``.git``: one untracked entry to the snapshot, whose files it
never stores) is deleted whole by :func:`drop_verify_repos`; in a folder that was there before
(``git init`` of a folder holding files), only the ``.git`` the run made is, its files kept
(:func:`folders_of`, taken before verify runs, says which folders had a ``.git``). Ignored
files verify wrote (caches, reports) stay as they are; they are set aside while the next
attempt's verify runs (:mod:`agentci.verify.set_aside`).

:func:`record_verify` remembers what a verify run changed that could not be put back (and
verify's ignored writes); :func:`apply_overlay` puts those paths back to their pre-verify
content in later snapshots, unless the agent changed them again.
"""

from __future__ import annotations

import os
import secrets
import shutil
from dataclasses import dataclass

from agentci import workspace_io
from agentci.change.baseline import Baseline, Entry, Snapshot
from agentci.change.privgit import GitFailed, PrivateGit, encode_paths, raw_records, split_z

#: The entries :func:`restore_verify_writes` puts back: files and links (not gitlinks).
FILE_MODES = ("100644", "100755", "120000")


def _verify_changes(b: Baseline, before: Snapshot, after: Snapshot) -> list[tuple[str, str]]:
    """(raw diff-tree head, repository path) of each path a verify run changed."""
    if before.raw == after.raw:  # verify wrote nothing the snapshot stores
        return []
    out = b.git.out(["diff-tree", "-r", "-z", "--raw", "--no-renames", before.raw, after.raw])
    return list(raw_records(out))


def restore_verify_writes(b: Baseline, before: Snapshot, after: Snapshot) -> list[str]:
    """Put every file verify changed (``before`` → ``after``) that is not ignored back as it was
    in ``before``: written from the private git's copy (a link as a link), deleted when verify
    made it (the folders on its way stay: one may be the user's, empty at the baseline, which
    git does not record). Returns the workspace-relative paths put back, sorted; one that cannot
    be (a folder in the way, a link on the way) is left to :func:`record_verify`."""
    done: list[str] = []
    for head, path in _verify_changes(b, before, after):
        old_mode, new_mode, _, _, status = head[1:].split()[:5]
        rel = b.rel(path)
        if rel is None or old_mode not in (*FILE_MODES, "000000"):
            continue
        if new_mode not in (*FILE_MODES, "000000"):
            continue
        try:
            if status == "A":
                workspace_io.unlink(b.workspace, rel)
            else:
                b.git.restore(before.raw, path)
        except (workspace_io.UnsafePath, GitFailed, OSError):
            continue
        done.append(rel)
    return sorted(done)


@dataclass
class Folders:
    """The folders of a snapshot (workspace-relative, ``""`` the workspace itself) and those
    that held a ``.git`` just before verify ran (:func:`folders_of`)."""

    paths: list[str]
    with_git: set[str]


def folders_of(b: Baseline, snap: Snapshot) -> Folders:
    """The folders of ``snap``'s tree inside the workspace, and which of them hold a ``.git``
    now: taken before verify runs, so that :func:`drop_verify_repos` can tell a ``.git`` a run
    makes in a folder git walks into (it holds files of the snapshot) and never reports."""
    out = b.git.out(["ls-tree", "-r", "-d", "-z", "--name-only", snap.tree])
    paths = ["", *(rel for rel in map(b.rel, split_z(out)) if rel)]
    return Folders(paths, {p for p in paths if _has_git(b, p)})


def _has_git(b: Baseline, rel: str) -> bool:
    return os.path.lexists(b.workspace / rel / ".git")


def _held_ignored(before: Snapshot, path: str) -> bool:
    """True when the folder ``path`` (a work-tree path) may have held files before verify ran:
    ignored files were found in it, or the ignored scan was cut short (then nobody knows)."""
    head = path + "/"
    return before.scan_truncated or any(p.startswith(head) for p in before.ignored)


def drop_verify_repos(
    b: Baseline, before: Snapshot, after: Snapshot, folders: Folders | None = None
) -> list[str]:
    """Delete each git repository a verify run made. A folder holding a ``.git`` that is in
    ``after``'s repositories and in neither ``before``'s nor the baseline's is deleted whole
    when it was not there before (``lib/``); when it was (one of ``folders``, or it held
    ignored files), only its ``.git`` is (``lib/.git``): its other files are then the next
    snapshot's, put back or subtracted like any other write of verify. So is a ``.git`` that
    appeared in one of ``folders`` (git walks into those and never reports one). Each is moved
    into the workspace's excluded ``.agentci`` folder, then deleted there. Returns the
    workspace-relative paths deleted (``lib/``, ``lib/.git``), sorted."""
    known = {*before.repos, *before.nested, *b.nested_at_start}
    had = set(folders.paths) if folders is not None else set()
    targets: dict[str, str] = {}  # workspace-relative path to delete -> the name reported
    for path in after.repos:
        rel = b.rel(path)
        if path in known or not rel:
            continue
        if rel in had or _held_ignored(before, path):
            targets[_dot_git(rel)] = _dot_git(rel)
        else:
            targets[rel] = f"{rel}/"
    if folders is not None:
        for rel in folders.paths:
            if rel not in folders.with_git and _has_git(b, rel):
                targets[_dot_git(rel)] = _dot_git(rel)
    if not targets or not b.exclude:
        return []
    bin_dir = f"{b.exclude[0].strip('/')}/verify-repos-{secrets.token_hex(4)}"
    done: list[str] = []
    for rel, name in targets.items():
        try:
            workspace_io.move(b.workspace, rel, b.workspace, f"{bin_dir}/{len(done)}")
        except (workspace_io.UnsafePath, OSError):
            continue
        done.append(name)
    shutil.rmtree(b.workspace / bin_dir, ignore_errors=True)
    return sorted(done)


def _dot_git(folder: str) -> str:
    """The ``.git`` of a workspace folder (``""``: the workspace's own)."""
    return f"{folder}/.git" if folder else ".git"


def record_verify(
    b: Baseline, before: Snapshot, after: Snapshot, restored: list[str] | tuple[str, ...] = ()
) -> None:
    """Remember what a verify run changed (``before`` → ``after``), to subtract it later; the
    ``restored`` paths (workspace-relative) are on disk as in ``before`` again: not recorded."""
    skip = set(restored)
    for head, path in _verify_changes(b, before, after):
        if b.rel(path) in skip:
            continue
        old_mode, new_mode, old_id, new_id, status = head[1:].split()[:5]
        pre: Entry = None if status == "A" else (old_mode, old_id)
        post: Entry = None if status == "D" else (new_mode, new_id)
        if path in b.overlay:
            pre = b.overlay[path][0]
        b.overlay[path] = (pre, post)
    for path, fp in after.ignored.items():
        old = before.ignored.get(path)
        # the files agentci set aside and moved back have a new ctime, nothing else new
        if old != fp and (old is None or old[:4] != fp[:4]):
            b.ignored_ref[path] = fp


def apply_overlay(b: Baseline, pg: PrivateGit) -> None:
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
