"""A run that hits max_turns ends with exit 3 and keeps the work done so far."""

from __future__ import annotations

from pathlib import Path

from agentci.events import types as ev
from agentci.testing.cli import run_recipe

REPLIES = """\
- text: Starting with a note.
  calls: [{name: write_file, args: {file_path: NOTES.md, content: "partial work\\n"}}]
- calls: [{name: list_directory, args: {dir_path: .}}]
- calls: [{name: list_directory, args: {dir_path: .}}]
- calls: [{name: list_directory, args: {dir_path: .}}]
- text: never reached
"""

RECIPE = """\
version: 1
name: endless
model: {name: "scripted:replies.yaml"}
prompt: Keep going.
workspace: {path: project}
budget: {max_turns: 3}
"""


def test_max_turns_exhaustion_exits_3_with_outputs_and_the_partial_patch(
    repo_factory, tmp_path: Path
):
    project = repo_factory({"README.md": "hello\n"})
    (tmp_path / "replies.yaml").write_text(REPLIES)
    (tmp_path / "recipe.yaml").write_text(RECIPE.replace("project", str(project)))
    run = run_recipe(tmp_path / "recipe.yaml", tmp_path / "out", cwd=tmp_path)

    assert run.code == 3, run.stderr
    assert run.result["status"] == "budget_exhausted"
    assert run.result["turns"] == 3
    exhausted = [e for e in run.events if isinstance(e, ev.BudgetExhaustedEvent)]
    assert [(e.limit, e.used, e.cap) for e in exhausted] == [("max_turns", 3, 3)]
    assert run.events[-1].type == "run_finished" and run.events[-1].exit_code == 3
    assert "+partial work" in run.patch
    assert run.result["changed_files"] == ["NOTES.md"]
    assert (tmp_path / "out" / "junit.xml").exists()
    assert (tmp_path / "out" / "summary.md").exists()
