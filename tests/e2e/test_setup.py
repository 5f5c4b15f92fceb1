"""Setup commands run before the snapshot: their effects are not the agent's change."""

from __future__ import annotations

from pathlib import Path

from agentci.testing.cli import run_recipe

RECIPE = """\
version: 1
name: setup
model: {{name: "scripted:replies.yaml"}}
prompt: Write the note.
workspace: {{path: {repo}}}
sandbox: none
setup: [{setup}]
"""

REPLIES = """\
- calls: [{name: write_file, args: {file_path: NOTE.md, content: "note\\n"}}]
- text: Wrote the note.
"""


def write(tmp_path: Path, repo: Path, setup: str) -> Path:
    (tmp_path / "replies.yaml").write_text(REPLIES)
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(RECIPE.format(repo=repo, setup=setup))
    return recipe


def test_what_setup_writes_is_not_in_the_patch(repo_factory, tmp_path: Path):
    repo = repo_factory({"README.md": "hi\n"})
    run = run_recipe(
        write(tmp_path, repo, '"echo built > build.txt"'), tmp_path / "out", cwd=tmp_path
    )
    assert run.code == 0, run.stderr
    assert (repo / "build.txt").read_text() == "built\n"
    assert run.result["changed_files"] == ["NOTE.md"]
    assert "build.txt" not in run.patch


def test_a_failing_setup_is_invalid_input_and_no_model_is_called(repo_factory, tmp_path: Path):
    repo = repo_factory({"README.md": "hi\n"})
    run = run_recipe(write(tmp_path, repo, '"echo oops; exit 3"'), tmp_path / "out", cwd=tmp_path)
    assert run.code == 2
    assert run.result["status"] == "invalid_input"
    assert "setup command failed (exit 3): echo oops; exit 3" in run.result["reason"]
    assert run.result["usage"]["model_calls"] == 0
    assert not (repo / "NOTE.md").exists()
