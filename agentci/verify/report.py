"""Where verify's JUnit report is written, and how the host reads it back as data.

The report is written by the verify command, which runs tests the agent may have written: to the
host it is attacker data like every other byte of the workspace. So:

* ``runner: pytest`` — the report goes to agentci's temporary folder (writable in the sandbox).
* ``verify.junit: PATH`` — the command writes PATH (relative to the workspace). When PATH's
  folder is read-only in the sandbox (``.agentci/verify.xml``: ``.agentci`` is protected), a
  private, empty, writable folder of agentci's (a temp folder of its own, never one the
  sandbox can write, so a run cannot swap it for a link) is mounted over the deepest existing
  folder on the way, for this run only, and the report is read from there: the workspace
  never changes and the command's other files in that folder are hidden from it. Otherwise the command writes
  into the workspace, and agentci removes the report afterwards (or restores the file that was
  there before), so it never reaches the patch.

Either way the host reads the report through :mod:`agentci.workspace_io`: beneath its folder,
no link followed, regular files only, at most :data:`REPORT_CAP` bytes. A report that is a link
(``→ /proc/self/environ``), a FIFO or too large is an unreadable report, never followed; and
nothing read from a link is ever written back.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agentci import workspace_io
from agentci.policy.paths import is_below
from agentci.recipe.verify_config import Verify
from agentci.tempdirs import make_temp_dir

if TYPE_CHECKING:
    from agentci.policy.sandbox import Sandbox

#: The largest report the host reads (bytes).
REPORT_CAP = 64 * 1024 * 1024


class ReportUnreadable(Exception):
    """The report is missing (:attr:`missing`) or cannot be read safely; the message says why."""

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


@dataclass
class ReportPlace:
    """One verify run's report: ``rel`` below the folder ``root``, as the host reads it."""

    root: Path
    rel: str
    shown: str  # the path named in messages (``verify.junit``, or the temporary file)
    in_workspace: bool = False  # written into the workspace: removed or restored afterwards
    binds: tuple[tuple[Path, Path], ...] = ()  # (private folder, workspace folder) for bwrap
    private: Path | None = None  # agentci's own folder, removed afterwards
    saved: bytes | None = field(default=None, repr=False)  # the file the report replaces

    @property
    def command_path(self) -> Path:
        """The report's host path (``runner: pytest`` passes it to ``--junitxml``)."""
        return self.root / self.rel

    def prepare(self) -> None:
        """Before the run: remember a file already at the path, then remove it (a link is
        removed itself, never followed)."""
        if self.in_workspace and workspace_io.kind(self.root, self.rel) == "file":
            with contextlib.suppress(workspace_io.UnsafePath):
                self.saved = workspace_io.read_bytes(self.root, self.rel, REPORT_CAP)
        with contextlib.suppress(workspace_io.UnsafePath, OSError):
            workspace_io.unlink(self.root, self.rel)

    def read(self) -> bytes:
        """The report's bytes; :class:`ReportUnreadable` when missing, a link, not a regular
        file or too large."""
        try:
            return workspace_io.read_bytes(self.root, self.rel, REPORT_CAP)
        except workspace_io.UnsafePath as err:
            raise ReportUnreadable(str(err), missing=err.missing) from None
        except OSError as err:
            raise ReportUnreadable(f"cannot open: {err.strerror}") from None

    def finish(self) -> None:
        """After the run: leave the workspace as it was (the old file back, or no report)."""
        if self.private is not None:
            shutil.rmtree(self.private, ignore_errors=True)  # never follows a link inside
        if not self.in_workspace:
            return
        with contextlib.suppress(workspace_io.UnsafePath, OSError):
            if self.saved is not None:
                workspace_io.write_bytes(self.root, self.rel, self.saved)  # replaces a link
            elif workspace_io.kind(self.root, self.rel) in ("file", "link", "other"):
                workspace_io.unlink(self.root, self.rel)


def report_place(
    verify: Verify, *, workspace: Path, tmp_dir: Path, label: str, sandbox: Sandbox | None
) -> ReportPlace | None:
    """Where this run's report goes (None: the recipe asks for none)."""
    if verify.runner == "pytest":
        name = f"verify-{label}.xml"
        return ReportPlace(tmp_dir, name, shown=str(tmp_dir / name))
    if not verify.junit:
        return None
    parts = [p for p in verify.junit.split("/") if p not in ("", ".")]
    ws = Path(workspace)
    outside = ".." in parts or verify.junit.startswith("/")  # refused when read (UnsafePath)
    if sandbox is None or outside:
        rel = verify.junit if outside else "/".join(parts)
        return ReportPlace(ws, rel, shown=verify.junit, in_workspace=True)
    depth = 0  # the deepest existing folder on the way, reached without links
    while depth < len(parts) - 1 and workspace_io.kind(ws, "/".join(parts[: depth + 1])) == "dir":
        depth += 1
    folder = sandbox.workspace.joinpath(*parts[:depth])
    if not any(is_below(folder, ro) for ro in sandbox.readonly):
        return ReportPlace(ws, "/".join(parts), shown=verify.junit, in_workspace=True)
    # a new temp folder of agentci's each run, not in tmp_dir: the sandbox lets a run write
    # tmp_dir, where it could swap the folder (or, for a later run, a name known in advance)
    # for a link to a host folder, which agentci would then bind or read the report through
    private = make_temp_dir("report")
    private.joinpath(*parts[depth:-1]).mkdir(parents=True, exist_ok=True)
    return ReportPlace(
        private,
        "/".join(parts[depth:]),
        shown=verify.junit,
        binds=((private, folder),),
        private=private,
    )
