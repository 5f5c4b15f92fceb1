"""The environment a child process gets: an allowlist, never the parent's secrets.

API keys, ``GITHUB_TOKEN``, ``ACTIONS_*`` runtime tokens and anything else not on the
list never reach a tool. A recipe can add names with ``policy.env_passthrough``; that is
the recipe author's explicit choice and is the only way a secret-looking variable gets
through — except the GitHub tokens of :data:`NEVER_PASSED`, which never do.
"""

from __future__ import annotations

import contextlib
import ctypes  # every run: prctl and its environment block (make_undumpable, hide_initial_environ)
import os
import re
import sys
from collections.abc import Mapping, Sequence

from agentci.childproc import SANDBOX_PYCACHE_PREFIX

#: Variables a tool process inherits from agentci's own environment when set.
ALLOWED: tuple[str, ...] = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TERM",
    "TMPDIR",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "JAVA_HOME",
    "GOPATH",
    "GOROOT",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "NVM_DIR",
    "PYENV_ROOT",
    "CI",
)

#: Always set for tool processes: no prompts, no pagers, no editors.
FORCED: dict[str, str] = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": "true",
    "EDITOR": "true",
    "DEBIAN_FRONTEND": "noninteractive",
}

#: Set for tool processes unless the recipe passes its own value: the model's commands write no
#: bytecode and no tool caches into the workspace (the environment verify gets too), so that
#: running the tests does not add ``__pycache__/`` or ``.pytest_cache/`` to the change.
NO_CACHES: dict[str, str] = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONPYCACHEPREFIX": SANDBOX_PYCACHE_PREFIX,  # on the host: HOST_PYCACHE_PREFIX
    "PYTEST_ADDOPTS": "-p no:cacheprovider",
    "RUFF_NO_CACHE": "true",
    "MYPY_CACHE_DIR": os.devnull,
}

#: Tokens that give write access to the repository or the runner: never passed to a tool, not
#: even when ``policy.env_passthrough`` names them (the Action's PR and comment delivery uses
#: its token outside agentci's run, see docs/github-action.md).
NEVER_PASSED: frozenset[str] = frozenset(
    {
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "GH_ENTERPRISE_TOKEN",
        "GITHUB_ENTERPRISE_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_URL",
    }
)

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE", re.I)


def looks_secret(name: str) -> bool:
    """Whether a variable name looks like it holds a secret."""
    return bool(SECRET_NAME.search(name)) or name.startswith("ACTIONS_")


def child_env(
    passthrough: Sequence[str] = (), *, source: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Build the allowlisted environment for tool, setup and verify processes.

    ``passthrough`` names extra variables copied from ``source`` (default ``os.environ``)
    when set. Everything else is dropped. :data:`FORCED` is always set, :data:`NO_CACHES`
    unless passed through.
    """
    src = os.environ if source is None else source
    env: dict[str, str] = {}
    for name in ALLOWED:
        if name in src and not looks_secret(name):
            env[name] = src[name]
    for name in passthrough:
        if name in src and name.upper() not in NEVER_PASSED:
            env[name] = src[name]
    env.setdefault("PATH", os.defpath)
    env.update(FORCED)
    for name, value in NO_CACHES.items():
        env.setdefault(name, value)
    return env


def make_undumpable() -> bool:
    """Make agentci's process non-dumpable (Linux ``prctl(PR_SET_DUMPABLE, 0)``).

    ``/proc/<agentci>/environ`` (and ``mem``, ``fd``…) then belongs to root, so a child running
    as the same non-root user — a command without the sandbox — cannot read agentci's API
    keys there. A root child still can: only the sandbox's PID namespace hides agentci from
    it, and :func:`hide_initial_environ` blanks the values. Returns whether it worked (False
    off Linux).
    """
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_dumpable = 4
        return libc.prctl(pr_set_dumpable, 0, 0, 0, 0) == 0
    return False


def hide_initial_environ() -> int:
    """Blank the values in the environment block the kernel shows as ``/proc/<agentci>/environ``.

    That file is the memory the process started with, and root reads it even when the process
    is non-dumpable (:func:`make_undumpable`): a hook or command running as root, such as a
    project's own Python that a hook starts, could read agentci's API keys there. Each variable
    is first set again (``setenv``: a copy on the heap that children started without an explicit
    environment inherit; ``os.environ`` keeps its own copy), then its value in the original
    block is overwritten with NUL bytes. Returns how many values were blanked (0 off Linux).
    """
    if not sys.platform.startswith("linux"):
        return 0
    blanked = 0
    with contextlib.suppress(OSError, AttributeError, ValueError):
        libc = ctypes.CDLL(None)
        environ = ctypes.POINTER(ctypes.c_void_p).in_dll(libc, "environ")
        entries: list[tuple[int, bytes]] = []
        while environ[len(entries)]:
            address = environ[len(entries)]
            entries.append((address, ctypes.string_at(address)))
        for address, entry in entries:
            name, sep, value = entry.partition(b"=")
            if not sep or not name or not value:
                continue
            os.putenv(name, value)  # the C environment now points at a copy
            if address not in {environ[i] for i in range(len(entries))}:  # blank the original
                ctypes.memset(address + len(name) + 1, 0, len(value))
                blanked += 1
    return blanked
