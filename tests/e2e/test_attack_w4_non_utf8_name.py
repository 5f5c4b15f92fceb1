"""A file the agent creates with a name that is not UTF-8 (bytes a Latin-1 tool wrote, b"caf\\xe9.txt")
must not end the run as an internal error with an empty patch.diff: the run's work is in the
workspace, verify passed, and every output must say so."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from e2e_scenario import jsonl_lines

from agentci.testing.case import write_case

pytestmark = pytest.mark.skipif(not Path("/usr/bin/bwrap").exists(), reason="needs bubblewrap")

ALLOW_SHELL = {"rules": [{"tool": "run_shell_command", "decision": "allow"}]}
MAKE = "python3 -c \"open('fixed.txt', 'w').write('ok\\n'); open(b'caf\\xe9.txt', 'wb').write(b'l1\\n')\""


def test_attack_w4_a_file_name_that_is_not_utf8_keeps_the_run_and_its_patch(tmp_path: Path):
    script = [
        {"calls": [{"name": "run_shell_command", "args": {"command": MAKE}}]},
        {"text": "done"},
    ]
    case = write_case(
        tmp_path, script, {"verify": {"command": "test -f fixed.txt"}, "policy": ALLOW_SHELL}
    )
    base = tmp_path / "base"
    subprocess.run(["git", "clone", "-q", str(case.repo), str(base)], check=True)
    run = case.run("-q")
    result = yaml.safe_load((case.out / "result.json").read_text())
    last = jsonl_lines(case.out / "events.jsonl")[-1]
    assert (run.code, result["status"]) == (0, "success"), run.stderr[-600:]
    assert (last["type"], last["status"]) == ("run_finished", "success")
    patch = (case.out / "patch.diff").read_bytes()
    subprocess.run(["git", "apply", "--binary", "-"], cwd=base, input=patch, check=True)
    assert (base / "fixed.txt").read_text() == "ok\n"
    assert (base / "caf\udce9.txt").read_bytes() == b"l1\n"
