"""summary.md rendering and $GITHUB_STEP_SUMMARY."""

from __future__ import annotations

from pathlib import Path

import pytest
from outputs_fixtures import run, task, verify

from agentci.outcome import Status
from agentci.reports.summary import render_summary, write_summary


def test_render_single_task() -> None:
    t = task(
        summary="I fixed `add()`.\n```py\nx = 1\n```", turns=4, tool_calls=6,
        changed_files=["src/calc.py"], verify=[verify(True, [("t::a", "passed", "")])],
    )  # fmt: skip
    md = render_summary(run(t))
    assert md.startswith("## agentci: fix-tests\n")
    assert "**Run succeeded** (status `success`, exit code 0)" in md
    assert "| main | success | 0 | 4 | 6 | 1200 | $0.0123 | passed (1 passed) |" in md
    assert "- `src/calc.py`" in md
    assert "3 model calls" in md
    assert "````text\nI fixed `add()`." in md  # fence longer than any fence inside


def test_render_failure_multi_task() -> None:
    a = task("unit|x", Status.verify_failed, 1, reason="2 | tests\nfail")
    b = task("lint", Status.no_changes, 0)
    md = render_summary(run(a, b, status=Status.verify_failed, exit_code=1))
    assert "**Run failed: verify still fails** (status `verify_failed`, exit code 1)" in md
    assert "| unit\\|x | verify_failed | 1 |" in md
    assert "None." in md


def test_write_appends_step_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    step = tmp_path / "step.md"
    step.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    write_summary(tmp_path / "summary.md", run(task()))
    body = (tmp_path / "summary.md").read_text()
    assert step.read_text() == "earlier step\n" + body + "\n"


def test_write_without_step_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    write_summary(tmp_path / "s.md", run(task()))
    assert (tmp_path / "s.md").read_text().startswith("## agentci")
