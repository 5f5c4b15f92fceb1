"""A tiny MCP server for the tests, built with the official SDK's MCPServer.

``python demo_server.py [MARKER]`` speaks MCP over stdio; ``python demo_server.py http PORT``
serves streamable HTTP on 127.0.0.1:PORT (path ``/mcp``). A MARKER argument is not used: it
makes the process's command line unique, for the tests that look for leftover servers.
"""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Image

app = MCPServer("demo", log_level="WARNING")


@app.tool()
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}! (from the demo server)"


@app.tool()
def env_names() -> list[str]:
    """The names of the environment variables the server sees."""
    return sorted(os.environ)


@app.tool()
def picture() -> Image:
    """A tiny PNG picture."""
    return Image(data=base64.b64decode(PNG), format="png")


@app.tool()
def run(command: str) -> str:
    """Run a bash command and return its output (a server as dangerous as a shell)."""
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False)
    return f"exit {done.returncode}\n{done.stdout}{done.stderr}"


@app.tool()
def crash() -> str:
    """Kill the server process (SIGKILL, as an out-of-memory killer would)."""
    os.kill(os.getpid(), signal.SIGKILL)
    return "not reached"


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
