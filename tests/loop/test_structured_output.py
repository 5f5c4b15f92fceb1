"""Structured output: the model hands in its answer with submit_result; agentci validates it
against output.schema, sends the errors back, and ends invalid_output (exit 7) when no answer
matches. Through the real SDK and the fake Gemini server."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tool_harness import init_repo

from agentci.testing.cli import Run, agentci, run_recipe
from agentci.testing.fake_gemini import FakeGemini

SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["bug", "flaky", "environment"]},
        "tests": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["verdict", "tests"],
    "additionalProperties": False,
}

RECIPE = """\
version: 1
name: triage
model:
  name: gemini-2.5-flash
  retry: {{attempts: 1}}
prompt: Classify the failing tests.
sandbox: none
allow_no_changes: true
workspace: {{path: ws}}
policy: {{mode: read_only}}
output: {{schema: {schema}, attempts: {attempts}}}
{extra}
"""

GOOD = {"verdict": "bug", "tests": ["tests/test_calc.py::test_add"]}
BAD = {"verdict": "urgent", "tests": "all"}


def _submit(args: dict[str, Any]) -> dict[str, Any]:
    return {"function_calls": [{"name": "submit_result", "args": args}]}


def _run(
    tmp_path: Path, turns: list[dict[str, Any]], *, attempts: int = 3, extra: str = ""
) -> tuple[Run, list[Any]]:
    init_repo(tmp_path / "ws", {"calc.py": "def add(a, b):\n    return a - b\n"})
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.format(schema=json.dumps(SCHEMA), attempts=attempts, extra=extra))
    with FakeGemini(turns) as fake:
        run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path, env=fake.env())
        requests = fake.generate_requests
    return run, requests


def _responses(request: Any) -> list[dict[str, Any]]:
    return [p["functionResponse"] for p in request.parts("functionResponse")]


def test_a_valid_answer_on_the_first_try_is_the_runs_output(tmp_path: Path):
    run, requests = _run(tmp_path, [_submit(GOOD)])
    assert run.code == 0, run.stderr
    assert len(requests) == 1  # the valid answer ended the session: no further model call
    declared = requests[0].body["tools"][0]["functionDeclarations"]
    submit = next(d for d in declared if d["name"] == "submit_result")
    assert submit["parametersJsonSchema"] == SCHEMA
    system = requests[0].body["systemInstruction"]["parts"][0]["text"]
    assert "call `submit_result` with your answer: that call ends your work" in system
    result = run.result
    assert result["status"] == "no_changes" and result["exit_code"] == 0
    assert result["output"] == GOOD
    assert result["tasks"][0]["output"] == GOOD
    assert json.loads((run.out / "output.json").read_text()) == GOOD
    summary = (run.out / "summary.md").read_text()
    assert "### Answer\n\n```json\n" + json.dumps(GOOD, indent=2) + "\n```" in summary


def test_an_invalid_answer_goes_back_with_the_errors_then_a_valid_one_is_kept(tmp_path: Path):
    run, requests = _run(tmp_path, [_submit(BAD), _submit(GOOD)])
    assert run.code == 0, run.stderr
    assert len(requests) == 2
    error = _responses(requests[1])[0]["response"]["error"]
    assert error.startswith("the answer does not match the required schema:\n")
    assert "at $.tests: 'all' is not of type 'array'" in error
    assert "at $.verdict: 'urgent' is not one of ['bug', 'flaky', 'environment']" in error
    assert "Fix it and call submit_result again (2 attempt(s) left)." in error
    assert run.result["output"] == GOOD


def test_stopping_without_an_answer_is_answered_with_a_reminder(tmp_path: Path):
    run, requests = _run(tmp_path, [{"text": "It is a bug."}, _submit(GOOD)])
    assert run.code == 0, run.stderr
    reminder = requests[1].contents[-1]["parts"][0]["text"]
    assert reminder.startswith("You stopped without handing in your answer. Call submit_result")
    assert run.result["output"] == GOOD


def test_no_valid_answer_after_every_attempt_ends_invalid_output_exit_7(tmp_path: Path):
    run, requests = _run(tmp_path, [_submit(BAD), {"text": "done"}], attempts=2)
    assert run.code == 7, run.stderr
    assert len(requests) == 2
    result = run.result
    assert result["status"] == "invalid_output" and result["exit_code"] == 7
    assert result["output"] is None
    assert result["reason"].startswith("triage: no valid answer after 2 attempt(s)")
    assert not (run.out / "output.json").exists()
    finished = run.events[-1]
    assert (finished.type, finished.status, finished.exit_code) == (
        "run_finished",
        "invalid_output",
        7,
    )
    case = ET.parse(run.out / "junit.xml").getroot().find(".//testcase[@name='agent']")
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "invalid_output"


def test_verify_still_runs_after_the_answer_is_handed_in(tmp_path: Path):
    extra = (
        "verify: {command: 'python -c \"import sys; sys.exit(3)\"', attempts: 1, baseline: false}"
    )
    run, requests = _run(tmp_path, [_submit(GOOD)], extra=extra)
    types = [e.type for e in run.events]
    assert types.index("verify_result") > types.index("tool_call_response")
    assert run.code == 1 and run.result["status"] == "verify_failed"
    assert run.result["output"] == GOOD  # the answer stays, verify decides the status


def test_a_schema_whose_root_is_not_an_object_is_invalid_input(tmp_path: Path):
    init_repo(tmp_path / "ws", {"a.py": "x = 1\n"})
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.format(schema='{"type": "array"}', attempts=3, extra=""))
    run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path, env={"GEMINI_API_KEY": "k"})
    assert run.code == 2
    assert "r.yaml:11: output.schema: the schema's root must be `type: object`" in run.stderr


def test_an_answer_nested_600_levels_deep_is_an_invalid_answer_not_a_crash(tmp_path: Path):
    deep: Any = "x"
    for _ in range(600):
        deep = [deep]
    run, requests = _run(tmp_path, [_submit({"verdict": "bug", "tests": deep})], attempts=1)
    assert run.code == 7, run.stderr
    assert run.result["status"] == "invalid_output"
    (response,) = [
        e for e in run.events if e.type == "tool_call_response" and e.name == "submit_result"
    ]
    assert "nested more than" in (response.error or "")


def test_a_schema_whose_ref_points_nowhere_is_invalid_input_before_any_model_call(tmp_path: Path):
    init_repo(tmp_path / "ws", {"a.py": "x = 1\n"})
    schema = {"type": "object", "properties": {"verdict": {"$ref": "#/$defs/verdict"}}}
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.format(schema=json.dumps(schema), attempts=3, extra=""))
    with FakeGemini([_submit(GOOD)]) as fake:
        run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path, env=fake.env())
        requests = fake.generate_requests
    assert run.code == 2 and run.result["status"] == "invalid_input"
    assert (
        "r.yaml:11: output.schema: not a valid JSON Schema: cannot resolve $ref '#/$defs/verdict'"
        in run.stderr
    )
    assert requests == []


def test_a_schema_ref_to_a_web_address_is_refused_not_fetched(tmp_path: Path):
    init_repo(tmp_path / "ws", {"a.py": "x = 1\n"})
    schema = {"type": "object", "properties": {"v": {"$ref": "http://127.0.0.1:9/v.json"}}}
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.format(schema=json.dumps(schema), attempts=3, extra=""))
    done = agentci("validate", str(recipe), cwd=tmp_path)
    assert done.returncode == 2
    assert "cannot resolve $ref 'http://127.0.0.1:9/v.json'" in done.stderr


def test_a_schema_whose_refs_resolve_in_the_schema_is_accepted(tmp_path: Path):
    init_repo(tmp_path / "ws", {"a.py": "x = 1\n"})
    schema = {
        "type": "object",
        "$defs": {"verdict": {"type": "string", "enum": ["bug", "flaky"]}},
        "properties": {"verdict": {"$ref": "#/$defs/verdict"}},
        "required": ["verdict"],
    }
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.format(schema=json.dumps(schema), attempts=3, extra=""))
    with FakeGemini([_submit({"verdict": "flaky"})]) as fake:
        run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path, env=fake.env())
    assert run.code == 0 and run.result["output"] == {"verdict": "flaky"}
