"""How a local MCP server is started: a tiny supervisor, the sandbox, a clean environment.

The MCP SDK starts the server process itself (``stdio_client``: its own session, stdin and
stdout as the protocol's pipes). What it starts is agentci's supervisor,
``python -I -S -c SUPERVISOR SPEC``, which:

* asks the kernel for SIGTERM when agentci dies (``PR_SET_PDEATHSIG``), and then kills its
  whole process group — so a server outlives no exit of agentci, ``SIGKILL`` included (it
  exits at once if agentci is already gone);
* gives the server exactly the environment of the tools plus the server's ``env`` (the SDK
  adds HOME, PATH, … of agentci's own environment; the supervisor keeps only the names it is
  told), never agentci's secrets — without the tools' ``PYTHONPYCACHEPREFIX`` (a Python server
  would compile all it imports at every start), still without writing bytecode;
* starts the server, in the sandbox when the task has one (``bwrap … --die-with-parent``, a PID
  namespace of its own: everything the server starts dies with it), giving bubblewrap the
  socket filter on a file descriptor;
* when the server exits, kills what it left in the group, then exits itself.

The supervisor runs on the host, outside the workspace (``-I -S``: nothing is imported from
the working directory or site-packages).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agentci.errors import InvalidInput, ToolFailure
from agentci.policy.paths import resolve
from agentci.policy.socket_filter import socket_filter
from agentci.recipe.tool_config import ENV_REFERENCE, McpServer

if TYPE_CHECKING:
    from agentci.policy.sandbox import Sandbox

#: The file descriptor the supervisor hands bubblewrap the socket filter on.
SECCOMP_FD = 9
#: The variable the filter travels in, hex-encoded, from agentci to the supervisor (dropped).
SECCOMP_VAR = "AGENTCI_MCP_SECCOMP"

SUPERVISOR = r"""
import ctypes, json, os, signal, subprocess, sys
spec = json.loads(sys.argv[1])
ctypes.CDLL(None).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
if os.getppid() != spec["parent"]:
    os._exit(1)
def end(*_):
    os.killpg(0, signal.SIGKILL)
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, end)
bpf = os.environ.get(spec["seccomp_var"])
env = {k: os.environ[k] for k in spec["keep"] if k in os.environ}
fds = ()
if bpf:
    r, w = os.pipe()
    os.write(w, bytes.fromhex(bpf))
    os.close(w)
    os.dup2(r, spec["seccomp_fd"])
    os.close(r)
    fds = (spec["seccomp_fd"],)
try:
    child = subprocess.Popen(spec["argv"], env=env, cwd=spec["cwd"], pass_fds=fds)
except OSError as err:
    print("agentci: the MCP server cannot be started: %s" % err, file=sys.stderr, flush=True)
    os._exit(127)
code = child.wait()
sys.stderr.flush()
end()
"""


def expand(value: str, where: str, environ: Mapping[str, str] | None = None) -> str:
    """``value`` with each ``${NAME}`` replaced by agentci's variable NAME; an unset one is
    :class:`InvalidInput` (the run would fail later, and less clearly)."""
    env = os.environ if environ is None else environ

    def one(m: object) -> str:
        name = m.group(1)  # type: ignore[attr-defined]
        if name not in env:
            raise InvalidInput(f"{where} uses ${{{name}}}, which is not set")
        return env[name]

    return ENV_REFERENCE.sub(one, value)


def referenced(servers: Mapping[str, McpServer]) -> list[str]:
    """The variables the servers' ``env`` and ``headers`` refer to (their values are secrets
    to redact, whatever their names)."""
    names = set()
    for server in servers.values():
        for value in [*server.env.values(), *server.headers.values()]:
            names.update(ENV_REFERENCE.findall(value))
    return sorted(names)


def server_cwd(name: str, server: McpServer, workspace: Path) -> Path:
    """The server's working directory: ``cwd`` inside the workspace, the workspace by default."""
    try:
        cwd = resolve(workspace, server.cwd or ".").real
    except ToolFailure as err:
        raise InvalidInput(f"tools.mcp_servers.{name}.cwd: {err}") from None
    if not cwd.is_dir():
        raise InvalidInput(f"tools.mcp_servers.{name}.cwd: {server.cwd} is not a directory")
    return cwd


def supervised(
    name: str,
    server: McpServer,
    *,
    workspace: Path,
    tool_env: Mapping[str, str],
    sandbox: Sandbox | None,
) -> tuple[str, list[str], dict[str, str]]:
    """The program, arguments and environment to hand the SDK for the local server ``name``."""
    assert server.command is not None
    # the server holds its secrets in a workspace the model and the repository write: it does
    # not start there (a planted module, node_modules or uv.toml would be found first), but in
    # the sandbox's own empty /tmp, unless the recipe names a cwd
    cwd = server_cwd(name, server, workspace) if server.cwd or sandbox is None else Path("/tmp")
    env = dict(tool_env)
    # python -m SERVER: not the working directory first on sys.path (Python 3.11+)
    env["PYTHONSAFEPATH"] = "1"
    # the tools' private bytecode folder would make a Python server compile every module it
    # imports at each start (seconds); PYTHONDONTWRITEBYTECODE still keeps the workspace clean
    env.pop("PYTHONPYCACHEPREFIX", None)
    for key, value in server.env.items():
        env[key] = expand(value, f"tools.mcp_servers.{name}.env.{key}")
    argv = list(server.command)
    carried: dict[str, str] = {}
    if sandbox is not None:
        box = sandbox.but(network=server.network, host_sockets=server.host_sockets)
        if box.host_sockets:
            argv = box.wrap(argv, cwd)
        else:
            argv = box.wrap(argv, cwd, seccomp_fd=SECCOMP_FD)
            carried[SECCOMP_VAR] = socket_filter().hex()
    spec = {
        "parent": os.getpid(),
        "keep": sorted(env),
        "argv": argv,
        "cwd": str(cwd),
        "seccomp_var": SECCOMP_VAR,
        "seccomp_fd": SECCOMP_FD,
    }
    args = ["-I", "-S", "-c", SUPERVISOR, json.dumps(spec)]
    return sys.executable, args, {**env, **carried}
