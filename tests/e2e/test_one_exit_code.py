"""One exit code per run that tells the truth (issue 10), through the real ``agentci`` command.

* A run of several tasks exits with its worst task's code, each task judged with its own
  ``allow_no_changes``.
* A verify command that cannot run (exit 126 / 127, ``runner: pytest`` without a JUnit report)
  is ``invalid_input`` at the baseline: exit 2 before any model call.
* A guard that reverts files says so: a ``warning`` event (``guard_reverted``), a failing
  ``guard:<name>`` testcase, a line in summary.md.
"""

from __future__ import annotations

from pathlib import Path

import junitparser
import pytest
import yaml
from e2e_scenario import assert_agree, make_case, write_call

from agentci.events import types as ev

WRITE_THEN_DONE = [write_call("new.txt", "x\n"), {"text": "done"}]


@pytest.mark.parametrize(
    ("allow", "status", "code"), [(True, "success", 0), (False, "no_changes", 1)]
)
def test_several_tasks_exit_with_the_worst_tasks_own_code(
    tmp_path: Path, allow: bool, status: str, code: int
):
    tasks = [
        {"name": "writes", "prompt": "Write it."},
        {
            "name": "idle",
            "prompt": "Nothing to do.",
            "model": {"name": "scripted:idle.yaml"},
            "allow_no_changes": allow,
        },
    ]
    case = make_case(tmp_path, WRITE_THEN_DONE, {"prompt": None, "tasks": tasks})
    data = {k: v for k, v in yaml.safe_load(case.recipe.read_text()).items() if v is not None}
    case.recipe.write_text(yaml.safe_dump(data))
    (tmp_path / "idle.yaml").write_text(yaml.safe_dump([{"text": "nothing to do"}]))
    run = case.run()
    assert_agree(run, status, code)
    tasks_out = [(t["name"], t["status"], t["exit_code"]) for t in run.result["tasks"]]
    assert tasks_out == [("writes", "success", 0), ("idle", "no_changes", 0 if allow else 1)]


def _no_model_call(run) -> None:
    assert not [e for e in run.events if isinstance(e, ev.TurnStarted)]
    assert run.result["usage"]["model_calls"] == 0
    assert run.patch == ""


@pytest.mark.parametrize(
    ("verify", "files", "says"),
    [
        ({"command": "agentci-no-such-ruff check ."}, {}, "not found (exit 127)"),
        ({"command": "./check.sh"}, {"check.sh": "#!/bin/sh\nexit 0\n"}, "exit 126"),
        (
            {"command": "echo checking; exit 1", "runner": "pytest"},
            {},
            "runner: pytest, but the command wrote no JUnit report",
        ),
        (
            {"command": "echo checking; exit 1", "junit": ".agentci/verify.xml"},
            {},
            "junit: .agentci/verify.xml, but the command wrote no JUnit report at "
            ".agentci/verify.xml",
        ),
    ],
    ids=["127", "126", "pytest-without-junit", "junit-missing"],
)
def test_a_verify_command_that_cannot_run_is_invalid_input_before_any_model_call(
    tmp_path: Path, verify: dict, files: dict, says: str
):
    case = make_case(tmp_path, WRITE_THEN_DONE, {"verify": verify}, {"README.md": "x\n", **files})
    run = case.run()
    assert_agree(run, "invalid_input", 2)
    _no_model_call(run)
    reason = run.result["tasks"][0]["reason"]
    assert reason.startswith(f"verify.command cannot run: {verify['command']}: "), reason
    assert says in reason
    if "echo" in verify["command"]:
        assert reason.endswith("checking")  # the output's tail follows the command
    baseline = [e for e in run.events if isinstance(e, ev.VerifyResult)]
    assert [e.phase for e in baseline] == ["baseline"]


def test_a_guard_that_reverted_a_file_is_visible_even_when_the_task_succeeds(tmp_path: Path):
    script = [
        {
            "calls": [
                {"name": "write_file", "args": {"file_path": "tests/test_x.py", "content": "1\n"}},
                {"name": "write_file", "args": {"file_path": "app.py", "content": "x = 2\n"}},
            ]
        },
        {"text": "done"},
        {"text": "understood, leaving the tests alone"},
    ]
    case = make_case(tmp_path, script, {"guards": {"forbid_test_edits": ["tests/**"]}})
    run = case.run()
    assert_agree(run, "success", 0)
    assert "app.py" in run.patch and "tests/test_x.py" not in run.patch
    notes = [e for e in run.events if isinstance(e, ev.WarningEvent) and e.kind == "guard_reverted"]
    (note,) = [n.message for n in notes]
    assert note.startswith(
        "guard forbid_test_edits reverted 1 file(s), not in the patch: tests/test_x.py (as they "
        "were before the revert: .agentci/reverted/"
    )
    xml = junitparser.JUnitXml.fromfile(str(run.out / "junit.xml"))
    guard = next(c for s in xml for c in s if c.name == "guard:forbid_test_edits")
    assert [type(r) for r in guard.result] == [junitparser.Failure]
    assert "tests/test_x.py" in guard.result[0].message
    summary = (run.out / "summary.md").read_text()
    assert "- **forbid_test_edits**: " in summary
    assert "reverted, not in the patch: `tests/test_x.py`" in summary
