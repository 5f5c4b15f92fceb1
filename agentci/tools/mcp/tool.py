"""An MCP server's tool as one of the task's tools: ``SERVER__tool`` with the server's schema.

Names: Gemini takes function names of letters, digits, ``_`` and ``-`` (``.`` and ``:`` too, not
used here), starting with a letter or ``_``, at most 64 characters. A server's tool name is
cleaned to that (other characters become ``_``); one that is too long, or that cleans to the
name of another, is cut and given a short hash of its real name, so each stays unique and
stable. Results: text as it is, structured content as JSON (when the text does not already say
it), images and audio described (type and size), never sent; resources by their URI and text.
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from agentci.errors import ToolFailure
from agentci.policy.access import UNDECLARED, Access
from agentci.providers.base import ToolSpec
from agentci.recipe.tool_config import check_json_schema
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult
from agentci.tools.json_args import SchemaArgs, schema_args
from agentci.tools.mcp.connection import McpConnection

#: Longest function name Gemini accepts.
MAX_NAME = 64
SEPARATOR = "__"


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """The name the model sees for ``tool`` of ``server`` (see the module docstring)."""
    clean = re.sub(r"[^A-Za-z0-9_-]", "_", tool) or "_"
    name = f"{server}{SEPARATOR}{clean}"
    if len(name) > MAX_NAME or name in taken:
        digest = hashlib.sha256(tool.encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME - 9]}_{digest}"
    return name


def offered(tool: str, include: list[str] | None, exclude: list[str]) -> bool:
    """Whether the recipe's ``include``/``exclude`` globs let the model see ``tool``."""
    if include is not None and not any(fnmatch.fnmatchcase(tool, g) for g in include):
        return False
    return not any(fnmatch.fnmatchcase(tool, g) for g in exclude)


def _size(data: str) -> str:
    try:
        n = len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        n = len(data)
    return f"{n} bytes"


def _block(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind} {block.mime_type}, {_size(block.data)}: not shown to the model]"
    if kind == "resource_link":
        return f"[resource {block.uri}" + (f": {block.description}]" if block.description else "]")
    if kind == "resource":
        res = block.resource
        text = getattr(res, "text", None)
        if text is not None:
            return f"[resource {res.uri}]\n{text}"
        return f"[resource {res.uri}, {res.mime_type or 'binary'}, {_size(res.blob)}: not shown]"
    return f"[{kind or 'unknown'} content: not shown]"


def result_text(result: Any) -> str:
    """A ``CallToolResult`` as the text the model reads."""
    parts = [_block(b) for b in result.content or []]
    text = "\n".join(p for p in parts if p)
    structured = result.structured_content
    if structured is not None:
        dumped = json.dumps(structured, ensure_ascii=False, indent=1)
        compact = json.dumps(structured, ensure_ascii=False)
        inner = structured.get("result") if isinstance(structured, dict) else None
        already = text.strip() in (dumped.strip(), compact) or (
            isinstance(inner, str) and inner.strip() == text.strip()
        )
        if not already:
            text = f"{text}\n[structured content]\n{dumped}" if text else dumped
    return text


class McpTool(Tool):
    """Base of the MCP tools; :func:`mcp_tool` makes one per server tool."""

    connection: McpConnection
    remote: str  # the tool's name on its server
    schema: dict[str, Any]
    call_timeout: float

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.schema)

    def accesses(self, args: BaseModel) -> Sequence[Access]:
        """A server the recipe trusts as read-only: a read (every mode allows it); any other
        runs what agentci cannot see into, judged by rules naming the tool."""
        return [Access("read", ".")] if self.kind is ToolKind.read else UNDECLARED

    async def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        assert isinstance(args, SchemaArgs)
        timeout = min(self.call_timeout, ctx.timeout_seconds)
        result = await self.connection.call(self.remote, args.values(), timeout)
        text = result_text(result)
        if result.is_error:
            raise ToolFailure(text or f"{self.name} failed (the server gave no reason)")
        return ToolResult(output=text or "(no output)")


def mcp_tool(
    connection: McpConnection,
    remote: Any,
    name: str,
    *,
    read_only: bool,
    call_timeout: float,
) -> McpTool | str:
    """The tool for ``remote`` (an ``mcp_types.Tool``), or why it cannot be offered."""
    schema = dict(remote.input_schema or {"type": "object"})
    schema.pop("$schema", None)
    try:
        check_json_schema(schema)
    except ValueError as err:
        return f"its input schema is refused: {err}"
    description = (remote.description or remote.title or remote.name).strip()
    cls = type(
        f"Mcp_{name}",
        (McpTool,),
        {
            "name": name,
            "kind": ToolKind.read if read_only else ToolKind.execute,
            "description": f"[MCP server {connection.name}] {description}",
            "Args": schema_args(schema, f"{name}_args"),
            "connection": connection,
            "remote": remote.name,
            "schema": schema,
            "call_timeout": call_timeout,
        },
    )
    tool: McpTool = cls()
    return tool
