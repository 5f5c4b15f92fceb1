"""What the log and result.json say about a run is true (issue 10)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from e2e_scenario import make_case, write_call

from agentci.events import types as ev
from agentci.testing.cli import agentci


def test_task_started_carries_the_prompt_the_model_was_sent(tmp_path: Path):
    recipe = {
        "parameters": {"what": {"default": "the pricing bug"}},
        "prompt": "Fix {{ what }}. Before you started, `{{ verify.command }}` said: {{ verify.output }}",
        "verify": {"command": "echo one test fails; exit 1", "attempts": 1},
    }  # fmt: skip
    case = make_case(tmp_path, [write_call("fix.txt", "x\n"), {"text": "done"}], recipe)
    run = case.run()
    started = [e for e in run.events if isinstance(e, ev.TaskStarted)]
    assert [e.prompt for e in started] == [
        "Fix the pricing bug. Before you started, `echo one test fails; exit 1` said: "
        "one test fails"
    ]
    assert run.events.index(started[0]) > next(
        i for i, e in enumerate(run.events) if isinstance(e, ev.VerifyResult)
    )


def test_result_json_says_when_the_run_started(tmp_path: Path):
    case = make_case(tmp_path, [{"text": "nothing to do"}], {})
    run = case.run()
    started_at = run.result["started_at"]
    assert started_at.endswith("Z")
    first = run.events[0]
    assert isinstance(first, ev.RunStarted)
    as_time = datetime.fromisoformat(started_at.removesuffix("Z"))
    assert as_time <= datetime.fromisoformat(run.events[-1].ts.removesuffix("Z"))


def test_result_json_of_refused_input_says_when_too(tmp_path: Path):
    case = make_case(tmp_path, [], {"budget": {"max_turns": 0}})
    run = case.run()
    assert run.code == 2 and run.result["started_at"].endswith("Z")


def test_a_parameter_has_no_required_flag(tmp_path: Path):
    """A parameter without a default must be passed; ``required:`` was accepted and ignored."""
    case = make_case(tmp_path, [], {"parameters": {"target": {"required": True}}})
    done = agentci("validate", str(case.recipe), cwd=case.repo)
    assert done.returncode == 2
    assert "parameters.target.required" in done.stderr and "unknown key" in done.stderr
