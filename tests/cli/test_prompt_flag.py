"""``agentci run --prompt``: a one-line job without a recipe file (the built-in recipe), the
prompt from stdin, and the flags for the common fields on top of a recipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tool_harness import init_repo

from agentci.events.types import parse_event
from agentci.testing.fake_gemini import FakeGemini


def _agentci(cwd: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "agentci", "run", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _events(out: Path) -> list:
    return [parse_event(line) for line in (out / "events.jsonl").read_text().splitlines()]


def _system(request) -> str:
    return request.body["systemInstruction"]["parts"][0]["text"]


def test_prompt_from_stdin_runs_the_built_in_read_only_recipe(tmp_path: Path):
    ws = init_repo(tmp_path / "ws", {"calc.py": "def add(a, b):\n    return a - b\n"})
    stdin = "Why does add() give 2 - 3?\nTemplates stay as they are: {{ not_a_parameter }}\n"
    with FakeGemini([{"text": "add subtracts."}]) as fake:
        done = _agentci(ws, "--prompt", "-", "-q", stdin=stdin, env=fake.env())
        request = fake.generate_requests[0]
    assert done.returncode == 0, done.stderr
    assert request.model == "gemini-2.5-flash"
    assert request.contents[0]["parts"][-1]["text"] == stdin
    assert "approval policy (mode `read_only`)" in _system(request)
    result = json.loads((ws / ".agentci/out/result.json").read_text())
    assert (result["status"], result["exit_code"]) == ("no_changes", 0)
    assert result["recipe"] == "<built-in recipe>" and result["recipe_name"] == "prompt"
    assert result["summary"] == "add subtracts."


def test_the_flags_set_model_mode_verify_and_output_schema(tmp_path: Path):
    ws = init_repo(tmp_path / "ws", {"calc.py": "def add(a, b):\n    return a - b\n"})
    schema = {"type": "object", "properties": {"cause": {"type": "string"}}, "required": ["cause"]}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    turns = [
        {"function_calls": [{"name": "replace", "args": {
            "file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}]},
        {"function_calls": [{"name": "submit_result", "args": {"cause": "a sign"}}]},
    ]  # fmt: skip
    args = [
        "--prompt", "Fix add.", "--model", "gemini-2.5-pro", "--mode", "auto_edit",
        "--verify", "python -c 'import calc; assert calc.add(2, 3) == 5'",
        "--output-schema", str(tmp_path / "schema.json"), "-q",
    ]  # fmt: skip
    with FakeGemini(turns) as fake:
        done = _agentci(ws, *args, env=fake.env())
        requests = fake.generate_requests
    assert done.returncode == 0, done.stderr
    assert {r.model for r in requests} == {"gemini-2.5-pro"}
    assert "approval policy (mode `auto_edit`)" in _system(requests[0])
    assert "verify command `python -c 'import calc; assert calc.add(2, 3) == 5'`" in _system(
        requests[0]
    )
    result = json.loads((ws / ".agentci/out/result.json").read_text())
    assert (result["status"], result["output"]) == ("success", {"cause": "a sign"})
    verify = [e for e in _events(ws / ".agentci/out") if e.type == "verify_result"]
    assert [(v.phase, v.passed) for v in verify] == [("attempt", True)]  # no baseline run


def test_prompt_replaces_the_prompt_of_a_recipe_file(tmp_path: Path):
    init_repo(tmp_path / "ws", {"a.txt": "x\n"})
    recipe = tmp_path / "r.yaml"
    recipe.write_text(
        "version: 1\nname: r\nmodel: {name: gemini-2.5-flash}\nprompt: The recipe's prompt.\n"
        "sandbox: none\nallow_no_changes: true\nworkspace: {path: ws}\n"
    )
    with FakeGemini([{"text": "ok"}]) as fake:
        done = _agentci(tmp_path, str(recipe), "--prompt", "The command line's.", env=fake.env())
        request = fake.generate_requests[0]
    assert done.returncode == 0, done.stderr
    assert request.contents[0]["parts"][-1]["text"] == "The command line's."


def test_no_recipe_and_no_prompt_is_a_usage_error(tmp_path: Path):
    done = _agentci(tmp_path)
    assert done.returncode == 2
    assert "give a RECIPE file, or a prompt with --prompt TEXT" in done.stderr


def test_an_empty_prompt_on_stdin_is_invalid_input(tmp_path: Path):
    done = _agentci(tmp_path, "--prompt", "-", stdin="  \n")
    assert done.returncode == 2
    assert "the prompt is empty (standard input)" in done.stderr


def test_prompt_with_a_recipe_of_several_tasks_is_refused(tmp_path: Path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(
        "version: 1\nname: r\nmodel: {name: gemini-2.5-flash}\n"
        "tasks: [{name: a, prompt: A}, {name: b, prompt: B}]\n"
    )
    done = _agentci(tmp_path, str(recipe), "--prompt", "X", env={"GEMINI_API_KEY": "k"})
    assert done.returncode == 2
    assert "--prompt replaces the recipe's prompt, but this recipe has tasks" in done.stderr


def _recipe_in_a_subfolder(tmp_path: Path) -> Path:
    init_repo(tmp_path / "ws", {"a.txt": "x\n"})
    recipe = tmp_path / "ci" / "r.yaml"
    recipe.parent.mkdir()
    recipe.write_text(
        "version: 1\nname: r\nmodel: {name: gemini-2.5-flash}\nprompt: Look.\n"
        "sandbox: none\nallow_no_changes: true\nworkspace: {path: ws}\n"
    )
    return recipe


def test_a_model_file_given_with_model_is_found_from_the_working_directory(tmp_path: Path):
    _recipe_in_a_subfolder(tmp_path)
    (tmp_path / "replies.yaml").write_text("- text: Looked.\n")
    done = _agentci(tmp_path, "ci/r.yaml", "--model", "scripted:replies.yaml", "-q")
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / ".agentci/out/result.json").read_text())
    assert result["summary"] == "Looked."


def test_a_missing_model_file_given_with_model_is_blamed_on_the_flag(tmp_path: Path):
    _recipe_in_a_subfolder(tmp_path)
    done = _agentci(tmp_path, "ci/r.yaml", "--model", "scripted:nope.yaml")
    assert done.returncode == 2
    missing = tmp_path / "nope.yaml"
    assert f"agentci: error: --model: no such file: {missing}\n" in done.stderr
    assert "r.yaml:" not in done.stderr


def test_the_final_answer_goes_to_stdout_and_everything_else_to_stderr(tmp_path: Path):
    ws = init_repo(tmp_path / "ws", {"calc.py": "def add(a, b):\n    return a - b\n"})
    with FakeGemini([{"text": "add() subtracts: `a - b`."}]) as fake:
        done = _agentci(ws, "--prompt", "Why does add(2, 3) give -1?", env=fake.env())
    assert done.returncode == 0, done.stderr
    assert done.stdout == "add() subtracts: `a - b`.\n"
    assert "agentci: no_changes (exit 0)" in done.stderr
    assert done.stderr.splitlines()[-1].startswith("agentci: outputs in .agentci/out/ (")


def test_a_structured_answer_goes_to_stdout_as_json(tmp_path: Path):
    ws = init_repo(tmp_path / "ws", {"calc.py": "x = 1\n"})
    schema = {"type": "object", "properties": {"cause": {"type": "string"}}, "required": ["cause"]}
    (ws / "schema.json").write_text(json.dumps(schema))
    turns = [{"function_calls": [{"name": "submit_result", "args": {"cause": "a sign"}}]}]
    with FakeGemini(turns) as fake:
        done = _agentci(ws, "--prompt", "Why?", "--output-schema", "schema.json", env=fake.env())
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"cause": "a sign"}


def test_text_piped_in_is_added_to_a_text_prompt(tmp_path: Path):
    ws = init_repo(tmp_path / "ws", {"a.txt": "x\n"})
    with FakeGemini([{"text": "A typo."}]) as fake:
        done = _agentci(ws, "--prompt", "why", "-q", stdin="E   NameError: nme\n", env=fake.env())
        request = fake.generate_requests[0]
    assert done.returncode == 0, done.stderr
    assert request.contents[0]["parts"][-1]["text"] == "why\n\nE   NameError: nme\n"


def test_verify_and_allow_let_the_model_run_those_commands(tmp_path: Path):
    ws = init_repo(tmp_path / "ws", {"calc.py": "x = 1\n"})
    calls = [
        {"name": "run_shell_command", "args": {"command": "python -c 'import calc' -v"}},
        {"name": "run_shell_command", "args": {"command": "git log --oneline"}},
        {"name": "run_shell_command", "args": {"command": "python -c 'print(2)'"}},
    ]
    turns = [{"function_calls": calls}, {"text": "Checked."}]
    args = ["--prompt", "Check.", "--verify", "python -c 'import calc'", "--allow", "git log"]
    with FakeGemini(turns) as fake:
        done = _agentci(ws, *args, "-q", env=fake.env())
    assert done.returncode == 0, done.stderr
    decisions = [e for e in _events(ws / ".agentci/out") if e.type == "tool_call_decision"]
    assert [d.decision for d in decisions] == ["allow", "allow", "deny"]
