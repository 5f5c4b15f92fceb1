"""What the command prints: the console view, ``--format jsonl``, GitHub annotations."""

from __future__ import annotations

from pathlib import Path

from agentci.events.types import parse_event
from agentci.testing.cli import run_recipe
from agentci.testing.fake_gemini import FakeGemini

RECIPE = """\
version: 1
name: streams
model:
  name: {model}
  retry: {{attempts: 3, initial_delay_seconds: 0.01, max_delay_seconds: 0.02}}
prompt: Show the readme.
workspace: {{path: {repo}}}
sandbox: none
policy:
  rules: [{{tool: run_shell_command, command: cat, decision: allow}}]
"""

REPLIES = """\
- calls: [{name: run_shell_command, args: {command: cat README.md}}]
- calls: [{name: write_file, args: {file_path: NOTE.md, content: "seen\\n"}}]
- text: Done.
"""


def setup(tmp_path: Path, repo: Path, model: str = "scripted:replies.yaml") -> Path:
    (tmp_path / "replies.yaml").write_text(REPLIES)
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(RECIPE.format(model=model, repo=repo))
    return recipe


def test_format_jsonl_streams_the_same_events_to_stdout(repo_factory, tmp_path: Path):
    repo = repo_factory({"README.md": "hello\n"})
    run = run_recipe(setup(tmp_path, repo), tmp_path / "out", "--format", "jsonl", cwd=tmp_path)
    assert run.code == 0, run.stderr
    streamed = run.stdout.splitlines()
    assert streamed == (tmp_path / "out" / "events.jsonl").read_text().splitlines()
    assert parse_event(streamed[-1]).type == "run_finished"


def test_tool_output_cannot_issue_workflow_commands_on_the_console(repo_factory, tmp_path: Path):
    repo = repo_factory({"README.md": "::add-mask::nothing\n::set-output name=x::y\n"})
    run = run_recipe(
        setup(tmp_path, repo), tmp_path / "out", cwd=tmp_path, env={"GITHUB_ACTIONS": "true"}
    )
    assert run.code == 0, run.stderr
    assert "add-mask" in run.stderr  # the output is shown, but harmless:
    for stream in (run.stdout, run.stderr):
        assert not [line for line in stream.splitlines() if line.lstrip().startswith("::")]


def test_in_github_actions_a_failed_run_is_an_error_annotation(repo_factory, tmp_path: Path):
    repo = repo_factory({"README.md": "hello\n"})
    turns = [{"error": {"code": 401}}]
    with FakeGemini(turns) as fake:
        env = {**fake.env(), "GITHUB_ACTIONS": "true"}
        run = run_recipe(
            setup(tmp_path, repo, "gemini-2.5-flash"), tmp_path / "out", cwd=tmp_path, env=env
        )
        calls = len(fake.generate_requests)
    assert run.code == 6, run.stderr
    assert calls == 1
    assert run.result["status"] == "provider_error"
    annotations = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert len(annotations) == 1
    assert annotations[0].startswith("::error title=agentci::agentci provider_error (exit 6)")
    assert run.events[-1].type == "run_finished"
    assert (tmp_path / "out" / "junit.xml").exists()


def test_in_github_actions_an_unavailable_api_is_a_warning_annotation(repo_factory, tmp_path):
    """A per-day quota (not retried): exit 75, and the annotation is a warning that says the run
    may be repeated, not an error about the work."""
    repo = repo_factory({"README.md": "hello\n"})
    with FakeGemini([{"error": {"code": 429, "quota": "daily"}}]) as fake:
        env = {**fake.env(), "GITHUB_ACTIONS": "true"}
        run = run_recipe(
            setup(tmp_path, repo, "gemini-2.5-flash"), tmp_path / "out", cwd=tmp_path, env=env
        )
    assert run.code == 75, run.stderr
    assert not [line for line in run.stdout.splitlines() if line.startswith("::error")]
    [warning] = [line for line in run.stdout.splitlines() if "provider_unavailable" in line]
    assert warning.startswith(
        "::warning title=agentci::agentci provider_unavailable (exit 75, retryable: the model "
        "API was unavailable, run it again later): streams: gemini-2.5-flash: quota exhausted"
    )
