"""ripgrep as the search engine: a child process that a timeout or a signal can kill.

rg runs in the workspace with an empty environment and ``--no-config``; it reads
``.gitignore`` files itself (inside a git repository, as git does, up to the repository's
root) and never runs git. It walks without following symlinks and searches regular files
only, so a FIFO, a socket or a device never blocks it. Its regex engine has no
backtracking: every search is linear in the size of the files.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import Callable
from pathlib import Path

from agentci.errors import ToolFailure
from agentci.policy.runtime import moved_runtime
from agentci.tools.engine import ALWAYS_SKIPPED, MAX_HIT_CHARS, MAX_KEPT_HITS, GrepResult, Scope

MAX_COLUMNS = 500
_BINARY = b": binary file matches (found "
_BAD_PATTERN = ("regex parse error", "error parsing regex", "regex size limit", "not allowed")
MAX_STDERR = 64 << 10
_COMMON = ["--no-config", "--hidden", "--no-ignore-dot", "--no-ignore-global"]


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]{}\\!" else c for c in text)


class Ripgrep:
    """The ``rg`` engine (see the module docstring)."""

    def __init__(self, path: str, version: str) -> None:
        self.path = path
        self.name = version  # e.g. "ripgrep 14.1.0"

    def _scope_args(self, scope: Scope) -> list[str]:
        args = [f"--glob=!{d}" for d in ALWAYS_SKIPPED]
        args += [f"--glob=!/{_glob_escape(h)}" for h in scope.hidden]
        if scope.names:
            args += [f"--type-add=scope:{_glob_escape_braces(n)}" for n in scope.names]
            args.append("--type=scope")
        return args

    def _roots(self, scope: Scope) -> list[str]:
        return [] if scope.roots == (".",) else ["--", *scope.roots]

    async def files(self, scope: Scope) -> list[str]:
        """``rg --files`` under the scope's roots, filtered by ``scope.wanted``."""
        cmd = [self.path, "--files", "--null", *_COMMON, *self._scope_args(scope)]
        chunks: list[bytes] = []
        err = await self._run([*cmd, *self._roots(scope)], scope.workspace, chunks.append)
        if err and not chunks:
            raise ToolFailure(f"ripgrep failed: {err.strip()[-500:]}")
        names = set(b"".join(chunks).decode("utf-8", "replace").split("\0"))
        names.discard("")
        return sorted(n for n in names if scope.wanted(n))

    async def grep(self, scope: Scope, pattern: str, limit: int) -> GrepResult:
        """``rg PATTERN`` under the scope's roots; binary files that match are listed."""
        cmd = [self.path, "--null", "--line-number", "--with-filename", "--no-heading"]
        cmd += ["--color=never", "--binary", f"--max-columns={MAX_COLUMNS}"]
        cmd += ["--max-columns-preview", *_COMMON, *self._scope_args(scope)]
        cmd += [f"--regexp={pattern}", *self._roots(scope)]
        result = GrepResult()
        parser = _HitParser(scope, result)
        err = await self._run(cmd, scope.workspace, parser.feed)
        parser.close(limit)
        if any(marker in err for marker in _BAD_PATTERN):
            raise ToolFailure(f"invalid regular expression: {err.strip()[-1500:]}")
        result.skipped += _unreadable(err, scope)
        return result

    async def _run(self, cmd: list[str], cwd: Path, sink: Callable[[bytes], None]) -> str:
        """Run rg, its output to ``sink``; kill it when the call is cancelled (a timeout, a
        signal). Returns the start of what it wrote to stderr. Refused when agentci's
        installation inside the workspace (where this ``rg`` may lie) was moved since the task
        started."""
        if moved := moved_runtime():
            raise ToolFailure(
                f"not run: agentci's installation at {moved[0]} was moved or replaced during the "
                "run, so the rg it holds is no longer agentci's"
            )
        proc = await asyncio.create_subprocess_exec(
            *cmd,
            cwd=cwd,
            env={},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        err_task = asyncio.ensure_future(_drain(proc.stderr, MAX_STDERR))
        try:
            while chunk := await proc.stdout.read(1 << 16):
                sink(chunk)
            err = await err_task
            await proc.wait()
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                err_task.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.shield(proc.wait())
        return err.decode("utf-8", "replace")


async def _drain(stream: asyncio.StreamReader, keep: int) -> bytes:
    """Read a stream to its end, keeping the first ``keep`` bytes."""
    kept = b""
    while chunk := await stream.read(1 << 16):
        kept += chunk[: max(0, keep - len(kept))]
    return kept


def _unreadable(err: str, scope: Scope) -> list[str]:
    """``rg: PATH: REASON`` lines (files rg could not read) as ``PATH (REASON)``."""
    out = []
    for line in err.splitlines():
        if line.startswith("rg: ") and ": " in line[4:]:
            path, _, why = line[4:].rpartition(": ")
            path = path[2:] if path.startswith("./") else path
            if scope.wanted(path):
                out.append(f"{path} ({why})")
    return out


def _glob_escape_braces(name: str) -> str:
    """A name glob for rg's ``--type-add``: gitignore rules have no ``{a,b}`` (expanded
    before), so braces left in the name are literal."""
    return name.replace("{", "\\{").replace("}", "\\}")


class _HitParser:
    """Parses ``PATH\\0LINE:TEXT\\n`` lines and ``PATH: binary file matches …`` notices.

    Lines are split per chunk and kept raw; paths are decoded and filtered once each, when
    the search is over. Past :data:`MAX_KEPT_HITS` lines, matches are only counted (one NUL
    byte per match line).
    """

    def __init__(self, scope: Scope, result: GrepResult) -> None:
        self.scope = scope
        self.result = result
        self.buf = b""
        self.pending = b""  # the start of a path that contains a newline
        self.raw: list[tuple[bytes, bytes]] = []
        self.binary: list[bytes] = []
        self.extra = 0

    def feed(self, chunk: bytes) -> None:
        if len(self.raw) >= MAX_KEPT_HITS:
            self.extra += chunk.count(b"\0")
            return
        lines = (self.buf + chunk).split(b"\n")
        self.buf = lines.pop()
        raw = self.raw
        for line in lines:
            nul = line.find(b"\0")
            if nul == -1 or self.pending:
                self._odd(line)
            else:
                raw.append((line[:nul], line[nul + 1 :]))
        if len(raw) >= MAX_KEPT_HITS:
            self.extra += self.buf.count(b"\0")

    def _odd(self, line: bytes) -> None:
        """A binary-file notice, or part of a path that contains a newline."""
        line = self.pending + line
        self.pending = b""
        nul = line.find(b"\0")
        if nul != -1:
            self.raw.append((line[:nul], line[nul + 1 :]))
        elif line.endswith(b")") and (at := line.rfind(_BINARY)) != -1:
            self.binary.append(line[:at])
        else:
            self.pending = line + b"\n"

    def close(self, limit: int) -> None:
        """Sort the kept lines; decode the first ``limit`` wanted ones, count the others."""
        if self.buf and len(self.raw) < MAX_KEPT_HITS:
            self._odd(self.buf)
        self.buf = b""
        wanted: dict[bytes, str | None] = {}

        def path_of(raw_path: bytes) -> str | None:
            if raw_path not in wanted:
                path = _path(raw_path)
                wanted[raw_path] = path if self.scope.wanted(path) else None
            return wanted[raw_path]

        lines = []
        for raw_path, rest in self.raw[:MAX_KEPT_HITS]:
            number, _, text = rest.partition(b":")
            if number.isdigit():
                lines.append((raw_path, len(number), number, text))
        lines.sort()  # by path, then line number (shorter digit strings first)
        result = self.result
        for raw_path, _, number, text in lines:
            path = path_of(raw_path)
            if path is None:
                continue
            if len(result.hits) < limit:
                result.hits.append((path, int(number), _text(text)))
            else:
                result.more += 1
        result.more += self.extra + max(0, len(self.raw) - MAX_KEPT_HITS)
        result.binary += [p for p in map(path_of, self.binary) if p is not None]


def _text(raw: bytes) -> str:
    return raw[: MAX_HIT_CHARS * 4].decode("utf-8", "replace")[:MAX_HIT_CHARS].rstrip("\r\n")


def _path(raw: bytes) -> str:
    path = raw.decode("utf-8", "replace")
    return path[2:] if path.startswith("./") else path
