"""A final answer cut by MAX_TOKENS, through the real SDK and the fake Gemini server: it is
continued and joined, or the task ends budget_exhausted (max_output_tokens) — never success."""

from __future__ import annotations

from pathlib import Path

from e2e_scenario import assert_agree, make_case

from agentci.events import types as ev
from agentci.loop.continuation import CONTINUE_PROMPT
from agentci.testing.fake_gemini import FakeGemini

MODEL = {
    "name": "gemini-2.5-flash",
    "retry": {"attempts": 2, "initial_delay_seconds": 0.01, "max_delay_seconds": 0.02},
}
WRITE = {
    "function_calls": [{"name": "write_file", "args": {"file_path": "fix.txt", "content": "ok\n"}}]
}


def test_a_cut_final_answer_is_continued_and_the_summary_is_the_joined_text(tmp_path: Path):
    turns = [
        WRITE,
        {"text": "Fixed: the parser dropped the last li", "finish_reason": "MAX_TOKENS"},
        {"text": "ne of every file; it keeps it now."},
    ]
    case = make_case(tmp_path, None, {"model": MODEL})
    with FakeGemini(turns) as fake:
        run = case.run(env=fake.env())
        third = fake.generate_requests[2]
    assert_agree(run, "success", 0)
    joined = "Fixed: the parser dropped the last line of every file; it keeps it now."
    assert run.result["summary"] == joined
    assert joined in (run.out / "summary.md").read_text()
    assert [c["role"] for c in third.contents[-2:]] == ["model", "user"]
    assert third.contents[-2]["parts"][0]["text"] == "Fixed: the parser dropped the last li"
    assert third.contents[-1]["parts"][0]["text"] == CONTINUE_PROMPT
    assert run.result["usage"]["model_calls"] == 3 and run.result["turns"] == 3


def test_an_answer_that_never_finishes_ends_budget_exhausted(tmp_path: Path):
    cut = {"text": "Still writing the explanation… ", "finish_reason": "MAX_TOKENS"}
    case = make_case(tmp_path, None, {"model": {**MODEL, "max_continuations": 1}})
    with FakeGemini([WRITE, cut, cut, cut]) as fake:
        run = case.run(env=fake.env())
        sent = len(fake.generate_requests)
    assert_agree(run, "budget_exhausted", 3)
    assert sent == 3  # the write, the cut answer, one continuation
    stop = [e for e in run.events if isinstance(e, ev.BudgetExhaustedEvent)]
    assert [(e.limit, e.used, e.cap) for e in stop] == [("max_output_tokens", 1, 1)]
    assert "max_output_tokens" in run.result["reason"]
    assert run.result["summary"] == (cut["text"] * 2).strip()
    assert run.result["changed_files"] == ["fix.txt"]  # the work so far is kept
