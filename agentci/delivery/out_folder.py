"""The run's output folder as the Action's host-side steps see it: data in a folder the pull
request may have planted, read through :mod:`agentci.workspace_io` only.

The workflow's ``out-dir`` is trusted, the folders on it are not: the workspace is the pull
request's checkout, and it can commit ``.agentci`` as a link to a folder of its own (or to a
host folder) with a forged result.json, a patch agentci never made and a summary.md that is a
link to ``/proc/self/environ``. So the Action's steps (outputs, delivery, the artifact upload)
take the folder only when

* no component of its path is a symbolic link: below the workspace (resolved once, trusted)
  for an ``out-dir`` inside it, from ``/`` for one outside it;
* it carries agentci's output-folder marker (:data:`agentci.reports.outdir.MARKER`),

and read its files beneath it without following any link, regular files only, sizes capped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from agentci.outcome import EXIT_CODES, SIGNAL_EXIT_CODES, Status
from agentci.reports.outdir import MARKER
from agentci.workspace_io import UnsafePath, kind, read_bytes

#: agentci's exit codes that say it wrote its outputs: every one but invalid_input (it may have
#: stopped before the output folder was made) and internal_error.
WROTE_OUTPUTS = frozenset(
    {code for status, code in EXIT_CODES.items()
     if status not in (Status.invalid_input, Status.internal_error)}
    | set(SIGNAL_EXIT_CODES.values())
)  # fmt: skip


def wrote_outputs(code: str) -> bool:
    """Whether agentci's exit code ``code`` (as the run step recorded it) says it wrote its
    outputs; False when it did not run."""
    return code.strip().isdigit() and int(code) in WROTE_OUTPUTS


class UnsafeOutFolder(Exception):
    """The output folder is not one agentci's host-side steps read; the message says why."""


@dataclass(frozen=True)
class OutFolder:
    """An output folder checked by :func:`out_folder`: ``rel`` below the trusted ``root``."""

    root: str
    rel: str
    shown: str  # the folder as the workflow named it, for messages

    def read(self, name: str, limit: int, *, cut: bool = False) -> bytes | None:
        """The bytes of the regular file ``name`` in the folder (at most ``limit``; with ``cut``
        a longer file gives its first ``limit + 1`` bytes), or None when it is missing, a link,
        on a path through a link, not a regular file or too large."""
        try:
            return read_bytes(self.root, f"{self.rel}/{name}", limit, cut=cut)
        except (UnsafePath, OSError):
            return None

    def has_data(self, name: str) -> bool:
        """Whether ``name`` is a regular file of the folder that is not empty."""
        return bool(self.read(name, 0, cut=True))


def _root_and_rel(workspace: str | os.PathLike[str], out: str) -> tuple[str, str]:
    ws = os.path.realpath(workspace)  # the workspace's own path is trusted: resolved once
    target = os.path.normpath(os.path.join(ws, out))
    if target == ws:
        raise UnsafeOutFolder(f"{out} is the workspace itself, not an output folder")
    if target.startswith(ws.rstrip("/") + "/"):
        return ws, os.path.relpath(target, ws)
    return "/", target.lstrip("/")


def out_folder(workspace: str | os.PathLike[str], out: str) -> OutFolder:
    """The output folder ``out`` (relative to ``workspace``, or absolute) when agentci's
    steps may read it; :class:`UnsafeOutFolder` says why not."""
    root, rel = _root_and_rel(workspace, out)
    try:
        what = kind(root, rel)
        marked = kind(root, f"{rel}/{MARKER}") == "file"
    except UnsafePath as err:
        raise UnsafeOutFolder(f"{out}: {err}") from None
    if what == "link":
        raise UnsafeOutFolder(f"{out} is a symbolic link; agentci does not follow it")
    if what == "missing":
        raise UnsafeOutFolder(f"{out} is missing, or a folder on its path is a symbolic link")
    if what != "dir":
        raise UnsafeOutFolder(f"{out} is not a folder")
    if not marked:
        raise UnsafeOutFolder(f"{out} is not an agentci output folder (it has no {MARKER})")
    return OutFolder(root, rel, out)
