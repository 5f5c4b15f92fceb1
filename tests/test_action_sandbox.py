"""The Action makes bubblewrap work on ubuntu-latest (24.04), where AppArmor restricts the
unprivileged user namespaces bwrap needs (``kernel.apparmor_restrict_unprivileged_userns=1``).

A stand-in ``bwrap`` on the job's PATH fails as 24.04's does until the stand-in
``apparmor_parser`` (or ``sysctl``) was run; then it is the real bubblewrap. The Action's
sandbox step must load the narrowest AppArmor profile (bwrap alone), fall back to the sysctl,
probe again with agentci's own probe, and say which it did.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_action import FIX, Job, _bin_dir

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("bwrap"), reason="needs root and bubblewrap"
)

DENIED = [
    "bwrap: setting up uid map: Permission denied",
    "bwrap: No permissions to create new namespace, likely because the kernel does not allow "
    "non-privileged user namespaces.",
]


class Restricted:
    """Stand-ins for a 24.04 runner: ``bwrap`` refused until ``allowed`` exists; the
    ``apparmor_parser`` and ``sysctl`` stand-ins log their arguments and, when they "work",
    create ``allowed``."""

    def __init__(self, base: Path, message: str = DENIED[0]) -> None:
        self.bin = base / "restricted-bin"
        self.bin.mkdir()
        self.allowed = base / "allowed"
        self.log = base / "root-commands.log"
        self.apparmor_dir = base / "apparmor.d"
        self.apparmor_dir.mkdir()
        self._script(
            "bwrap",
            f'[ -e "{self.allowed}" ] || {{ echo "{message}" >&2; exit 1; }}\n'
            f'exec {shutil.which("bwrap")} "$@"\n',
        )

    def _script(self, name: str, body: str) -> None:
        path = self.bin / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)

    def tool(self, name: str, works: bool) -> None:
        """A stand-in ``name`` that logs its call and allows bwrap (``works``) or fails."""
        then = f'touch "{self.allowed}"\nexit 0\n' if works else "echo refused >&2\nexit 1\n"
        self._script(name, f'echo "{name} $*" >> "{self.log}"\n{then}')

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    with _bin_dir() as path:
        yield path


@pytest.fixture
def job(tmp_path: Path, bin_dir: Path) -> Job:
    return Job(tmp_path, bin_dir)


@pytest.fixture
def host(bin_dir: Path) -> Restricted:
    # Under /var/tmp like the job's programs: the sandbox's /tmp is private.
    return Restricted(bin_dir)


def _run(job: Job, host: Restricted, **kw):
    env = {"AGENTCI_APPARMOR_DIR": str(host.apparmor_dir)}
    return job.run(FIX, path=f"{host.bin}:{job.path}", extra_env=env, **kw)


@pytest.mark.parametrize("message", DENIED, ids=["uid-map", "no-permissions"])
def test_an_apparmor_profile_for_bwrap_alone_makes_the_sandbox_work(
    job, bin_dir: Path, message: str
):
    host = Restricted(bin_dir, message)
    host.tool("apparmor_parser", works=True)
    host.tool("sysctl", works=True)
    run = _run(job, host)
    profile = host.apparmor_dir / "bwrap"
    assert host.calls() == [f"apparmor_parser -r {profile}"]  # the sysctl was not needed
    assert "abi <abi/4.0>," in profile.read_text()
    assert "include <tunables/global>" in profile.read_text()
    assert f"profile bwrap {host.bin / 'bwrap'} flags=(unconfined) {{\n  userns,\n}}\n" in (
        profile.read_text()
    )
    step = run.step("Bubblewrap")
    assert f"AppArmor profile {profile}" in step.stdout, run.log
    assert run.outputs["sandbox-fix"] == "apparmor"
    assert run.outputs["sandboxed"] == "true"
    assert run.outputs["status"] == "success", run.log


def test_the_sysctl_is_the_fallback_when_no_profile_can_be_loaded(job, host: Restricted):
    host.tool("apparmor_parser", works=False)
    host.tool("sysctl", works=True)
    run = _run(job, host, stop_after="sandbox")
    assert host.calls() == [
        f"apparmor_parser -r {host.apparmor_dir / 'bwrap'}",
        "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
    ]
    step = run.step("Bubblewrap")
    assert "allowed for every program with sysctl" in step.stdout, run.log
    assert run.outputs["sandbox-fix"] == "sysctl"
    assert step.outputs["problem"] == ""


def test_when_nothing_helps_the_step_warns_and_agentci_refuses(job, host: Restricted):
    host.tool("apparmor_parser", works=False)
    host.tool("sysctl", works=False)
    run = _run(job, host)
    step = run.step("Bubblewrap")
    assert "::warning title=agentci sandbox::bubblewrap does not work here" in step.stdout
    assert run.outputs["sandbox-fix"] == ""
    assert run.outputs["sandboxed"] == "false"
    assert run.outputs["exit-code"] == "2"
    assert "refused to run without the sandbox" in run.summary
    assert "setting up uid map: Permission denied" in run.summary
    assert "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" in run.summary


def test_a_working_bubblewrap_is_left_as_it_is(job, host: Restricted):
    host.tool("apparmor_parser", works=True)
    host.tool("sysctl", works=True)
    host.allowed.touch()
    run = _run(job, host, stop_after="sandbox")
    assert host.calls() == []
    assert list(host.apparmor_dir.iterdir()) == []
    assert run.outputs["sandbox-fix"] == ""
    assert "agentci: bubblewrap works\n" in run.step("Bubblewrap").stdout


def test_install_bubblewrap_false_changes_nothing_on_the_host(job, host: Restricted):
    host.tool("apparmor_parser", works=True)
    host.tool("sysctl", works=True)
    run = _run(job, host, stop_after="sandbox", inputs={"install-bubblewrap": "false"})
    assert host.calls() == []
    assert run.step("Bubblewrap").outputs["problem"].endswith("Permission denied")
