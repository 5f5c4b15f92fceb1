"""The bubblewrap sandbox for tool commands (docs/policy.md).

Inside: the root file system read-only, the workspace writable (except its protected
paths, mounted read-only over it), a private ``/tmp``, a private ``/proc`` in a new PID
namespace (the parent's environment and processes are not visible), no network unless
the recipe sets ``policy.network: true``, a new session (no terminal injection), and
``--die-with-parent`` so nothing outlives agentci. Killing the sandbox's process kills
every process inside it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentci.errors import InvalidInput
from agentci.policy.paths import is_below


@dataclass(frozen=True)
class Sandbox:
    """How to wrap a command in bubblewrap."""

    workspace: Path
    network: bool = False
    readonly: tuple[Path, ...] = field(default_factory=tuple)
    bwrap: str = "bwrap"

    def wrap(self, argv: Sequence[str], cwd: Path) -> list[str]:
        """The bwrap command line that runs ``argv`` in ``cwd`` inside the sandbox."""
        ws = str(self.workspace)
        args = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        args += ["--tmpfs", "/tmp", "--bind", ws, ws]
        for p in self.readonly:
            args += ["--ro-bind", str(p), str(p)]
        if not self.network:
            args.append("--unshare-net")
        args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent"]
        args += ["--new-session", "--chdir", str(cwd), "--", *argv]
        return args


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot be used here, or None when it works (checked once)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bubblewrap (bwrap) is not installed"
    probe = [
        exe,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--unshare-net",
        "--unshare-pid",
        "--die-with-parent",
        "--new-session",
        "true",
    ]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap does not start: {exc}"
    if done.returncode != 0:
        msg = done.stderr.decode(errors="replace").strip().splitlines()
        return "bubblewrap does not work here: " + (msg[-1] if msg else f"exit {done.returncode}")
    return None


def make_sandbox(
    mode: str, *, workspace: Path, network: bool, readonly: Sequence[Path] = ()
) -> tuple[Sandbox | None, str | None]:
    """Pick the sandbox for a task's tool commands.

    ``mode`` is the recipe's ``sandbox``: ``none`` → no sandbox; ``bwrap`` → bubblewrap or
    :class:`InvalidInput`; ``auto`` → bubblewrap when it works, else no sandbox and a
    warning (the ``sandbox_unavailable`` event's text). ``readonly`` lists protected paths
    inside the workspace to mount read-only (``.git`` and ``.agentci`` are added here).
    """
    if mode == "none":
        return None, None
    if mode not in ("auto", "bwrap"):
        raise InvalidInput(f"unknown sandbox mode {mode!r} (auto, bwrap or none)")
    problem = bwrap_problem()
    if problem is not None:
        if mode == "bwrap":
            raise InvalidInput(f"sandbox: bwrap was asked for, but {problem}")
        return None, f"{problem}; tool commands run without a sandbox"
    ws = Path(os.path.realpath(workspace))
    ro: list[Path] = []
    for p in [*readonly, ws / ".git", ws / ".agentci"]:
        real = Path(os.path.realpath(p))
        if real.exists() and real != ws and real not in ro and is_below(real, ws):
            ro.append(real)
    exe = shutil.which("bwrap") or "bwrap"
    return Sandbox(workspace=ws, network=network, readonly=tuple(ro), bwrap=exe), None
