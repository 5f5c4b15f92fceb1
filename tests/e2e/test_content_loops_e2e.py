"""A chanting answer streamed by the fake Gemini server through the real SDK is cut off and
caught; structured markdown that repeats itself is not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e_scenario import assert_agree, make_case

from agentci.events import types as ev
from agentci.testing.fake_gemini import FakeGemini

LIVE = {
    "model": {
        "name": "gemini-2.5-flash",
        "retry": {"attempts": 2, "initial_delay_seconds": 0.01, "max_delay_seconds": 0.02},
    },
    "allow_no_changes": True,
}
CHANT = "I will now run the tests again to see whether they pass. "


def streamed(text: str, size: int = 23, finish: str = "STOP") -> dict[str, Any]:
    """A turn whose text arrives in chunks of ``size`` characters, then the finish reason."""
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": p}]}, "index": 0}]}
        for p in pieces
    ]
    chunks.append(
        {
            "candidates": [{"index": 0, "finishReason": finish}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": len(text) // 4},
        }
    )
    return {"chunks": chunks}


def test_a_chanting_answer_is_cut_off_nudged_then_stopped(tmp_path: Path):
    chant = streamed("Let me check.\n" + CHANT * 200)
    case = make_case(tmp_path, None, LIVE)
    with FakeGemini([chant, chant]) as fake:
        run = case.run(env=fake.env())
        second = fake.generate_requests[1]
    assert_agree(run, "loop_detected", 4)
    loops = [e for e in run.events if isinstance(e, ev.LoopDetectedEvent)]
    assert [(e.kind, e.recovering) for e in loops] == [("content", True), ("content", False)]
    assert "run the tests again" in loops[0].detail
    shown = [e.text for e in run.events if isinstance(e, ev.Content)]
    assert len(shown) == 2 and all(len(t) < 1_000 for t in shown)  # cut off, not 11,000 chars
    nudge = second.contents[-1]["parts"][-1]["text"]
    assert nudge.startswith("agentci: you are repeating the same step")
    assert run.result["usage"]["model_calls"] == 2


def test_a_long_table_and_code_block_that_repeat_are_a_normal_answer(tmp_path: Path):
    table = "| test | outcome |\n|---|---|\n" + "| test_add | passed |\n" * 200
    code = "```python\n" + "assert add(1, 2) == 3  # checked once more\n" * 150 + "```\n"
    answer = "All tests pass:\n\n" + table + "\nThe check I added:\n\n" + code + "Done."
    case = make_case(tmp_path, None, LIVE)
    with FakeGemini([streamed(answer)]) as fake:
        run = case.run(env=fake.env())
    assert_agree(run, "no_changes", 0)
    assert not [e for e in run.events if isinstance(e, ev.LoopDetectedEvent)]
    assert run.result["summary"] == answer
