"""What a verify command writes is subtracted from the change.

:func:`record_verify` remembers the paths a verify run changed; :func:`apply_overlay` puts
them back to their pre-verify content in later snapshots, unless the agent changed them again.
"""

from __future__ import annotations

from agentci.change.baseline import Baseline, Entry, Snapshot
from agentci.change.privgit import PrivateGit, encode_paths, raw_records, split_z


def record_verify(b: Baseline, before: Snapshot, after: Snapshot) -> None:
    """Remember what a verify run changed (``before`` → ``after``), to subtract it later."""
    pg = b.git
    out = pg.out(["diff-tree", "-r", "-z", "--raw", "--no-renames", before.raw, after.raw])
    for head, path in raw_records(out):
        old_mode, new_mode, old_id, new_id, status = head[1:].split()[:5]
        pre: Entry = None if status == "A" else (old_mode, old_id)
        post: Entry = None if status == "D" else (new_mode, new_id)
        if path in b.overlay:
            pre = b.overlay[path][0]
        b.overlay[path] = (pre, post)
    for path, fp in after.ignored.items():
        if before.ignored.get(path) != fp:
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
