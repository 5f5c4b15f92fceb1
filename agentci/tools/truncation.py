"""Capping tool output before it enters history (docs/architecture.md).

Output is cut in the middle: the head (what a command started with) and the tail (where
errors and summaries end up) are kept, and a note says how much was dropped, so the model
knows it did not see everything. With a :class:`SavedOutputs` (every task has one), the
whole output is saved first, redacted, and the note names the file the model can read it from.
"""

from __future__ import annotations

import contextlib
import os
import re
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agentci import workspace_io
from agentci.childproc import omitted_note
from agentci.errors import ToolFailure
from agentci.reports.redact import Redactor

if TYPE_CHECKING:
    from agentci.recipe.schema import Context
    from agentci.reports.redact import Redactor


def truncate_middle(text: str, cap: int) -> str:
    """Return ``text`` unchanged if it fits in ``cap`` characters, else head + note + tail."""
    if cap <= 0 or len(text) <= cap:
        return text
    half = cap // 2
    head = text[:half]
    tail = text[len(text) - (cap - half) :]
    return head + omitted_note(len(text) - len(head) - len(tail)) + tail


#: How the model names a saved output: ``read_file`` reads ``@tool-outputs/<name>``.
SAVED_PREFIX = "@tool-outputs/"
#: The folder of saved outputs, in the task's output folder.
SAVED_FOLDER = "tool-outputs"
#: Output a command may print that is kept (and saved) whole; beyond it, head and tail.
MAX_SAVED_BYTES = 16 << 20

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class SavedOutputs:
    """Tool outputs over the cap, saved whole (redacted) in ``tool-outputs/`` of the task's
    output folder, for the model to read again with ``read_file``.

    :meth:`cap` gives what the model sees — the head and tail of the output around a note
    with the saved file's name (``@tool-outputs/0001-run_shell_command.txt``) — and that name.
    The files are written and read through a descriptor of the folder opened once (never
    following a symbolic link), read through :mod:`agentci.workspace_io` (regular files only: a
    FIFO swapped in cannot hang ``read_file``), so nothing planted can redirect them, and
    ``read_file`` reaches only the files saved by this task. Writing them is agentci's alone:
    the file tools refuse ``@tool-outputs/`` paths (see docs/context.md).
    """

    def __init__(
        self,
        folder: Path,
        redact: Callable[[str], str],
        cap_chars: int = 30_000,
        keep_bytes: int = MAX_SAVED_BYTES,
    ) -> None:
        self.folder = folder
        self.redact = redact
        self.cap_chars = cap_chars
        self.keep_bytes = keep_bytes
        self.names: list[str] = []
        self._count = 0
        self._dir_fd: int | None = None

    @classmethod
    def for_task(cls, out_dir: Path, config: Context, redactor: Redactor | None) -> SavedOutputs:
        """The saved outputs of a task whose output folder is ``out_dir``, capped as the
        recipe's ``context`` says (the redactor: the run's, else one from the environment)."""
        redact = (redactor or Redactor.from_environ()).redact
        return cls(out_dir / SAVED_FOLDER, redact, config.tool_output_cap_chars)

    def _dir(self) -> int:
        if self._dir_fd is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            self._dir_fd = fd
            weakref.finalize(self, os.close, fd)
        return self._dir_fd

    def save(self, text: str, tool: str, *, redacted: bool = False) -> str | None:
        """Save ``text`` (redacted here unless ``redacted`` says the caller did it); its name for
        the model, or None when it cannot be written."""
        self._count += 1
        name = f"{self._count:04d}-{_UNSAFE.sub('_', tool)[:40]}.txt"
        data = (text if redacted else self.redact(text)).encode("utf-8", errors="replace")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(name, flags, 0o644, dir_fd=self._dir())
        except OSError:
            return None  # a full disk must not fail the tool call: the model sees less
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        except OSError:
            with contextlib.suppress(OSError):  # no half-written file takes the disk's last space
                os.unlink(name, dir_fd=self._dir())
            return None
        self.names.append(name)
        return SAVED_PREFIX + name

    def cap(self, text: str, tool: str, *, redacted: bool = False) -> tuple[str, str | None]:
        """What the model sees of ``text``, and the saved file's name when it was cut
        (``redacted``: the caller already redacted the whole text, it is not done again)."""
        if len(text) <= self.cap_chars:
            return text, None
        saved = self.save(text, tool, redacted=redacted)
        half = self.cap_chars // 2
        head, tail = text[:half], text[len(text) - (self.cap_chars - half) :]
        dropped = len(text) - len(head) - len(tail)
        if saved is None:
            return head + omitted_note(dropped) + tail, None
        lines = text.count("\n") + 1
        note = (
            f"\n[... {dropped} characters omitted; the whole output ({len(text)} characters, "
            f"{lines} lines) is saved as {saved}: read_file it with start_line/end_line "
            "to see the rest ...]\n"
        )
        return head + note + tail, saved

    def is_saved(self, path: str) -> bool:
        """Whether ``path`` names a saved output (a ``@tool-outputs/`` path)."""
        return path.startswith(SAVED_PREFIX)

    def read_bytes(self, path: str, limit: int) -> bytes:
        """The bytes of the saved output ``path``; raises ToolFailure when there is none."""
        name = path[len(SAVED_PREFIX) :]
        if name not in self.names:
            known = ", ".join(SAVED_PREFIX + n for n in self.names[-5:]) or "none yet"
            raise ToolFailure(f"no saved tool output {path} (saved: {known})")
        try:
            return workspace_io.read_bytes(self._dir(), name, limit)
        except workspace_io.UnsafePath as err:
            raise ToolFailure(f"cannot read {path}: {err}") from None
