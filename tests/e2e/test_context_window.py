"""A long session through the real CLI and the real google-genai SDK against the fake Gemini
server stays inside a small context window: compression, the overflow guard, saved outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from e2e_scenario import assert_agree, make_case

from agentci.context.compression import SNAPSHOT_INTRO, SNAPSHOT_SYSTEM
from agentci.events import types as ev
from agentci.testing.cli import run_recipe
from agentci.testing.fake_gemini import FakeGemini, RecordedRequest

FAST = {"initial_delay_seconds": 0, "max_delay_seconds": 0}
# 300 lines of 40 characters: one read is about 3,000 tokens
BIG = "".join(f"{i:04d} " + "abcdefghij" * 3 + "abcd\n" for i in range(300))
SNAP = "<state_snapshot><goal>read big.txt</goal></state_snapshot>"
WINDOW = 30_000
CANARY = "canary-context-7d41c9e2b8a6"


def gemini_case(tmp_path: Path, recipe: dict[str, Any], files: dict[str, str] | None = None):
    model = {"name": "gemini-2.5-flash", "retry": FAST, **recipe.pop("model", {})}
    full = {"model": model, "allow_no_changes": True, **recipe}
    return make_case(tmp_path, None, full, files)


def is_summary(request: RecordedRequest) -> bool:
    system = request.body.get("systemInstruction", {}).get("parts", [{}])[0].get("text", "")
    return system == SNAPSHOT_SYSTEM


def start_lines(contents: list[dict[str, Any]]) -> set[int]:
    return {
        p["functionCall"]["args"]["start_line"]
        for c in contents
        for p in c["parts"]
        if "functionCall" in p
    }


def assert_calls_answered(contents: list[dict[str, Any]]) -> None:
    for i, content in enumerate(contents):
        calls = [p["functionCall"]["name"] for p in content["parts"] if "functionCall" in p]
        if calls:
            answers = contents[i + 1]["parts"]
            assert [
                p["functionResponse"]["name"] for p in answers if "functionResponse" in p
            ] == calls
        if any("functionResponse" in p for p in content["parts"]):
            assert any("functionCall" in p for p in contents[i - 1]["parts"])


def test_a_long_session_is_compressed_and_every_request_fits_the_window(tmp_path: Path) -> None:
    # every answer carries the snapshot text and a call, so any of them can be the summary's
    turns: list[dict[str, Any]] = [
        {"text": SNAP, "function_calls": [
            {"name": "read_file", "args": {"file_path": "big.txt", "start_line": k}}]}
        for k in range(1, 25)
    ]  # fmt: skip
    turns += [{"text": "finished"}] * 4
    case = gemini_case(tmp_path, {"model": {"context_window": WINDOW}}, {"big.txt": BIG})
    with FakeGemini(turns) as fake:
        run = case.run(env=fake.env())
        sent = fake.generate_requests
    assert_agree(run, "no_changes", 0)

    summaries = [i for i, r in enumerate(sent) if is_summary(r)]
    compressed = [e for e in run.events if isinstance(e, ev.ChatCompressed)]
    assert len(summaries) >= 2
    assert [e.status for e in compressed] == ["compressed"] * len(summaries)
    assert all(e.tokens_after < e.tokens_before for e in compressed)
    for i in summaries:
        assert "tools" not in sent[i].body
        after = sent[i + 1].contents
        assert after[0]["role"] == "user"
        assert after[0]["parts"][0]["text"] == SNAPSHOT_INTRO + SNAP
        assert not start_lines(sent[i].contents) & start_lines(after)  # the old turns are gone
    for request in sent:
        assert_calls_answered(request.contents)
        assert len(json.dumps(request.body)) // 4 < WINDOW  # the sizes actually sent
    # the summary calls count like any other: one usage event per request, all in result.json
    usage = [e for e in run.events if isinstance(e, ev.Usage)]
    assert len(usage) == len(sent) == run.result["usage"]["model_calls"]
    assert sum(u.prompt_tokens for u in usage) == run.result["usage"]["prompt_tokens"]
    assert sum(usage[i].prompt_tokens for i in summaries) > 0


def test_a_request_that_cannot_fit_ends_budget_exhausted_and_is_never_sent(
    tmp_path: Path,
) -> None:
    recipe = {"model": {"context_window": 2_000}, "prompt": "Fix it. " + "context " * 2_000}
    case = gemini_case(tmp_path, recipe)
    with FakeGemini([{"text": "never"}]) as fake:
        run = case.run(env=fake.env())
        sent = fake.generate_requests
    assert_agree(run, "budget_exhausted", 3)
    assert sent == []
    (overflow,) = [e for e in run.events if isinstance(e, ev.ContextWindowWillOverflow)]
    assert overflow.limit == 2_000 and overflow.estimated_tokens > 2_000
    (budget,) = [e for e in run.events if isinstance(e, ev.BudgetExhaustedEvent)]
    assert (budget.limit, budget.cap) == ("context_window", 2_000)
    assert "budget context_window exhausted" in run.result["tasks"][0]["reason"]
    assert "context window: the next request (about " in run.stderr


def test_a_big_output_is_saved_redacted_in_the_outputs_and_never_in_the_patch(
    tmp_path: Path,
) -> None:
    printer = f"import os\nfor i in range(40000):\n    print(i, os.environ.get('X', '{CANARY}'))\n"
    turns = [
        {"function_calls": [{"name": "run_shell_command", "args": {"command": "python3 p.py"}}]},
        {"function_calls": [{"name": "write_file", "args": {"file_path": "a.txt", "content": "a\n"}}]},
        {"text": "done"},
    ]  # fmt: skip
    case = gemini_case(tmp_path, {"policy": {"mode": "yolo"}}, {"p.py": printer})
    out = case.repo / ".agentci" / "out"
    with FakeGemini(turns) as fake:
        env = {**fake.env(), "CONTEXT_TOKEN": CANARY}
        run = run_recipe(case.recipe, out, cwd=case.repo, env=env)
        seen = fake.generate_requests[1].parts("functionResponse")[0]["functionResponse"][
            "response"
        ]["output"]
    assert_agree(run, "success", 0)
    saved = (out / "tool-outputs" / "0001-run_shell_command.txt").read_text()
    assert saved.count("\n") >= 40_000 and "39999 ***" in saved
    assert CANARY not in saved
    assert "is saved as @tool-outputs/0001-run_shell_command.txt" in seen
    assert len(seen) < 31_000
    assert "tool-outputs" not in run.patch and "a.txt" in run.patch
