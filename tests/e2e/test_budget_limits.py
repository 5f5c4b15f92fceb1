"""Each budget runs out in turn, through the real CLI: exit 3, the limit named, outputs kept.

The scripted model writes one file per call, so the patch shows how far the work got.
"""

from __future__ import annotations

import os
from pathlib import Path

from e2e_scenario import assert_agree, make_case, shell_call, write_call

from agentci.events import types as ev
from agentci.testing.processes import pids_with


def writes(n: int) -> list:
    """A script of ``n`` calls writing ``f1.txt`` … ``fN.txt``, then a final answer."""
    return [write_call(f"f{i}.txt", f"file {i}\n") for i in range(1, n + 1)] + [{"text": "done"}]


def exhausted(run) -> ev.BudgetExhaustedEvent:
    found = [e for e in run.events if isinstance(e, ev.BudgetExhaustedEvent)]
    assert len(found) == 1, run.stderr
    return found[0]


def usage_totals(run) -> ev.UsageTotals:
    return [e for e in run.events if isinstance(e, ev.Usage)][-1].totals


def test_max_turns_keeps_the_partial_patch(tmp_path: Path):
    run = make_case(tmp_path, writes(5), {"budget": {"max_turns": 2}}).run()
    assert_agree(run, "budget_exhausted", 3)
    event = exhausted(run)
    assert (event.limit, event.used, event.cap) == ("max_turns", 2, 2)
    assert "f1.txt" in run.patch and "f2.txt" in run.patch and "f3.txt" not in run.patch
    assert run.result["changed_files"] == ["f1.txt", "f2.txt"]


def test_the_cli_flag_overrides_the_recipe(tmp_path: Path):
    run = make_case(tmp_path, writes(5), {"budget": {"max_turns": 50}}).run("--max-turns", "1")
    assert_agree(run, "budget_exhausted", 3)
    assert exhausted(run).cap == 1


def test_the_cli_flag_overrides_a_tasks_own_budget_too(tmp_path: Path):
    tasks = [{"name": "own", "prompt": "Write the files.", "budget": {"max_turns": 5}}]
    recipe = {"budget": {"max_turns": 50}, "tasks": tasks}
    run = make_case(tmp_path, writes(5), recipe).run("--max-turns", "1")
    assert_agree(run, "budget_exhausted", 3)
    assert (exhausted(run).limit, exhausted(run).cap) == ("max_turns", 1)
    assert run.result["tasks"][0]["turns"] == 1


def test_max_tokens_refuses_the_call_that_would_cross_it(tmp_path: Path):
    cap = 2500
    run = make_case(tmp_path, writes(20), {"budget": {"max_tokens": cap}}).run()
    assert_agree(run, "budget_exhausted", 3)
    event = exhausted(run)
    assert event.limit == "max_tokens" and event.cap == cap
    used = usage_totals(run)
    assert 0 < used.total_tokens <= cap  # refused before the crossing call, not after it
    assert used.model_calls >= 2 and "f1.txt" in run.patch


def test_max_cost_refuses_the_call_that_would_cross_it(tmp_path: Path):
    # $1000 per million tokens: each scripted call costs about $0.3
    pricing = {"input_per_mtok": 1000, "output_per_mtok": 1000}
    recipe = {"model": {"name": "scripted:script.yaml", "pricing": pricing}}
    recipe["budget"] = {"max_cost_usd": 4}
    run = make_case(tmp_path, writes(20), recipe).run()
    assert_agree(run, "budget_exhausted", 3)
    event = exhausted(run)
    assert event.limit == "max_cost_usd" and event.cap == 4
    used = usage_totals(run)
    assert 0 < used.cost_usd <= 4
    assert run.result["usage"]["cost_usd"] == used.cost_usd
    assert "f1.txt" in run.patch


def test_a_cost_cap_on_an_unpriced_model_is_refused(tmp_path: Path):
    recipe = {"model": {"name": "gemini-0-unknown"}, "budget": {"max_cost_usd": 1}}
    run = make_case(tmp_path, None, recipe).run(env={"GEMINI_API_KEY": "x" * 10})
    assert_agree(run, "invalid_input", 2)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "no known price" in lines[0] and "model.pricing" in lines[0]


def test_max_tool_calls_does_not_start_the_calls_past_the_cap(tmp_path: Path):
    three = {"calls": [write_call(f"t{i}.txt", "x\n")["calls"][0] for i in (1, 2, 3)]}
    run = make_case(tmp_path, [three, {"text": "done"}], {"budget": {"max_tool_calls": 2}}).run()
    assert_agree(run, "budget_exhausted", 3)
    assert exhausted(run).limit == "max_tool_calls"
    assert run.result["changed_files"] == ["t1.txt", "t2.txt"]
    started = [e for e in run.events if isinstance(e, ev.ToolCallResponse) and e.ok]
    assert len(started) == 2


def test_the_wall_clock_cancels_a_running_tool(tmp_path: Path):
    # an hour-long tool: had the run waited for it, the test's own timeout would end it
    marker = f"sleep 3700.{os.getpid()}"
    script = [write_call("before.txt", "x\n"), shell_call(marker), {"text": "done"}]
    rule = {"tool": "run_shell_command", "command": "sleep", "decision": "allow"}
    case = make_case(tmp_path, script, {"policy": {"rules": [rule]}})
    run = case.run("--timeout", "2")
    assert_agree(run, "budget_exhausted", 3)
    event = exhausted(run)
    assert event.limit == "max_wall_seconds" and event.cap == 2
    shell = [e for e in run.events if isinstance(e, ev.ToolCallResponse)
             and e.name == "run_shell_command"]  # fmt: skip
    assert all(not e.ok for e in shell)  # the tool did not run to its end
    assert pids_with(marker) == []
    assert "before.txt" in run.patch


def test_a_tool_timeout_kills_the_tool_and_tells_the_model(tmp_path: Path):
    """tool_timeout_seconds is a per-call limit: the call fails, the model carries on (a tool
    failure never ends the run). See docs/exit-codes.md."""
    marker = f"sleep 38.{os.getpid()}"
    script = [shell_call(marker), write_call("after.txt", "x\n"), {"text": "done"}]
    rule = {"tool": "run_shell_command", "command": "sleep", "decision": "allow"}
    recipe = {"policy": {"rules": [rule]}, "budget": {"tool_timeout_seconds": 1}}
    run = make_case(tmp_path, script, recipe).run()
    assert_agree(run, "success", 0)
    shell = [e for e in run.events if isinstance(e, ev.ToolCallResponse)][0]
    assert not shell.ok and "timed out" in (shell.error or "")
    assert pids_with(marker) == []


def test_budget_total_spans_the_tasks_of_a_run(tmp_path: Path):
    tasks = [{"name": "one", "prompt": "first"}, {"name": "two", "prompt": "second"}]
    recipe = {"prompt": None, "tasks": tasks, "budget": {"total": {"max_tokens": 3000}}}
    recipe.pop("prompt")
    script = [write_call(f"f{i}.txt", "x\n") for i in range(1, 30)]
    case = make_case(tmp_path, script, recipe)
    # a scripted model answers task after task from one script: each task writes until the total
    run = case.run()
    assert_agree(run, "budget_exhausted", 3)
    limits = {e.task: e.limit for e in run.events if isinstance(e, ev.BudgetExhaustedEvent)}
    assert limits["two"] == "total.max_tokens"
    assert run.result["usage"]["total_tokens"] <= 3000


def test_the_wall_clock_cancels_a_stalled_model_call(tmp_path: Path):
    from agentci.testing.fake_gemini import FakeGemini

    # an hour's stall: had the run waited for it (or for the 120 s request timeout, which
    # would end the run model_error), the test's own timeout would end it
    turns = [{"text": "never sent", "stall_after": 0, "stall_seconds": 3600}]
    with FakeGemini(turns) as fake:
        case = make_case(tmp_path, None, {"model": {"name": "gemini-2.5-flash"}})
        run = case.run("--timeout", "1.5", env=fake.env())
    assert_agree(run, "budget_exhausted", 3)
    assert exhausted(run).limit == "max_wall_seconds"


def test_an_answer_of_thoughts_cut_at_the_output_limit_is_budget_exhausted(tmp_path: Path):
    from agentci.testing.fake_gemini import FakeGemini

    turns = [{"thought": "thinking at length", "finish_reason": "MAX_TOKENS"}] * 3
    with FakeGemini(turns) as fake:
        case = make_case(tmp_path, None, {"model": {"name": "gemini-2.5-flash"}})
        run = case.run(env=fake.env())
        calls = len(fake.generate_requests)
    assert_agree(run, "budget_exhausted", 3)
    assert calls == 1
    assert run.result["usage"]["model_calls"] == 1
    assert run.result["reason"].endswith(
        "raise model.max_output_tokens or lower model.thinking_budget)"
    )
