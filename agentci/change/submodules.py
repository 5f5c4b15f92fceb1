"""Submodules: a checked-out submodule's files are snapshotted as files.

Its gitlink is replaced by the tree of its working copy (:func:`graft`), so edits inside it
are in the change. A git repository the user already has inside the workspace (a plain clone
in ``lib/`` or ``vendor/``, not registered as a submodule) is one too, once the first snapshot
has found it (:func:`adopt_nested`): the guards see and revert writes there, and changed_files
and patch.diff name them.

Their object stores are borrowed (alternates) only while the baseline is taken
(:func:`own_objects` then copies what the snapshots need); one the agent removes or damages is
still snapshotted as files and is reported (:func:`damaged`).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from agentci.change.baseline import Baseline, Submodule
from agentci.change.privgit import (
    GITLINK,
    PrivateGit,
    add_alternate,
    copy_index,
    encode_paths,
    split_z,
)
from agentci.change.repo_dirs import dot_git_dir, head_commit, objects_dir
from agentci.gitenv import run_git


def find_submodules(pg: PrivateGit, top: Path, listing: list[str] | None = None) -> list[Submodule]:
    """The checked-out submodules in the private index, each with its own copied index
    (``listing``: the index's ``git ls-files -s -v -z`` when the caller has it)."""
    out: list[Submodule] = []
    if listing is None:
        listing = split_z(pg.out(["ls-files", "-s", "-v", "-z"]))
    for line in listing:
        if not line[2:].startswith(GITLINK + " "):
            continue
        path = line.split("\t", 1)[1]
        sub_git = dot_git_dir(top / path)
        if sub_git is None:
            continue  # not checked out: it stays a gitlink
        index = pg.git_dir / f"index-sub{len(out)}"
        add_alternate(pg, objects_dir(sub_git))
        copy_index(pg, sub_git / "index", index, top / path)
        out.append(Submodule(path=path, index=index, head=head_commit(top / path)))
    return out


def adopt_nested(b: Baseline, pg: PrivateGit) -> bool:
    """Treat the checked-out repositories of the first snapshot (registered submodules and the
    user's own nested clones, both gitlinks in the private index) as submodules. True when
    that adds any: the first snapshot must then be taken again to hold their files."""
    found = find_submodules(pg, b.work_tree)
    if {sm.path for sm in found} <= {sm.path for sm in b.submodules}:
        return False
    b.submodules = found
    return True


def own_objects(b: Baseline, pg: PrivateGit, user_objects: Path | None) -> None:
    """Copy into the private object store every object of the submodules' snapshotted files
    and trees, then stop borrowing their object stores: the snapshots never depend on objects
    the agent can delete (``rm -rf lib/.git``, ``git gc --prune=now`` in the clone). Only
    ``user_objects`` (the user's own repository's store) stays an alternate."""
    if not b.submodules:
        return
    alt = pg.git_dir / "objects" / "info" / "alternates"
    trees = [pg.write_tree(sm.index) for sm in b.submodules]
    listing = pg.out(["rev-list", "--objects", *trees])
    pack = pg.git_dir / "objects" / "pack"
    pack.mkdir(parents=True, exist_ok=True)
    pg.run(["pack-objects", "-q", "--window=0", str(pack / "pack")], stdin=listing)
    keep = [os.fsencode(user_objects)] if user_objects is not None else []
    lines = (
        [line for line in alt.read_bytes().splitlines() if line in keep] if alt.is_file() else []
    )
    alt.write_bytes(b"".join(line + b"\n" for line in lines))


def damaged(b: Baseline) -> dict[str, str]:
    """The submodules and nested clones of the baseline that the run removed or damaged
    (work-tree path -> what happened): their ``.git`` is gone, or the commit they had checked
    out no longer exists in them (pruned). Their files are still snapshotted as files."""
    out: dict[str, str] = {}
    for sm in b.submodules:
        where = b.work_tree / sm.path
        sub_git = dot_git_dir(where)
        if sub_git is None or not objects_dir(sub_git).is_dir():
            out[sm.path] = "its .git is gone"
            continue
        if sm.head is None:
            continue
        try:
            found = run_git(["cat-file", "-e", f"{sm.head}^{{commit}}"], cwd=where, repo=sub_git,
                            timeout=30).returncode == 0  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            found = False
        if not found:
            out[sm.path] = f"the commit it had checked out, {sm.head[:12]}, no longer exists in it"
    return out


def graft(b: Baseline, pg: PrivateGit, raw: str) -> str:
    """``raw`` with each checked-out submodule's gitlink replaced by its working copy."""
    if not b.submodules:
        return raw
    graft = b.git_dir / "index-graft"
    graft.unlink(missing_ok=True)
    pg.run(["read-tree", raw], index=graft)
    for sm in b.submodules:
        where = b.work_tree / sm.path
        if where.is_symlink() or not where.is_dir():
            continue  # gone: the raw tree no longer holds it either
        # its files, whether or not its .git is still there (the private git dir stores them)
        pg.run(["add", "-A", "--ignore-errors", "--", "."], index=sm.index, work_tree=where,
               ok=(0, 1))  # fmt: skip
        subtree = pg.write_tree(sm.index)
        _remove_from(pg, graft, sm.path)
        pg.run(["read-tree", f"--prefix={sm.path}/", subtree], index=graft)
    return pg.write_tree(graft)


def _remove_from(pg: PrivateGit, index: Path, path: str) -> None:
    """Remove ``path`` and anything below it (files an index may hold there) from ``index``."""
    below = [p for p in split_z(pg.out(["ls-files", "-z", "--", f"{path}/"], index=index,
                                       literal=True)) if p.startswith(f"{path}/")]  # fmt: skip
    pg.run(["update-index", "--force-remove", "-z", "--stdin"], index=index,
           stdin=encode_paths([path, *below]))  # fmt: skip
