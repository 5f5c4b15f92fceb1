"""Ignored files under ``guards.allowed_paths``: kept at the baseline, put back after the agent.

A patch never shows files the baseline's ignore rules ignore (``.env``, ``.venv/``), so the
path guards, which revert what the patch shows, never saw them: in pre-commit mode (whose
``allowed_paths`` are the staged files) the agent could overwrite the developer's ignored
``.env`` or plant a ``.pth`` in ``.venv`` and nothing was undone. So when a task has
``allowed_paths``:

* at the baseline (and whenever ``guards.weakened_tests`` is on or ``report``: the verdict is
  then reached with the baseline's copy of each ignored file the agent changed,
  :mod:`agentci.verify.set_aside`), :func:`keep_ignored` copies each ignored regular file (at most
  :data:`MAX_FILE_BYTES` each, :data:`MAX_TOTAL_BYTES` in all) into one file of the private git
  dir, read through :mod:`agentci.workspace_io`;
* after the agent, :func:`restore_ignored` puts back every ignored file outside
  ``allowed_paths`` that changed or went away, and deletes every ignored file the agent added, all beneath
  the workspace without following a link. A changed file that was too large to keep is named
  as not restored; a deleted one is brought back when it was kept. A file past the place where
  the baseline's ignored scan was cut short (:func:`~agentci.change.ignored.scan_limit`) is
  never deleted: nothing says the agent made it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pathspec

from agentci import workspace_io
from agentci.change.baseline import Baseline, Fingerprint
from agentci.change.ignored import beyond_baseline_scan, fingerprint

#: Ignored files larger than this are fingerprinted only (a change is reported, not undone).
MAX_FILE_BYTES = 4 << 20
#: Bytes of ignored files kept at most, per task.
MAX_TOTAL_BYTES = 64 << 20


def _kept_file(b: Baseline) -> Path:
    return b.git_dir / "kept.bin"


def keep_ignored(b: Baseline) -> None:
    """Copy the baseline's ignored files (see the module docstring) into the private git dir.

    Each file is read beneath one descriptor of the workspace (:mod:`agentci.workspace_io`: no
    link is followed, regular files only) and appended to one store file in agentci's own
    temporary folder (``kept.bin``; :attr:`Baseline.kept_at` says where each copy is): a
    ``.venv`` of thousands of files costs one open and read each, not one file made each."""
    total = 0
    root = os.open(b.workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with open(_kept_file(b), "ab") as store:
            for path, (size, _, _, mode, _) in b.ignored_ref.items():  # the scan's order
                rel = b.rel(path)
                if rel is None or not stat.S_ISREG(mode) or size > MAX_FILE_BYTES:
                    continue
                if total + size > MAX_TOTAL_BYTES:
                    break
                with contextlib.suppress(workspace_io.UnsafePath, OSError):
                    data = workspace_io.read_bytes(root, rel, MAX_FILE_BYTES, hardlinks=True)
                    b.kept_at[rel] = (store.tell(), len(data))
                    store.write(data)
                    b.kept[rel] = stat.S_IMODE(mode)
                    total += len(data)
    finally:
        os.close(root)


def read_kept(b: Baseline, rel: str) -> bytes:
    """The baseline's copy of a kept ignored file (``rel`` in ``b.kept``)."""
    offset, length = b.kept_at[rel]
    with open(_kept_file(b), "rb") as store:
        store.seek(offset)
        return store.read(length)


def _fingerprint(b: Baseline, rel: str) -> Fingerprint | None:
    try:
        st = os.lstat(b.workspace / rel)
    except OSError:
        return None
    return fingerprint(st)


def restore_ignored(
    b: Baseline, allowed: pathspec.PathSpec, written: list[str], deleted: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    """Undo the agent's writes to ignored files outside ``allowed`` (``written``: the ignored
    files the last snapshot saw new or changed, ``deleted``: those it saw gone,
    workspace-relative; kept files that are gone count too). Returns (the offending files,
    those put back): an offending file not put back had no copy kept (too large) or lies past
    where the baseline's scan stopped."""
    ref = {rel: path for path in b.ignored_ref if (rel := b.rel(path)) is not None}
    gone = [p for p in b.kept if p in ref and _fingerprint(b, p) is None]
    offending = sorted({p for p in [*written, *deleted, *gone] if not allowed.match_file(p)})
    pre = b.prefix + "/" if b.prefix else ""
    unknown = beyond_baseline_scan(b, [pre + p for p in offending if p not in ref])
    done: list[str] = []
    for rel in offending:
        try:
            if pre + rel in unknown:  # past where the baseline's scan stopped: maybe the user's
                continue
            if rel not in ref:  # new: the agent made it
                workspace_io.unlink(b.workspace, rel)
            elif rel in b.kept:
                data = read_kept(b, rel)
                workspace_io.write_bytes(b.workspace, rel, data, b.kept[rel])
                now = _fingerprint(b, rel)
                if now is not None:  # the baseline's content again: not a change any more
                    b.ignored_ref[ref[rel]] = now
            else:
                continue  # too large to keep: reported, not undone
        except (workspace_io.UnsafePath, OSError):
            continue
        done.append(rel)
    return [p for p in offending if pre + p not in unknown], done
