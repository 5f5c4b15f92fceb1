"""The search engine behind ``glob`` and ``grep_search``: what it is given, what it returns.

Two engines, both linear in the size of what they search, and neither ever runs git or
reads the workspace's git config, hooks or attributes:

* :class:`~agentci.tools.rg.Ripgrep` — the ``rg`` binary (the ``ripgrep`` package installs
  it next to agentci's Python; otherwise the one on ``PATH``), run as a child process that
  a timeout or a signal kills. The default.
* :class:`~agentci.tools.walk.Re2Walk` — a walk of the tree in Python, ``.gitignore`` rules
  and the model's regular expression compiled with RE2 (google-re2); used when no ``rg``
  works. It runs in a thread that stops between files when the call is cancelled.

:func:`~agentci.tools.pick_engine.default_engine` picks one; its ``name`` is reported in the ``task_started`` event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

#: Matching lines kept (then sorted, and the first ``max_hits`` shown); beyond, only counted.
MAX_KEPT_HITS = 100_000
MAX_HIT_CHARS = 500
#: Directories never listed or searched, wherever they are.
ALWAYS_SKIPPED = (".git",)


@dataclass(frozen=True)
class Scope:
    """What to walk: ``roots`` (workspace-relative real directories, ``"."`` for all),
    minus ``hidden`` (workspace-relative directories, e.g. agentci's output folder), files
    whose name matches one of ``names`` (None: any), and among those the paths ``keep``
    accepts (the exact glob)."""

    workspace: Path
    roots: tuple[str, ...] = (".",)
    hidden: tuple[str, ...] = ()
    names: tuple[str, ...] | None = None
    keep: Callable[[str], bool] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "_inside_hidden", tuple(h + "/" for h in self.hidden))

    def wanted(self, rel: str) -> bool:
        """Whether a listed workspace-relative path passes ``hidden`` and ``keep``."""
        if rel in self.hidden or rel.startswith(self._inside_hidden):  # type: ignore[attr-defined]
            return False
        return self.keep is None or self.keep(rel)


@dataclass
class GrepResult:
    """Matches of one search: ``hits`` as ``(path, line number, text)``, sorted; ``more``
    matching lines beyond those kept; binary files that match; files not searched, why."""

    hits: list[tuple[str, int, str]] = field(default_factory=list)
    more: int = 0
    binary: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def add(self, path: str, line: int, text: str) -> None:
        """Keep a matching line (or only count it, past :data:`MAX_KEPT_HITS`)."""
        if len(self.hits) < MAX_KEPT_HITS:
            self.hits.append((path, line, text[:MAX_HIT_CHARS].rstrip("\r\n")))
        else:
            self.more += 1


class SearchEngine(Protocol):
    """Lists and searches files under a :class:`Scope`; never follows symlinks, never
    reads FIFOs, sockets or devices, leaves out files ignored by ``.gitignore``."""

    name: str

    async def files(self, scope: Scope) -> list[str]:
        """Workspace-relative paths of the regular files in scope, sorted."""
        ...

    async def grep(self, scope: Scope, pattern: str, limit: int) -> GrepResult:
        """Lines matching the regular expression ``pattern`` in the files in scope: the
        first ``limit`` in path order, and the number of the others.

        Raises :class:`~agentci.errors.ToolFailure` for a pattern the engine refuses.
        """
        ...
