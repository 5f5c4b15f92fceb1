"""The fallback search engine: a walk of the tree in Python, matching with RE2.

Used when no ``rg`` binary works. ``.gitignore`` files are read from the workspace's root
down (and ``.git/info/exclude``), as ripgrep does inside a git repository; their patterns,
the model's globs and its regular expression are all compiled with RE2, so no input makes
matching slower than linear. Only regular files are read (opened without following
symlinks, without blocking): FIFOs, sockets and devices are never opened. Files over
:data:`MAX_FILE_BYTES` are skipped and named in the answer. The walk runs in a thread and
stops at the next file once the call is cancelled (a timeout, a signal).
"""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import re2  # type: ignore[import-untyped]

from agentci import workspace_io
from agentci.errors import ToolFailure
from agentci.tools.engine import ALWAYS_SKIPPED, GrepResult, Scope
from agentci.tools.globs import PathGlob, gitignore_regex, re2_options

MAX_FILE_BYTES = 16 << 20


class Stopped(Exception):
    """The call was cancelled; the walk ends at the next file."""


@dataclass
class _Rules:
    """The ignore rules of one directory: ``(regex, include)`` in file order."""

    base: str  # workspace-relative directory ("" for the root)
    rules: list[tuple[re2._Regexp, bool]] = field(default_factory=list)

    def decide(self, rel: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included, None: no rule of this file matches."""
        sub = rel[len(self.base) + 1 :] if self.base else rel
        sub = sub + "/" if is_dir else sub
        verdict = None
        for rx, include in self.rules:
            if rx.search(sub):
                verdict = include
        return verdict


def _load_rules(workspace: Path, rel: str, base: str) -> _Rules | None:
    """The rules of the ignore file ``rel`` below ``workspace``, read as git (2.32 and later)
    reads one in the work tree: a regular file, never through a link (a FIFO would block the
    walk for ever; a link could point at a host file); its first MB."""
    try:
        data = workspace_io.read_bytes(workspace, rel, 1 << 20, cut=True)
    except (workspace_io.UnsafePath, OSError):
        return None
    text = data[: 1 << 20].decode("utf-8", "replace")
    rules = _Rules(base)
    for line in text.splitlines():
        regex, include = gitignore_regex(line)
        if regex is None or include is None:
            continue
        try:
            rules.rules.append((re2.compile(regex, re2_options()), include))
        except re2.error:
            continue  # git skips a pattern it cannot read; so do we
    return rules if rules.rules else None


def _in_git_repo(workspace: Path) -> bool:
    return any((d / ".git").exists() for d in (workspace, *workspace.parents))


class Walker:
    """Regular files of a scope, ignored files and directories pruned."""

    def __init__(self, scope: Scope, stop: threading.Event) -> None:
        self.scope = scope
        self.stop = stop
        self.git = _in_git_repo(scope.workspace)
        self.names = [PathGlob(n) for n in scope.names] if scope.names else None

    def files(self) -> Iterator[str]:
        """Workspace-relative paths, in sorted order within each directory."""
        for root in self.scope.roots:
            stack = self._rules_above(root)
            yield from self._walk(root, stack)

    def _rules_above(self, root: str) -> list[_Rules]:
        if not self.git:
            return []
        ws = self.scope.workspace
        stack = []
        if r := _load_rules(ws, ".git/info/exclude", ""):
            stack.append(r)
        parts = [] if root == "." else root.split("/")
        for i in range(len(parts)):  # the root's own .gitignore is read by _walk
            base = "/".join(parts[:i])
            if r := _load_rules(ws, f"{base}/.gitignore" if base else ".gitignore", base):
                stack.append(r)
        return stack

    def _ignored(self, rel: str, is_dir: bool, stack: list[_Rules]) -> bool:
        for rules in reversed(stack):  # the deepest .gitignore that has a say decides
            verdict = rules.decide(rel, is_dir)
            if verdict is not None:
                return verdict
        return False

    def _walk(self, rel_dir: str, stack: list[_Rules]) -> Iterator[str]:
        if self.stop.is_set():
            raise Stopped
        base = "" if rel_dir == "." else rel_dir
        here = self.scope.workspace / base
        ignore = f"{base}/.gitignore" if base else ".gitignore"
        if self.git and (r := _load_rules(self.scope.workspace, ignore, base)):
            stack = [*stack, r]
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            rel = f"{base}/{entry.name}" if base else entry.name
            if entry.name in ALWAYS_SKIPPED or any(
                rel == h or rel.startswith(h + "/") for h in self.scope.hidden
            ):
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if not (is_dir or is_file) or self._ignored(rel, is_dir, stack):
                continue
            if is_dir:
                yield from self._walk(rel, stack)
            elif (self.names is None or any(g.match(entry.name) for g in self.names)) and (
                self.scope.keep is None or self.scope.keep(rel)
            ):
                yield rel


def _read_regular(path: Path) -> bytes | str:
    """The bytes of a regular file, or why it was not read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        return exc.strerror or "cannot open"
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            return "not a regular file"
        if st.st_size > MAX_FILE_BYTES:
            return f"{st.st_size} bytes, over the {MAX_FILE_BYTES >> 20} MB limit of this engine"
        return fh.read(MAX_FILE_BYTES + 1)


class Re2Walk:
    """The Python + RE2 engine (see the module docstring)."""

    name = f"re2 (google-re2 {getattr(re2, '__version__', '')}, Python walk)".replace(" ,", ",")

    async def files(self, scope: Scope) -> list[str]:
        """The walk's files, sorted."""
        return await _in_thread(lambda stop: sorted(Walker(scope, stop).files()))

    async def grep(self, scope: Scope, pattern: str, limit: int) -> GrepResult:
        """Lines matching ``pattern`` (RE2 syntax, one line at a time)."""
        opts = re2_options()
        opts.never_nl = True
        try:
            rx = re2.compile("(?m)" + pattern, opts)
        except re2.error as exc:
            raise ToolFailure(f"invalid regular expression: {exc}") from None
        return await _in_thread(lambda stop: _grep(scope, rx, stop, limit))


def _grep(scope: Scope, rx: re2._Regexp, stop: threading.Event, limit: int) -> GrepResult:
    result = GrepResult()
    for rel in Walker(scope, stop).files():
        if stop.is_set():
            raise Stopped
        data = _read_regular(scope.workspace / rel)
        if isinstance(data, str):
            result.skipped.append(f"{rel} ({data})")
            continue
        text = data.decode("utf-8", "replace")
        m = rx.search(text)
        if m is None:
            continue
        if b"\0" in data:
            result.binary.append(rel)
            continue
        line, counted = 1, 0
        while m is not None:
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.start())
            end = len(text) if end == -1 else end
            line += text.count("\n", counted, start)
            counted = start
            result.add(rel, line, text[start:end])
            m = rx.search(text, end + 1) if end < len(text) else None
    result.hits.sort()
    result.more += max(0, len(result.hits) - limit)
    del result.hits[limit:]
    return result


async def _in_thread(work):  # type: ignore[no-untyped-def]
    """Run ``work(stop)`` in a thread; on cancellation set ``stop`` so the thread ends."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(work, stop)
    except Stopped:
        raise asyncio.CancelledError from None
    finally:
        stop.set()
