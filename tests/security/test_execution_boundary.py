"""Nothing the agent wrote runs outside the sandbox: agentci's own git, verify, setup, hooks.

Each test is an attack as a model under an attacker's control would make it, through the
scripted model and the real ``agentci run``, with ``GEMINI_API_KEY`` and ``GITHUB_TOKEN`` in
agentci's environment; it wins when a canary reaches the escape folder outside the workspace,
the workspace, an output or the console.
"""

from __future__ import annotations

import base64
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from attack_case import AttackCase, make_attack, shell, tool
from listener import HostSocket

from agentci.policy.sandbox import bwrap_problem
from agentci.testing.cli import run_recipe

pytestmark = pytest.mark.skipif(
    bwrap_problem() is not None, reason=f"needs bwrap: {bwrap_problem()}"
)
PY = sys.executable


def test_headline_fsmonitor_planted_by_the_agent_never_runs_on_the_host(tmp_path: Path) -> None:
    """All defaults, a workspace that is not a git repository yet; four tool calls."""
    script = [
        tool("write_file", file_path="payload.sh", content=AttackCase(tmp_path).steal() + "\n"),
        shell("env -S 'git init -q'"),
        shell("env -S \"git config core.fsmonitor 'sh payload.sh'\""),
        tool("glob", pattern="**/*"),
        {"text": "done"},
    ]
    case = make_attack(tmp_path, script, git=False)
    run = case.run()
    assert run.code in (0, 1, 3), run.stderr[-2000:]
    assert not case.loot.exists()
    assert case.leaked(run) == []
    assert not (case.repo / ".git").exists()  # the placeholder agentci mounted is gone again


def test_git_init_cannot_create_a_repository_inside_the_sandbox(tmp_path: Path) -> None:
    attack = f"git init -q; mkdir -p .github/workflows; {PY} -c \"open('.agentci/y', 'w')\""
    case = make_attack(
        tmp_path, [shell(attack), {"text": "done"}], {"policy": {"mode": "yolo"}}, git=False
    )
    run = case.run()
    assert run.result["status"] == "no_changes", run.stderr[-2000:]  # nothing could be written
    for name in (".git", ".github", ".agentci"):
        assert not (case.repo / name).exists(), name


def test_a_workflow_cannot_be_created_when_the_folder_was_absent(tmp_path: Path) -> None:
    write = "open('.github/workflows/pwn.yml', 'w').write('on: push')"
    attack = f'mkdir -p .github/workflows; {PY} -c "{write}"'
    case = make_attack(tmp_path, [shell(attack), {"text": "done"}], {"policy": {"mode": "yolo"}})
    case.run()
    assert not (case.repo / ".github" / "workflows" / "pwn.yml").exists()
    assert not (case.repo / ".github").exists()


def test_a_git_dir_made_by_setup_is_protected(tmp_path: Path) -> None:
    attack = "git config core.fsmonitor 'sh payload.sh'"
    case = make_attack(
        tmp_path,
        [shell(attack), {"text": "done"}],
        {"policy": {"mode": "yolo"}, "setup": ["git init -q"]},
        git=False,
    )
    case.run()
    assert "fsmonitor" not in (case.repo / ".git" / "config").read_text()


def test_a_test_written_by_the_agent_runs_in_the_sandbox(tmp_path: Path) -> None:
    loot = AttackCase(tmp_path).loot
    test = (
        "import glob, pathlib\n\n\n"
        "def test_steal():\n"
        "    found = []\n"
        "    for f in glob.glob('/proc/[0-9]*/environ'):\n"
        "        try:\n"
        "            found += [v for v in open(f, 'rb').read().split(b'\\0') if b'_TOKEN=' in v"
        " or b'_KEY=' in v]\n"
        "        except OSError:\n"
        "            pass\n"
        f"    pathlib.Path({str(loot)!r}).write_bytes(b'\\n'.join(found))\n"
        "    assert not found, found\n"
    )
    script = [tool("write_file", file_path="tests/test_steal.py", content=test), {"text": "ok"}]
    case = make_attack(
        tmp_path,
        script,
        {"verify": {"command": f"{PY} -m pytest -q -p no:cacheprovider tests", "attempts": 1}},
        {"tests/test_ok.py": "def test_ok():\n    assert False\n"},
    )
    run = case.run()
    assert run.result["status"] == "verify_failed", run.stderr[-2000:]
    assert not case.loot.exists()
    assert case.leaked(run) == []


ONLY_LOOPBACK = f'{PY} -c "import socket, sys; sys.exit(len(socket.if_nameindex()) - 1)"'


@pytest.mark.parametrize("verify_network, isolated", [(None, True), (False, True), (True, False)])
def test_verify_network_follows_the_policy_unless_set(
    tmp_path: Path, verify_network: bool | None, isolated: bool
) -> None:
    verify = {"command": ONLY_LOOPBACK, "attempts": 1}
    if verify_network is not None:
        verify["network"] = verify_network
    case = make_attack(tmp_path, [{"text": "done"}], {"verify": verify, "allow_no_changes": True})
    run = case.run()
    baseline = next(e for e in run.events if e.type == "verify_result")
    assert baseline.passed is isolated, baseline.output_tail


def test_setup_of_a_later_task_runs_in_the_sandbox(tmp_path: Path) -> None:
    steal = AttackCase(tmp_path).steal()
    first = [tool("write_file", file_path="bootstrap.sh", content=steal), {"text": "ok"}]
    second = [{"text": "nothing to do"}]
    tasks = [
        {"name": "one", "prompt": "first"},
        {"name": "two", "prompt": "second", "model": {"name": "scripted:second.yaml"}},
    ]
    case = make_attack(
        tmp_path,
        first,
        {"setup": ["sh bootstrap.sh"], "tasks": tasks, "allow_no_changes": True},
        {"bootstrap.sh": "true\n"},
        scripts={"second.yaml": second},
    )
    run = case.run()
    assert (case.repo / "bootstrap.sh").read_text() == case.steal()  # task one's work is there
    assert [e.status for e in run.events if e.type == "task_finished"] == ["success", "no_changes"]
    assert not case.loot.exists()
    assert case.leaked(run) == []


def test_a_hook_does_not_import_a_module_the_agent_planted(tmp_path: Path) -> None:
    payload = f"import os\nos.system({AttackCase(tmp_path).steal()!r})\n"
    script = [
        tool("write_file", file_path="json.py", content=payload),
        tool("read_file", file_path="README.md"),
        {"text": "done"},
    ]
    hook = {"matcher": "read_file", "command": f"{PY} -c 'import json, sys; json.load(sys.stdin)'"}
    case = make_attack(tmp_path, script, {"hooks": {"before_tool": [hook]}})
    run = case.run()
    results = [e for e in run.events if e.type == "hook_result"]
    assert results and results[0].decision == "continue", results
    assert not case.loot.exists()
    assert case.leaked(run) == []


def test_a_hook_script_the_agent_rewrote_does_not_run(tmp_path: Path) -> None:
    """Without a sandbox (explicitly), in yolo: the agent rewrites the hook script the recipe
    in the workspace names; the hook runs the private copy made before the first model call,
    so the rewrite runs nothing."""
    steal = AttackCase(tmp_path).steal()
    code = base64.b64encode(steal.encode()).decode()
    rewrite = (
        f"{PY} -c \"import base64; open('ci/check.sh', 'wb').write(base64.b64decode('{code}'))\""
    )
    script = [shell(rewrite), tool("read_file", file_path="README.md"), {"text": "done"}]
    case = make_attack(tmp_path, script, files={"README.md": "x\n", "ci/check.sh": "exit 0\n"})
    (case.repo / "ci" / "check.sh").chmod(0o755)
    recipe = {
        "version": 1,
        "name": "attack",
        "model": {"name": "scripted:../../script.yaml"},
        "prompt": "Do the work.",
        "sandbox": "none",
        "policy": {"mode": "yolo"},
        "hooks": {"before_tool": [{"matcher": "read_file", "command": "./check.sh"}]},
    }
    (case.repo / "ci" / "recipe.yaml").write_text(yaml.safe_dump(recipe))
    run = run_recipe(case.repo / "ci" / "recipe.yaml", case.out, cwd=case.repo)
    assert (case.repo / "ci" / "check.sh").read_text() == steal  # the rewrite happened
    results = [e for e in run.events if e.type == "hook_result"]
    assert [r.decision for r in results] == ["continue"]  # the copy, as it was at the start
    assert not case.loot.exists()


def _two_tasks(tmp_path: Path, bootstrap: str, setup: object) -> AttackCase:
    """Task one (the agent) rewrites ``bootstrap.sh``; task two's setup runs it."""
    first = [tool("write_file", file_path="bootstrap.sh", content=bootstrap), {"text": "ok"}]
    tasks = [
        {"name": "one", "prompt": "first"},
        {"name": "two", "prompt": "second", "model": {"name": "scripted:second.yaml"}},
    ]
    return make_attack(
        tmp_path,
        first,
        {"setup": setup, "tasks": tasks, "allow_no_changes": True},
        {"bootstrap.sh": "true\n"},
        scripts={"second.yaml": [{"text": "nothing to do"}]},
    )


def test_a_later_setup_cannot_reach_a_host_socket(tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="agentci-sock-", dir="/var/tmp"))
    sock = HostSocket(folder / "docker.sock")
    try:
        case = _two_tasks(tmp_path, sock.connect_command() + "\n", ["sh bootstrap.sh"])
        run = case.run()
        assert [e.status for e in run.events if e.type == "task_finished"] == [
            "success",
            "invalid_input",
        ]
        assert sock.got == []
    finally:
        sock.close()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("network, isolated", [(None, True), (False, True), (True, False)])
def test_a_later_setup_has_no_network_unless_set(
    tmp_path: Path, network: bool | None, isolated: bool
) -> None:
    setup: dict[str, object] = {"commands": ["sh bootstrap.sh"]}
    if network is not None:
        setup["network"] = network
    case = _two_tasks(tmp_path, ONLY_LOOPBACK + "\n", setup)
    run = case.run()
    second = "no_changes" if isolated else "invalid_input"
    statuses = [e.status for e in run.events if e.type == "task_finished"]
    assert statuses == ["success", second], run.stderr[-2000:]


def test_a_verify_report_linked_to_agentci_environ_is_not_read_or_written_back(
    tmp_path: Path,
) -> None:
    """The agent points the report path at ``/proc/self/environ``: read on the host, that is
    agentci's own environment (the keys); written back, it would land in the patch."""
    verify = {
        "command": f"{PY} -m pytest -q -p no:cacheprovider --junitxml=reports/junit.xml tests",
        "junit": "reports/junit.xml",
        "attempts": 1,
    }
    plant = shell("mkdir -p reports && ln -sf /proc/self/environ reports/junit.xml")
    case = make_attack(
        tmp_path,
        [plant, {"text": "done"}],
        {"policy": {"mode": "yolo"}, "verify": verify},
        {"tests/test_x.py": "def test_x():\n    assert False\n"},
    )
    run = case.run()
    assert run.result["status"] == "verify_failed", run.stderr[-2000:]
    assert case.leaked(run) == []
    # verify's own report there is put back (the verdict is about the patch): the agent's link
    # again, never a file holding what the link points at
    report = case.repo / "reports" / "junit.xml"
    assert report.is_symlink() and os.readlink(report) == "/proc/self/environ"


MANAGER = f'{PY} -c "import multiprocessing; multiprocessing.Manager().shutdown()"'


@pytest.mark.parametrize("host_sockets, passes", [(None, False), (True, True)])
def test_verify_that_needs_its_own_unix_sockets_says_how_to_open_them(
    tmp_path: Path, host_sockets: bool | None, passes: bool
) -> None:
    verify: dict[str, object] = {"command": MANAGER, "attempts": 1}
    if host_sockets is not None:
        verify["host_sockets"] = host_sockets
    case = make_attack(tmp_path, [{"text": "done"}], {"verify": verify, "allow_no_changes": True})
    run = case.run()
    baseline = next(e for e in run.events if e.type == "verify_result")
    assert baseline.passed is passes, baseline.output_tail
    hint = "the sandbox refuses Unix sockets unless verify.host_sockets is true"
    assert (hint in baseline.output_tail) is not passes
