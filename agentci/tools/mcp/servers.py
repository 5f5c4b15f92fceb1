"""The MCP servers of one task: started before the first model call, stopped on every exit.

``async with McpServers.start(...) as servers`` starts each server of ``tools.mcp_servers``
(a failure is :class:`~agentci.errors.InvalidInput`: exit 2, before any model call, the
servers already started are stopped) and offers their tools (``servers.tools``); leaving the
block, by any path — the end of the task, a budget, a signal's cancellation, an exception —
stops them all.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from agentci.errors import InvalidInput
from agentci.recipe.tool_config import McpServer
from agentci.tools.base import Tool
from agentci.tools.mcp.connection import McpConnection
from agentci.tools.mcp.launch import expand, supervised
from agentci.tools.mcp.tool import mcp_tool, offered, tool_name

if TYPE_CHECKING:
    from agentci.policy.sandbox import Sandbox

#: Called with a warning's text (a server tool that cannot be offered).
Warn = Callable[[str], object]


def _transport(
    name: str,
    server: McpServer,
    *,
    workspace: Path,
    tool_env: Mapping[str, str],
    sandbox: Sandbox | None,
) -> Callable[[IO[str]], Any]:
    """What makes the SDK transport of ``server``, given the file its stderr goes to."""
    if server.url is not None:
        url = server.url
        headers = {
            k: expand(v, f"tools.mcp_servers.{name}.headers.{k}") for k, v in server.headers.items()
        }

        @contextlib.asynccontextmanager
        async def http(_stderr: IO[str]) -> AsyncIterator[Any]:
            # deferred: the mcp SDK is slow to import (seconds); only a recipe with MCP servers needs it
            import httpx2

            # deferred: the mcp SDK is slow to import (seconds); only a recipe with MCP servers needs it
            from mcp.client.streamable_http import streamable_http_client

            timeout = httpx2.Timeout(server.timeout_seconds, read=max(300, server.timeout_seconds))
            async with (
                httpx2.AsyncClient(headers=headers, timeout=timeout) as client,
                streamable_http_client(url, http_client=client) as streams,
            ):
                yield streams

        return http
    exe, args, env = supervised(
        name, server, workspace=workspace, tool_env=tool_env, sandbox=sandbox
    )

    def stdio(stderr: IO[str]) -> Any:
        # deferred: the mcp SDK is slow to import (seconds); only a recipe with MCP servers needs it
        from mcp import StdioServerParameters, stdio_client

        return stdio_client(StdioServerParameters(command=exe, args=args, env=env), errlog=stderr)  # type: ignore[arg-type]

    return stdio


class McpServers:
    """The started servers and their tools, by the name the model uses."""

    def __init__(self) -> None:
        self.connections: list[McpConnection] = []
        self.tools: dict[str, Tool] = {}

    @classmethod
    @contextlib.asynccontextmanager
    async def start(
        cls,
        servers: Mapping[str, McpServer],
        *,
        workspace: Path,
        tool_env: Mapping[str, str],
        sandbox: Sandbox | None,
        call_timeout: float,
        warn: Warn,
        redact: Callable[[str], str] = lambda text: text,
        taken: set[str] | None = None,
    ) -> AsyncIterator[McpServers]:
        """Start ``servers`` (see the module docstring); ``taken`` are names already used."""
        self = cls()
        try:
            used = set(taken or ())
            for name, server in servers.items():
                transport = _transport(
                    name, server, workspace=workspace, tool_env=tool_env, sandbox=sandbox
                )
                conn = McpConnection(name, transport, timeout=server.timeout_seconds, redact=redact)
                self.connections.append(conn)
                await conn.start()
                self._offer(conn, server, used, min(call_timeout, server.timeout_seconds), warn)
            yield self
        finally:
            await self.stop()

    def _offer(
        self, conn: McpConnection, server: McpServer, used: set[str], timeout: float, warn: Warn
    ) -> None:
        listed = [t for t in conn.tools if offered(t.name, server.include, server.exclude)]
        if server.include is not None:
            missing = [g for g in server.include if not any(_match(t.name, g) for t in conn.tools)]
            if missing:
                known = ", ".join(sorted(t.name for t in conn.tools)) or "none"
                raise InvalidInput(
                    f"tools.mcp_servers.{conn.name}.include: no tool of the server matches "
                    f"{', '.join(map(repr, missing))} (it has: {known})"
                )
        for remote in listed:
            name = tool_name(conn.name, remote.name, used)
            made = mcp_tool(
                conn, remote, name, read_only=server.trust == "read_only", call_timeout=timeout
            )
            if isinstance(made, str):
                warn(f"MCP server {conn.name!r}: tool {remote.name!r} is not offered: {made}")
                continue
            used.add(name)
            self.tools[name] = made

    async def stop(self) -> None:
        """Stop every server, all at once (each waits for its own to end)."""
        await asyncio.gather(*(conn.stop() for conn in self.connections))


def _match(name: str, glob: str) -> bool:
    return fnmatch.fnmatchcase(name, glob)
