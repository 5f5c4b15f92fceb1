"""The one way agentci finds a program it runs on the host (git, bwrap, gh, rg, apt-get …).

A job often puts folders of the checkout on ``PATH`` (``.venv/bin``, ``node_modules/.bin``,
a ``tools/bin``, even ``.`` or an empty entry, which mean the working directory). The agent
can write into those folders — directly, or through code the sandbox runs — so a plain
``shutil.which`` would hand it the program agentci runs next on the host, as agentci's child,
with agentci's secrets in reach (``/proc/$PPID/environ``, a token in the environment).

:func:`host_program` therefore looks only in ``PATH``'s absolute entries whose real path is
outside every workspace recorded with :func:`add_workspace`. agentci records the workspace as
soon as it knows it (a task's workspace before its first git call, the Action's delivery and
setup steps at start), so the choice is made before the agent acts; it is kept for the
process's life (one choice per program, ``PATH`` value and set of workspaces).
"""

from __future__ import annotations

import functools
import os
import shutil

#: Real paths of the folders agentci works on in this process: never searched for programs.
_WORKSPACES: list[str] = []


def add_workspace(path: str | os.PathLike[str]) -> None:
    """Record a folder the agent can write (the workspace, its original checkout): no program
    agentci runs on the host is taken from it or below it."""
    real = os.path.realpath(path)
    if real not in _WORKSPACES:
        _WORKSPACES.append(real)


def safe_path(value: str | None = None) -> str:
    """``value`` (default: agentci's ``PATH``) without empty or relative entries and without
    folders inside a recorded workspace (compared as real paths)."""
    value = os.environ.get("PATH", os.defpath) if value is None else value
    return _safe(value, tuple(_WORKSPACES))


def host_program(name: str, path: str | None = None) -> str | None:
    """The absolute path of ``name`` on ``path`` (default: agentci's ``PATH``) restricted to
    :func:`safe_path`; None when there is none. Chosen once per ``PATH`` value and set of
    recorded workspaces."""
    value = os.environ.get("PATH", os.defpath) if path is None else path
    return _which(name, value, tuple(_WORKSPACES))


def _inside(real: str, roots: tuple[str, ...]) -> bool:
    return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


@functools.cache
def _safe(value: str, roots: tuple[str, ...]) -> str:
    kept = [
        entry
        for entry in value.split(os.pathsep)
        if entry and os.path.isabs(entry) and not _inside(os.path.realpath(entry), roots)
    ]
    return os.pathsep.join(kept)


@functools.cache
def _which(name: str, value: str, roots: tuple[str, ...]) -> str | None:
    for folder in _safe(value, roots).split(os.pathsep):
        found = shutil.which(name, path=folder) if folder else None
        if found and not _inside(os.path.realpath(found), roots):  # nor a link into one
            return found
    return None
