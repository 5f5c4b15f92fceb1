"""Search tools: ``glob`` and ``grep_search`` (docs/tools.md).

Both list candidate files the way git does (``git ls-files --cached --others
--exclude-standard``), so ``.gitignore`` is respected; outside a git repository they walk
the tree, skipping ``.git``. Hits are capped and the output says so.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from pathlib import Path

import pathspec
from pydantic import BaseModel, ConfigDict, Field

from agentci.errors import ToolFailure
from agentci.policy.paths import inside, resolve
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult

MAX_GLOB_HITS = 500
MAX_GREP_HITS = 200
MAX_GREP_FILE_BYTES = 2 << 20
MAX_HIT_CHARS = 500


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


def list_files(workspace: Path, base: Path) -> list[str]:
    """Files under ``base`` (paths relative to the workspace), without ignored files."""
    rel_base = base.relative_to(workspace).as_posix()
    if (workspace / ".git").exists():
        cmd = ["git", "-C", str(workspace), "ls-files", "-z", "--cached", "--others"]
        cmd += ["--exclude-standard", "--", "." if rel_base == "." else rel_base]
        done = subprocess.run(
            cmd,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            env={
                "PATH": os.environ.get("PATH", os.defpath),
                "GIT_TERMINAL_PROMPT": "0",
                "HOME": os.environ.get("HOME", "/"),
            },
        )
        if done.returncode == 0:
            names = sorted(set(done.stdout.decode("utf-8", "replace").split("\0")) - {""})
            return [n for n in names if os.path.isfile(workspace / n)]
    out = []
    for root, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for f in sorted(files):
            out.append((Path(root) / f).relative_to(workspace).as_posix())
    return out


def _matcher(pattern: str, rel_base: str) -> pathspec.PathSpec:
    """Gitignore-style glob; a pattern with a ``/`` is taken from ``rel_base``."""
    if "/" in pattern.strip("/") or pattern.startswith("**"):
        prefix = "" if rel_base == "." else rel_base + "/"
        pattern = "/" + prefix + pattern.lstrip("/")
    return pathspec.PathSpec.from_lines("gitignore", [pattern])


class Glob(Tool):
    """Find files by name."""

    name = "glob"
    kind = ToolKind.read
    description = (
        "Find files whose path matches a glob pattern (e.g. `**/*.py`, `src/**/test_*.py`). "
        "A pattern without `/` matches file names at any depth. Files ignored by git are "
        "left out. Returns workspace-relative paths."
    )

    class Args(_Args):
        pattern: str = Field(description="Glob pattern, e.g. `**/*.ts`.")
        dir_path: str | None = Field(default=None, description="Directory to search in.")

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        return await asyncio.to_thread(self._glob, args, ctx)

    def _glob(self, args: Args, ctx: ToolContext) -> ToolResult:
        base = resolve(ctx.workspace, args.dir_path or ".")
        if not base.real.is_dir():
            raise ToolFailure(f"{args.dir_path} is not a directory")
        spec = _matcher(args.pattern, base.rel)
        hits = [f for f in list_files(ctx.workspace, base.real) if spec.match_file(f)]
        if not hits:
            return ToolResult(output=f"No files match {args.pattern!r}.")
        out = "\n".join(hits[:MAX_GLOB_HITS])
        if len(hits) > MAX_GLOB_HITS:
            out += f"\n[truncated: {len(hits) - MAX_GLOB_HITS} more files; narrow the pattern]"
        return ToolResult(output=out)


class GrepSearch(Tool):
    """Search file contents."""

    name = "grep_search"
    kind = ToolKind.read
    description = (
        "Search file contents with a regular expression (Python syntax). Returns "
        "`path:line: text` for each match; files ignored by git and binary files are skipped."
    )

    class Args(_Args):
        pattern: str = Field(description="Regular expression to search for.")
        dir_path: str | None = Field(default=None, description="Directory to search in.")
        include_pattern: str | None = Field(
            default=None, description="Only search files matching this glob, e.g. `*.py`."
        )

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        return await asyncio.to_thread(self._grep, args, ctx)

    def _grep(self, args: Args, ctx: ToolContext) -> ToolResult:
        try:
            rx = re.compile(args.pattern)
        except re.error as exc:
            raise ToolFailure(f"invalid regular expression: {exc}") from None
        base = resolve(ctx.workspace, args.dir_path or ".")
        if not base.real.is_dir():
            raise ToolFailure(f"{args.dir_path} is not a directory")
        files = list_files(ctx.workspace, base.real)
        if args.include_pattern:
            spec = _matcher(args.include_pattern, base.rel)
            files = [f for f in files if spec.match_file(f)]
        hits: list[str] = []
        more = 0
        for rel in files:
            path = ctx.workspace / rel
            real = Path(os.path.realpath(path))
            if not inside(ctx.workspace, real) or path.is_symlink():
                continue
            try:
                if real.stat().st_size > MAX_GREP_FILE_BYTES:
                    continue
                data = real.read_bytes()
            except OSError:
                continue
            if b"\x00" in data[:8192]:
                continue
            for no, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
                if rx.search(line):
                    if len(hits) < MAX_GREP_HITS:
                        hits.append(f"{rel}:{no}: {line[:MAX_HIT_CHARS]}")
                    else:
                        more += 1
        if not hits:
            return ToolResult(output=f"No matches for {args.pattern!r}.")
        out = "\n".join(hits)
        if more:
            out += f"\n[truncated: {more} more matches; narrow the pattern or directory]"
        return ToolResult(output=out)
