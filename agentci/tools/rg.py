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
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

from agentci.errors import ToolFailure
from agentci.tools.engine import ALWAYS_SKIPPED, GrepResult, Scope

MAX_COLUMNS = 500
_BINARY = b": binary file matches (found "
_BAD_PATTERN = ("regex parse error", "error parsing regex", "regex size limit", "not allowed")
MAX_STDERR = 64 << 10
_COMMON = ["--no-config", "--hidden", "--no-ignore-dot", "--no-ignore-global"]


def find_rg() -> tuple[str, str] | None:
    """``(path, version)`` of a working ``rg``: next to agentci's Python first, then PATH."""
    candidates = [
        Path(sysconfig.get_path("scripts")) / "rg",
        Path(sys.executable).parent / "rg",
        shutil.which("rg"),
    ]
    for cand in candidates:
        if cand is None or not os.access(cand, os.X_OK) or not Path(cand).is_file():
            continue
        try:
            done = subprocess.run(
                [str(cand), "--version"], capture_output=True, env={}, timeout=10, check=True
            )
        except (OSError, subprocess.SubprocessError):
            continue
        version = done.stdout.decode(errors="replace").split("\n", 1)[0].strip()
        return str(cand), version or "ripgrep"
    return None


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
        names = {n.decode("utf-8", "replace") for n in b"".join(chunks).split(b"\0") if n}
        return sorted(n for n in names if scope.wanted(n))

    async def grep(self, scope: Scope, pattern: str) -> GrepResult:
        """``rg PATTERN`` under the scope's roots; binary files that match are listed."""
        cmd = [self.path, "--null", "--line-number", "--with-filename", "--no-heading"]
        cmd += ["--color=never", "--binary", f"--max-columns={MAX_COLUMNS}"]
        cmd += ["--max-columns-preview", *_COMMON, *self._scope_args(scope)]
        cmd += [f"--regexp={pattern}", *self._roots(scope)]
        result = GrepResult()
        parser = _HitParser(scope, result)
        err = await self._run(cmd, scope.workspace, parser.feed)
        parser.close()
        if any(marker in err for marker in _BAD_PATTERN):
            raise ToolFailure(f"invalid regular expression: {err.strip()[-1500:]}")
        result.skipped += _unreadable(err, scope)
        result.hits.sort()
        return result

    async def _run(self, cmd: list[str], cwd: Path, sink: Callable[[bytes], None]) -> str:
        """Run rg, its output to ``sink``; kill it when the call is cancelled (a timeout, a
        signal). Returns the start of what it wrote to stderr."""
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
    """Parses ``PATH\\0LINE:TEXT\\n`` lines and ``PATH: binary file matches …`` notices."""

    def __init__(self, scope: Scope, result: GrepResult) -> None:
        self.scope = scope
        self.result = result
        self.buf = b""
        self.pending = b""  # the start of a path that contains a newline

    def feed(self, chunk: bytes) -> None:
        self.buf += chunk
        lines = self.buf.split(b"\n")
        self.buf = lines.pop()
        for line in lines:
            self._line(line)

    def close(self) -> None:
        if self.buf:
            self._line(self.buf)
            self.buf = b""

    def _line(self, line: bytes) -> None:
        line = self.pending + line
        nul = line.find(b"\0")
        if nul == -1:
            at = line.rfind(_BINARY)
            if at != -1 and line.endswith(b")"):
                self.pending = b""
                path = _path(line[:at])
                if self.scope.wanted(path):
                    self.result.binary.append(path)
            else:
                self.pending = line + b"\n"
            return
        self.pending = b""
        path = _path(line[:nul])
        number, _, text = line[nul + 1 :].partition(b":")
        if self.scope.wanted(path) and number.isdigit():
            self.result.add(path, int(number), text.decode("utf-8", "replace"))


def _path(raw: bytes) -> str:
    path = raw.decode("utf-8", "replace")
    return path[2:] if path.startswith("./") else path
