"""Why a verify command could not run at all, in words a user can act on.

A verify command whose tool is missing fails like a failing test suite (exit 1 for
``python -m pytest`` without pytest), so the console, summary.md and the model would only say
"verify failed". :func:`cannot_run` recognises the usual shapes::

    /usr/bin/python: No module named pytest              (python -m X, X not installed)
    ModuleNotFoundError: No module named 'pytest'        (a script importing X)
    bash: line 1: pytest: command not found              (exit 127)
    bash: ./check.sh: Permission denied                  (exit 126)

and :func:`sandbox_note` what the sandbox refused (a Unix socket, closed unless
``host_sockets`` opens it).
"""

from __future__ import annotations

import re

_NO_MODULE = re.compile(r"No module named '?([A-Za-z0-9_.]+)'?")
_NOT_FOUND = re.compile(r"(?:^|: )([^\s:]+): (?:command )?not found", re.MULTILINE)


def cannot_run(exit_code: int | None, output: str) -> str | None:
    """A one-line reason when the command's tool is missing, or None when it ran."""
    if exit_code in (0, None):
        return None
    module = _NO_MODULE.search(output)
    if module and exit_code == 1:
        name = module.group(1)
        top = name.split(".")[0]
        return (
            f"the verify command could not run: No module named {name} — install {top} in the "
            f"Python that runs agentci (pip install {top}), or in the recipe's setup:"
        )
    if exit_code == 127:
        missing = _NOT_FOUND.search(output)
        what = f"{missing.group(1)!r} " if missing else ""
        return (
            f"the verify command could not run: command {what}not found (exit 127) — install it "
            "or put it on PATH, or install it in the recipe's setup:"
        )
    if exit_code == 126:
        return "the verify command could not run: not executable (exit 126) — check its mode"
    return None


#: What a program sees when the sandbox's socket filter refuses a Unix socket (EAFNOSUPPORT).
_NO_UNIX_SOCKET = "Address family not supported by protocol"


def sandbox_note(output: str) -> str | None:
    """A hint when the command's output shows the sandbox refused a Unix socket."""
    if _NO_UNIX_SOCKET not in output:
        return None
    return (
        "the sandbox refuses Unix sockets unless verify.host_sockets is true (multiprocessing's "
        "forkserver and Manager, and servers on a socket path, need them); 'Address family not "
        "supported by protocol' above may be that"
    )
