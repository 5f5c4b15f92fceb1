"""A task's MCP servers: started before any model call, their tools offered beside the
built-in ones, stopped on every way out (docs/mcp.md)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agentci.events import types as ev
from agentci.reports.redact import Redactor
from agentci.spec import TaskSpec
from agentci.tools.mcp.launch import referenced
from agentci.tools.mcp.servers import McpServers

if TYPE_CHECKING:
    from agentci.policy.sandbox import Sandbox
    from agentci.tools.base import Tool


@contextlib.asynccontextmanager
async def mcp_servers(
    spec: TaskSpec,
    *,
    workspace: Path,
    env: dict[str, str],
    sandbox: Sandbox | None,
    tools: dict[str, Tool],
    redactor: Redactor | None,
    emit: Callable[[ev.Event], object],
) -> AsyncIterator[None]:
    """The spec's MCP servers, running (their tools added to ``tools``) for the block: one
    that cannot start is ``invalid_input``; a tool that cannot be offered is a warning."""
    servers = spec.tools.mcp_servers
    if not servers:
        yield
        return
    redactor = redactor or Redactor.from_environ(referenced(servers))
    async with McpServers.start(
        servers,
        workspace=workspace,
        tool_env=env,
        sandbox=sandbox,
        call_timeout=spec.budget.tool_timeout_seconds,
        warn=lambda text: emit(ev.WarningEvent(kind="mcp_tool_skipped", message=text)),
        redact=redactor.redact,
        taken=set(tools),
    ) as started:
        tools.update(started.tools)
        yield
