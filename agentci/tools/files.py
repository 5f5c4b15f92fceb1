"""File tools: ``read_file``, ``list_directory``, ``write_file``, ``replace`` (docs/tools.md).

Every path is resolved inside the workspace at the moment of use; files are opened with
``O_NOFOLLOW`` and the open descriptor is checked again, so a symlink planted by a command
mid-run cannot lead outside. Protected paths are refused here too, whatever the policy said
(the reads and writes themselves: :mod:`agentci.tools.file_io`).
"""

from __future__ import annotations

import asyncio
import os

from pydantic import BaseModel, ConfigDict, Field

from agentci.errors import ToolFailure
from agentci.policy.access import Access
from agentci.policy.gitconfig import is_config_file, sanitise
from agentci.policy.paths import resolve
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult
from agentci.tools.file_io import (
    MAX_READ_BYTES,
    atomic_write,
    not_utf8_note,
    read_bytes,
    refuse_lossy_overwrite,
    refuse_saved_output,
    write_in_thread,
)
from agentci.tools.globs import NameGlobs

MAX_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_ENTRIES = 1000


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReadFile(Tool):
    """Read a text file."""

    name = "read_file"
    kind = ToolKind.read
    description = (
        "Read a text file in the workspace. Long files are cut at 2000 lines; pass "
        "start_line/end_line to read a range. The output says when it was truncated, and "
        "when the file is not UTF-8 (undecodable bytes are shown as U+FFFD). A tool output "
        "too long to show whole, or an old one later masked to save context, is saved as "
        "@tool-outputs/<name> (its note gives the name): read it here the same way."
    )

    class Args(_Args):
        file_path: str = Field(description="Path of the file, relative to the workspace root.")
        start_line: int | None = Field(default=None, ge=1, description="First line (1-based).")
        end_line: int | None = Field(default=None, ge=1, description="Last line, inclusive.")

    def accesses(self, args: Args) -> list[Access]:  # type: ignore[override]
        return [Access("read", args.file_path)]

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        return await asyncio.to_thread(self._read, args, ctx)

    def _read(self, args: Args, ctx: ToolContext) -> ToolResult:
        if ctx.outputs is not None and ctx.outputs.is_saved(args.file_path):
            data = ctx.outputs.read_bytes(args.file_path, MAX_READ_BYTES)  # a saved tool output
            rel = args.file_path
        else:
            target = resolve(ctx.workspace, args.file_path)
            data = read_bytes(ctx, target.real)
            if is_config_file(ctx.workspace, target.real):  # never a credential of the checkout
                data = sanitise(data.decode("utf-8", errors="replace"))[0].encode()
            rel = target.rel
        if b"\x00" in data[:8192]:
            return ToolResult(output=f"[binary file {rel}, {len(data)} bytes, not shown]")
        lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
        encoding_note = not_utf8_note(data)
        total = len(lines)
        first = (args.start_line or 1) - 1
        last = min(args.end_line or total, total, first + MAX_LINES)
        if first >= total and total:
            raise ToolFailure(f"start_line {first + 1} is past the end ({total} lines)")
        shown = [
            ln if len(ln) <= MAX_LINE_CHARS else ln[:MAX_LINE_CHARS] + "… [line truncated]\n"
            for ln in lines[first:last]
        ]
        text = "".join(shown)
        if first > 0 or last < total:
            note = (
                f"[truncated: showing lines {first + 1}-{last} of {total}; "
                "use start_line/end_line to read more]\n"
            )
            text = note + text
        return ToolResult(output=encoding_note + text)


class ListDirectory(Tool):
    """List a directory."""

    name = "list_directory"
    kind = ToolKind.read
    description = (
        "List the files and directories in a workspace directory (directories end in /). "
        "`.git` and agentci's output folder are left out."
    )

    class Args(_Args):
        dir_path: str = Field(default=".", description="Directory, relative to the workspace.")
        ignore: list[str] | None = Field(default=None, description="Glob patterns to leave out.")

    def accesses(self, args: Args) -> list[Access]:  # type: ignore[override]
        return [Access("read", args.dir_path)]

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        return await asyncio.to_thread(self._list, args, ctx)

    def _list(self, args: Args, ctx: ToolContext) -> ToolResult:
        target = resolve(ctx.workspace, args.dir_path)
        if not target.real.is_dir():
            raise ToolFailure(f"{args.dir_path} is not a directory")
        ignore = NameGlobs(args.ignore)
        prefix = "" if target.rel == "." else target.rel + "/"
        names = []
        with os.scandir(target.real) as it:
            for entry in it:
                rel = prefix + entry.name
                if (
                    entry.name == ".git"
                    or any(rel == d or rel.startswith(d + "/") for d in ctx.private_dirs)
                    or ignore.match(entry.name)
                ):
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
                names.append((not is_dir, entry.name + ("/" if is_dir else "")))
        names.sort()
        shown = [n for _, n in names[:MAX_ENTRIES]]
        out = "\n".join(shown) if shown else "(empty directory)"
        if len(names) > MAX_ENTRIES:
            out += f"\n[truncated: {len(names) - MAX_ENTRIES} more entries]"
        return ToolResult(output=out)


class WriteFile(Tool):
    """Write a whole file."""

    name = "write_file"
    kind = ToolKind.edit
    description = (
        "Create or overwrite a file in the workspace with the given content (written "
        "atomically, UTF-8). Prefer `replace` for small changes to existing files. Refuses "
        "content with U+FFFD over a file that is not UTF-8 (it would destroy its bytes)."
    )

    class Args(_Args):
        file_path: str = Field(description="Path of the file, relative to the workspace root.")
        content: str = Field(description="The complete new content of the file.")

    def accesses(self, args: Args) -> list[Access]:  # type: ignore[override]
        return [Access("write", args.file_path)]

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        target = resolve(ctx.workspace, args.file_path)
        existed = target.real.exists()
        data = args.content.encode("utf-8")
        await asyncio.to_thread(refuse_lossy_overwrite, ctx, target.real, target.rel, args.content)
        await write_in_thread(atomic_write, ctx, target.real, target.rel, data)
        verb = "Overwrote" if existed else "Created"
        return ToolResult(output=f"{verb} {target.rel} ({len(args.content)} characters).")


class Replace(Tool):
    """Replace text in a file."""

    name = "replace"
    kind = ToolKind.edit
    description = (
        "Replace old_string with new_string in a file. old_string must match exactly "
        "(including whitespace) and occur exactly once, unless allow_multiple is true; "
        "include enough surrounding lines to make it unique. An empty old_string creates "
        "a new file. Line endings (CRLF) of the file are kept, and so are bytes that are "
        "not UTF-8."
    )

    class Args(_Args):
        file_path: str = Field(description="Path of the file, relative to the workspace root.")
        old_string: str = Field(description="The exact text to replace.")
        new_string: str = Field(description="The text to put in its place.")
        allow_multiple: bool = Field(
            default=False, description="Replace every occurrence instead of requiring one."
        )

    def accesses(self, args: Args) -> list[Access]:  # type: ignore[override]
        return [Access("write", args.file_path)]

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        return await write_in_thread(self._replace, args, ctx)

    def _replace(self, args: Args, ctx: ToolContext) -> ToolResult:
        target = resolve(ctx.workspace, args.file_path)
        refuse_saved_output(target.rel)
        if args.old_string == "":
            if target.real.exists():
                raise ToolFailure("old_string is empty but the file exists; use write_file")
            atomic_write(ctx, target.real, target.rel, args.new_string.encode("utf-8"))
            return ToolResult(output=f"Created {target.rel}.")
        if args.old_string == args.new_string:
            raise ToolFailure("old_string and new_string are the same; nothing to change")
        raw = read_bytes(ctx, target.real)
        text = raw.decode("utf-8", "surrogateescape")  # undecodable bytes kept as they are
        crlf = "\r\n" in text and "\n" not in text.replace("\r\n", "")
        work = text.replace("\r\n", "\n") if crlf else text
        old, new = args.old_string, args.new_string
        if crlf:
            old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        count = work.count(old)
        if count == 0 and "\ufffd" in old and not_utf8_note(raw):
            raise ToolFailure(
                f"old_string contains U+FFFD, which read_file shows in place of bytes of "
                f"{target.rel} that are not UTF-8; those bytes cannot be matched. Choose "
                "old_string without them, or change that line with run_shell_command"
            )
        if count == 0:
            raise ToolFailure(
                f"old_string not found in {target.rel}; read the file and copy the text exactly"
            )
        if count > 1 and not args.allow_multiple:
            raise ToolFailure(
                f"old_string occurs {count} times in {target.rel}; add surrounding context to "
                "make it unique, or set allow_multiple"
            )
        work = work.replace(old, new)
        if crlf:
            work = work.replace("\n", "\r\n")
        atomic_write(ctx, target.real, target.rel, work.encode("utf-8", "surrogateescape"))
        times = f" ({count} occurrences)" if count > 1 else ""
        return ToolResult(output=f"Replaced text in {target.rel}{times}.")
