"""Make bubblewrap work on the runner before agentci runs: install it, and on hosts that restrict
unprivileged user namespaces (Ubuntu 24.04's ``kernel.apparmor_restrict_unprivileged_userns=1``,
ubuntu-latest) allow them for bwrap alone.

The narrowest change comes first: an AppArmor profile for the bwrap binary that grants
``userns`` (written to ``/etc/apparmor.d/bwrap`` and loaded with ``apparmor_parser -r``). Only
when that does not make bubblewrap work is the restriction lifted for every program
(``sysctl -w kernel.apparmor_restrict_unprivileged_userns=0``). After each change bubblewrap is
probed again (:func:`agentci.policy.sandbox.bwrap_problem`), and the result says which change,
if any, made it work. Commands that need root run through ``sudo -n`` when the job is not root
(GitHub-hosted runners allow it); none of this is ever done by ``agentci run`` itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentci.delivery.context import DeliveryError
from agentci.delivery.process import run_bounded
from agentci.hostprog import host_program
from agentci.policy.sandbox import bwrap_problem

SYSCTL = "kernel.apparmor_restrict_unprivileged_userns"
#: Where the profile goes; ``AGENTCI_APPARMOR_DIR`` names another folder (tests).
APPARMOR_DIR = "/etc/apparmor.d"
PROFILE = """\
# Written by agentci: lets bubblewrap (agentci's tool sandbox) create user namespaces where
# kernel.apparmor_restrict_unprivileged_userns=1. Nothing else is allowed or confined.
abi <abi/4.0>,
include <tunables/global>

profile bwrap {path} flags=(unconfined) {{
  userns,
}}
"""
# What bubblewrap says when user namespaces are refused (by AppArmor, a sysctl or seccomp).
_USERNS = re.compile(
    r"uid map|setting up|namespace|Operation not permitted|Permission denied", re.IGNORECASE
)
COMMAND_TIMEOUT = 300  # seconds for apt-get; the others are quick


@dataclass
class SandboxSetup:
    """What was done and what is left."""

    problem: str  # why bubblewrap still does not work ('' when it does)
    fix: str  # '', 'apparmor' or 'sysctl': what made user namespaces work
    installed: bool  # bubblewrap was installed with apt-get


def _tool(name: str) -> str | None:
    """``name`` on PATH, else in /usr/sbin or /sbin (not on every job's PATH)."""
    found = host_program(name)
    if found is None:
        found = next(
            (p for p in (f"/usr/sbin/{name}", f"/sbin/{name}") if os.access(p, os.X_OK)), None
        )
    return found


def _as_root(argv: list[str]) -> list[str]:
    return argv if os.geteuid() == 0 else ["sudo", "-n", *argv]


def _run(argv: list[str], say: Callable[[str], None], stdin: str | None = None) -> bool:
    try:
        done = run_bounded(
            _as_root(argv),
            env=os.environ,
            timeout=COMMAND_TIMEOUT,
            what=argv[0],
            stdin=None if stdin is None else stdin.encode(),
        )
    except DeliveryError as exc:
        say(f"agentci: {exc}")
        return False
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()
        say(f"agentci: {' '.join(argv[:2])} failed: {said[-1] if said else done.returncode}")
    return done.returncode == 0


def probe() -> str:
    """Why bubblewrap does not work now ('' when it does): a fresh probe, not the cached one."""
    bwrap_problem.cache_clear()
    return bwrap_problem() or ""


def _install(say: Callable[[str], None]) -> bool:
    if host_program("apt-get") is None:
        say("agentci: bubblewrap is missing and there is no apt-get to install it")
        return False
    say("agentci: installing bubblewrap")
    return _run(["apt-get", "update", "-qq"], say) and _run(
        ["apt-get", "install", "-y", "-qq", "bubblewrap"], say
    )


def _apparmor_profile(bwrap: str, say: Callable[[str], None]) -> bool:
    parser = _tool("apparmor_parser")
    if parser is None:
        return False
    folder = Path(os.environ.get("AGENTCI_APPARMOR_DIR") or APPARMOR_DIR)
    target = folder / "bwrap"
    text = PROFILE.format(path=bwrap)
    if os.geteuid() == 0:
        try:
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            say(f"agentci: cannot write {target}: {exc}")
            return False
    elif not _run(["tee", str(target)], say, stdin=text):
        return False
    return _run([parser, "-r", str(target)], say)


def prepare_sandbox(install: bool, say: Callable[[str], None] = print) -> SandboxSetup:
    """Install bubblewrap when missing, then allow its user namespaces where they are
    restricted; each step followed by a probe. ``install`` false changes nothing on the host
    (only the probe). ``say`` gets one line per thing done."""
    if not install:
        return SandboxSetup(probe(), "", False)
    installed = False
    if host_program("bwrap") is None:
        installed = _install(say)
    problem = probe()
    bwrap = host_program("bwrap")
    if not problem or bwrap is None or not _USERNS.search(problem):
        return SandboxSetup(problem, "", installed)
    say(f"agentci: {problem}: allowing user namespaces for bubblewrap")
    real = os.path.realpath(bwrap)
    if _apparmor_profile(real, say):
        problem = probe()
        if not problem:
            return SandboxSetup("", "apparmor", installed)
    sysctl = _tool("sysctl")
    if sysctl is not None and _run([sysctl, "-w", f"{SYSCTL}=0"], say):
        problem = probe()
        if not problem:
            return SandboxSetup("", "sysctl", installed)
    return SandboxSetup(problem, "", installed)


def describe(setup: SandboxSetup, bwrap: str | None) -> str:
    """One log line saying how bubblewrap came to work (or that it does not)."""
    where = os.path.realpath(bwrap) if bwrap else "bwrap"
    if setup.problem:
        return f"agentci: bubblewrap does not work: {setup.problem}"
    if setup.fix == "apparmor":
        folder = os.environ.get("AGENTCI_APPARMOR_DIR") or APPARMOR_DIR
        return (
            f"agentci: bubblewrap works: user namespaces allowed for {where} alone by the "
            f"AppArmor profile {folder}/bwrap"
        )
    if setup.fix == "sysctl":
        return (
            f"agentci: bubblewrap works: user namespaces allowed for every program with "
            f"sysctl {SYSCTL}=0 (no AppArmor profile could be loaded)"
        )
    return "agentci: bubblewrap works"
