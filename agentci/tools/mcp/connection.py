"""One MCP server for one task: started, listed, called, stopped (the official ``mcp`` SDK).

The SDK's client lives in a task of its own (the *keeper*), which enters the client, lists the
tools, then waits to be told to stop. Calls from the scheduler go through the keeper's session;
a server that dies makes them fail (a tool error for the model), never the run: the SDK's task
group cannot cancel anything outside the keeper. :meth:`McpConnection.stop` asks the keeper to
leave the client, which ends the server (the SDK closes its stdin, then SIGTERM and SIGKILL to
its process group; agentci's supervisor then kills what is left, see
:mod:`agentci.tools.mcp.launch`).
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from agentci.errors import InvalidInput, ToolFailure

if TYPE_CHECKING:
    import mcp_types
    from mcp import Client

#: Bytes of a server's stderr quoted when it fails to start.
STDERR_TAIL = 2000
#: Pages of tools/list read at most (a server that pages forever cannot hang the start).
MAX_PAGES = 50
#: Seconds a server gets to stop before the keeper is abandoned (the supervisor still ends it).
STOP_SECONDS = 10.0


class McpConnection:
    """A connection to server ``name``; ``transport`` makes the SDK transport (stdio or HTTP)."""

    def __init__(
        self,
        name: str,
        transport: Callable[[IO[str]], Any],
        *,
        timeout: float,
        redact: Callable[[str], str] = lambda text: text,
    ) -> None:
        self.name = name
        self._transport = transport
        self.timeout = timeout
        self._redact = redact
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._keeper: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None
        self._stderr: IO[str] = tempfile.TemporaryFile(  # noqa: SIM115 - closed by stop()
            "w+", encoding="utf-8", errors="replace"
        )
        self.tools: list[mcp_types.Tool] = []
        self.gone: str | None = None  # why the server no longer answers

    def stderr_tail(self) -> str:
        """The last lines the server wrote on stderr (redacted)."""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.flush()
            self._stderr.seek(0, 2)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - STDERR_TAIL))
            return self._redact(self._stderr.read().strip())
        return ""

    async def start(self) -> None:
        """Start the server and list its tools; :class:`InvalidInput` when it cannot be."""
        self._keeper = asyncio.ensure_future(self._keep())
        try:
            await asyncio.wait_for(self._ready.wait(), self.timeout)
        except asyncio.TimeoutError:
            await self._stop_keeper()
            error = self._start_error(f"it did not answer within {self.timeout:g}s")
            await self.stop()
            raise error from None
        if self._failure is not None or self._client is None:
            await self._stop_keeper()  # the server's last words are in its stderr by now
            error = self._start_error(_describe(self._failure))
            await self.stop()
            raise error

    def _start_error(self, why: str) -> InvalidInput:
        tail = self.stderr_tail()
        more = f"; its stderr ends with:\n{tail}" if tail else ""
        return InvalidInput(f"MCP server {self.name!r} could not be started: {why}{more}")

    async def _keep(self) -> None:
        # deferred: the mcp SDK is slow to import (seconds); only a recipe with MCP servers needs it
        from mcp import Client

        try:
            async with Client(
                self._transport(self._stderr), read_timeout_seconds=self.timeout
            ) as client:
                tools: list[mcp_types.Tool] = []
                cursor = None
                for _ in range(MAX_PAGES):
                    page = await client.list_tools(cursor=cursor)
                    tools += page.tools
                    cursor = page.next_cursor
                    if cursor is None:
                        break
                self.tools = tools
                self._client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as err:  # noqa: BLE001 - the keeper reports, never raises
            self._failure = err
            self.gone = _describe(err)
            if isinstance(err, (KeyboardInterrupt, SystemExit)):
                raise
        finally:
            self._client = None
            self._ready.set()

    async def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> Any:
        """``tools/call``; a dead server, a timeout or a protocol error is a ToolFailure."""
        # deferred: the mcp SDK is slow to import (seconds); only a recipe with MCP servers needs it
        from mcp import MCPError

        client = self._client
        if client is None:
            raise ToolFailure(f"the MCP server {self.name!r} is not running ({self.gone})")
        try:
            return await asyncio.wait_for(
                client.call_tool(tool, arguments, read_timeout_seconds=timeout), timeout + 5
            )
        except asyncio.TimeoutError:
            raise ToolFailure(
                f"the MCP server {self.name!r} did not answer in {timeout:g}s"
            ) from None
        except MCPError as err:
            tail = self.stderr_tail()
            more = f" (its stderr ends with: {tail[-500:]})" if tail else ""
            raise ToolFailure(f"MCP server {self.name!r}: {err}{more}") from None
        except (OSError, RuntimeError) as err:
            raise ToolFailure(f"MCP server {self.name!r}: {_describe(err)}") from None

    async def stop(self) -> None:
        """Stop the server (idempotent); waits a bounded time, shielded from cancellation."""
        await self._stop_keeper()
        with contextlib.suppress(OSError):
            self._stderr.close()

    async def _stop_keeper(self) -> None:
        self._stop.set()
        keeper = self._keeper
        if keeper is not None and not keeper.done() and not self._ready.is_set():
            keeper.cancel()  # still starting (a signal came): the SDK's shutdown is shielded
        if keeper is not None and not keeper.done():
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(keeper), STOP_SECONDS)
            if not keeper.done():
                keeper.cancel()


def _describe(err: BaseException | None) -> str:
    """A failure of the SDK as one line (task groups wrap errors in exception groups)."""
    if err is None:
        return "it closed the connection"
    members = getattr(err, "exceptions", None)
    while members:  # an exception group (the SDK's task groups): its first member
        err = members[0]
        members = getattr(err, "exceptions", None)
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0] if text else type(err).__name__
