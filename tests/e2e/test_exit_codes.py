"""Every status of docs/exit-codes.md reaches the process exit code through the real CLI.

Each row provokes its status honestly — a scripted model, the fake Gemini server, a bad recipe,
a model that deletes agentci's own baseline — and checks that the exit code,
result.json, the last event (``run_finished``) and summary.md agree. ``cancelled`` (130 / 143)
is covered by test_signals.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_scenario import Case, assert_agree, make_case, write_call

from agentci.events import types as ev
from agentci.outcome import EXIT_CODES, Status
from agentci.testing.fake_gemini import FakeGemini

FAST_RETRY = {"attempts": 3, "initial_delay_seconds": 0, "max_delay_seconds": 0}
READ_SAME = {"calls": [{"name": "read_file", "args": {"file_path": "README.md"}}]}
WRITE_THEN_DONE = [write_call("new.txt", "x\n"), {"text": "done"}]


@dataclass
class Row:
    """One way to end a run: the script (or fake-server turns), the recipe, the expectation."""

    status: str
    code: int
    script: list[Any] | None = None
    recipe: dict[str, Any] = field(default_factory=dict)
    fake_turns: list[Any] | None = None
    prepare: Callable[[Path, dict[str, Any]], dict[str, str]] | None = None


def broken_baseline(root: Path, recipe: dict[str, Any]) -> dict[str, str]:
    """The model deletes agentci's private baseline with an allowed shell command (no sandbox):
    the patch cannot be computed, an error no input validation could foresee — internal_error,
    not a crash."""
    tmp = root / "tmpdir"
    tmp.mkdir()
    recipe["policy"] = {
        "rules": [{"tool": "run_shell_command", "command": "rm", "decision": "allow"}]
    }
    (root / "script.yaml").write_text(
        yaml.safe_dump(
            [
                {"calls": [{"name": "run_shell_command", "args": {"command": f"rm -rf {tmp}"}}]},
                {"text": "done"},
            ]
        )
    )
    return {"TMPDIR": str(tmp)}


ROWS = [
    Row("success", 0, WRITE_THEN_DONE),
    Row("no_changes", 1, [{"text": "nothing to do"}]),
    Row("no_changes", 0, [{"text": "nothing to do"}], {"allow_no_changes": True}),
    Row(
        "verify_failed",
        1,
        WRITE_THEN_DONE + WRITE_THEN_DONE,
        {"verify": {"command": "exit 1", "attempts": 1, "baseline": False}},
    ),
    Row("invalid_input", 2, [], {"budget": {"max_turns": 0}}),
    Row("invalid_input", 2, [], {"unknown_key": 1}),
    Row("budget_exhausted", 3, WRITE_THEN_DONE, {"budget": {"max_turns": 1}}),
    Row("loop_detected", 4, [READ_SAME] * 12),
    Row(
        "blocked",
        5,
        None,
        {"model": {"name": "gemini-2.5-flash"}},
        [{"text": "no", "finish_reason": "SAFETY"}],
    ),  # fmt: skip
    Row("provider_error", 6, [write_call("a.txt", "x\n")]),  # the script runs out
    Row(
        "provider_error",
        6,
        None,
        {"model": {"name": "gemini-2.5-flash"}},
        [{"error": {"code": 401}}],
    ),  # fmt: skip
    Row(
        "invalid_output",
        7,
        [{"calls": [{"name": "submit_result", "args": {"n": "one"}}]}, {"text": "done"}],
        {
            "output": {
                "schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
                "attempts": 2,
            },
            "allow_no_changes": True,
        },
    ),
    Row("internal_error", 70, None, prepare=broken_baseline),
    Row(
        "provider_unavailable",
        75,
        None,
        {"model": {"name": "gemini-2.5-flash", "retry": FAST_RETRY}},
        [{"error": {"code": 503, "retry_delay": 0}}] * 3,
    ),  # fmt: skip
    Row(
        "provider_unavailable",
        75,
        None,
        {"model": {"name": "gemini-2.5-flash"}},
        [{"error": {"code": 429, "quota": "daily"}}],
    ),  # fmt: skip
]


def run_row(tmp_path: Path, row: Row):
    recipe = dict(row.recipe)
    env = row.prepare(tmp_path, recipe) if row.prepare else {}
    case: Case = make_case(tmp_path, row.script, recipe)
    if row.fake_turns is None:
        return case.run(env=env)
    with FakeGemini(row.fake_turns) as fake:
        return case.run(env={**env, **fake.env()})


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.status}-{r.code}-{i}" for i, r in enumerate(ROWS)])
def test_every_status_reaches_the_exit_code(tmp_path: Path, row: Row):
    run = run_row(tmp_path, row)
    assert_agree(run, row.status, row.code)
    task = run.result["tasks"][0] if run.result.get("tasks") else None
    if task is not None:
        assert task["status"] == row.status
        assert task["retryable"] is (row.status == "provider_unavailable")
    assert run.result["retryable"] is (row.status == "provider_unavailable")
    if row.status == "internal_error":
        errors = [e for e in run.events if isinstance(e, ev.Error) and e.kind == "internal_error"]
        assert errors and errors[0].traceback, "the traceback is in the log"
        assert "Traceback" not in run.stderr


def test_the_table_covers_every_status():
    covered = {r.status for r in ROWS} | {"cancelled"}  # cancelled: test_signals.py
    assert covered == {s.value for s in Status}
    for row in ROWS:
        expected = EXIT_CODES[Status(row.status)]
        assert row.code == expected or row.recipe.get("allow_no_changes")


def test_a_workspace_deleted_during_the_run_is_named_as_such(tmp_path: Path):
    """The model removes its own worktree: the run says the workspace is gone, not that git
    is missing."""
    rule = {"tool": "run_shell_command", "command": "rm", "decision": "allow"}
    script = [{"calls": [{"name": "run_shell_command", "args": {"command": 'rm -rf "$PWD"'}}]},
              {"text": "done"}]  # fmt: skip
    case = make_case(tmp_path, script, {"workspace": {"isolation": "worktree"},
                                        "policy": {"rules": [rule]}})  # fmt: skip
    run = case.run()
    reason = run.result["tasks"][0]["reason"]
    assert "git is not installed" not in run.stderr + reason
    assert "no longer exists" in reason
    assert (run.result["exit_code"], run.code) == (70, 70)


def test_an_api_that_stays_unavailable_is_exit_75_retryable_in_every_output(tmp_path: Path):
    """503 on every call: the retries are spent, the task ends provider_unavailable (75), and
    junit.xml and summary.md say it may be run again; nothing was judged."""
    from junitparser import Error, JUnitXml

    recipe = {"model": {"name": "gemini-2.5-flash", "retry": FAST_RETRY}}
    with FakeGemini([{"error": {"code": 503, "retry_delay": 0}}] * 5) as fake:
        run = make_case(tmp_path, None, recipe).run(env=fake.env())
        calls = len(fake.generate_requests)
    assert_agree(run, "provider_unavailable", 75)
    assert calls == 3  # model.retry.attempts, then it gave up
    assert "giving up after 3 attempts: HTTP 503" in run.result["reason"]
    [suite] = JUnitXml.fromfile(str(run.out / "junit.xml"))
    agent = next(c for c in suite if c.name == "agent")
    [error] = agent.result
    assert isinstance(error, Error) and error.type == "provider_unavailable"
    assert "(retryable, exit 75: run it again later)" in error.message
    assert "Run it again later" in (run.out / "summary.md").read_text()


def test_a_rejected_key_stays_exit_6_and_not_retryable(tmp_path: Path):
    with FakeGemini([{"error": {"code": 401}}]) as fake:
        run = make_case(tmp_path, None, {"model": {"name": "gemini-2.5-flash"}}).run(env=fake.env())
    assert_agree(run, "provider_error", 6)
    assert run.result["retryable"] is False


def _docs_shell_snippet() -> str:
    """The ```bash block of docs/exit-codes.md's section on exit 75."""
    docs = Path(__file__).resolve().parents[2] / "docs" / "exit-codes.md"
    text = docs.read_text()
    section = text[text.index("## 75: the model API was unavailable") :]
    block = section[section.index("```bash\n") + 8 :]
    return block[: block.index("```")]


@pytest.mark.parametrize(("answer", "code"), [({"code": 429, "quota": "daily"}, 0),
                                              ({"code": 401}, 6)])  # fmt: skip
def test_the_docs_shell_snippet_soft_fails_on_75_only(tmp_path: Path, answer, code):
    import os
    import subprocess
    import sys

    case = make_case(tmp_path, None, {"model": {"name": "gemini-2.5-flash"}})
    recipe = case.repo / ".github/agentci/fix-failing-tests.yaml"
    recipe.parent.mkdir(parents=True)
    recipe.write_text(case.recipe.read_text())
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"  # agentci on PATH
    with FakeGemini([{"error": answer}]) as fake:
        done = subprocess.run(
            ["bash", "-e", "-c", _docs_shell_snippet()],
            cwd=case.repo,
            env={**os.environ, **fake.env(), "PATH": path},
            capture_output=True,
            text=True,
        )
    assert done.returncode == code, done.stderr
    warned = "::warning title=agentci::the model API was unavailable" in done.stdout
    assert warned is (code == 0)
