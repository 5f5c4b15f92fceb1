"""Prompt caching: what the provider's cache served is reported, and the prompt agentci sends
keeps a stable prefix from one model call to the next (what implicit caching needs).

Through the real CLI and the real google-genai SDK against the fake Gemini server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from e2e_scenario import assert_agree, make_case

from agentci.testing.fake_gemini import FakeGemini

FAST = {"initial_delay_seconds": 0, "max_delay_seconds": 0}
FILES = {"a.txt": "alpha\n", "b.txt": "beta\n"}


def _call(name: str, cid: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": cid}


TURNS: list[dict[str, Any]] = [
    {"function_calls": [_call("read_file", "c1", file_path="a.txt")],
     "usage": {"prompt": 1000, "output": 10, "cached": 0}},
    {"function_calls": [_call("list_directory", "c2", dir_path=".")],
     "usage": {"prompt": 1200, "output": 10, "cached": 900}},
    {"function_calls": [_call("read_file", "c3", file_path="b.txt")],
     "usage": {"prompt": 1400, "output": 10, "cached": 1100}},
    {"text": "a says alpha, b says beta.", "usage": {"prompt": 1600, "output": 10, "cached": 1000}},
]  # fmt: skip


def _case(tmp_path: Path):
    model = {"name": "gemini-2.5-flash", "retry": FAST}
    return make_case(tmp_path, None, {"model": model, "allow_no_changes": True}, FILES)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def test_cached_tokens_and_the_hit_rate_are_reported_per_task_and_per_run(tmp_path: Path):
    with FakeGemini(TURNS) as fake:
        run = _case(tmp_path).run(env=fake.env())
    assert_agree(run, "no_changes", 0)
    used = run.result["usage"]
    assert (used["prompt_tokens"], used["cached_tokens"]) == (5200, 3000)
    assert used["cache_hit_rate"] == round(3000 / 5200, 4)
    (task,) = run.result["tasks"]
    assert task["usage"]["cached_tokens"] == 3000
    assert task["usage"]["cache_hit_rate"] == round(3000 / 5200, 4)
    summary = (run.out / "summary.md").read_text()
    assert "(3000 cached, cache hit rate 58%)" in summary
    assert "(58% cached)" in summary  # the task's row
    page = (run.out / "report.html").read_text()
    assert '<span id="cache-hit">cache hit rate 58%</span>' in page
    assert "3,000 of the input from the prompt cache" in page


def test_without_prompt_tokens_the_hit_rate_is_null(tmp_path: Path):
    with FakeGemini([{"text": "done", "usage": {"prompt": 0, "output": 3}}]) as fake:
        run = _case(tmp_path).run(env=fake.env())
    assert_agree(run, "no_changes", 0)
    assert run.result["usage"]["cache_hit_rate"] is None
    assert "cache hit rate" not in (run.out / "summary.md").read_text()


def test_each_request_starts_with_the_previous_request_unchanged(tmp_path: Path):
    """System instruction, tool declarations and the first N contents of request N+1 are the
    JSON of request N, byte for byte: nothing (time, ids, counters) is rendered again per turn,
    so the provider's prompt cache can serve the whole earlier conversation."""
    with FakeGemini(TURNS) as fake:
        run = _case(tmp_path).run(env=fake.env())
        bodies = [r.body for r in fake.generate_requests]
    assert_agree(run, "no_changes", 0)
    assert len(bodies) == 4
    for before, after in zip(bodies, bodies[1:], strict=False):
        assert _json(after["systemInstruction"]) == _json(before["systemInstruction"])
        assert _json(after["tools"]) == _json(before["tools"])
        n = len(before["contents"])
        assert len(after["contents"]) > n
        for i in range(n):
            assert _json(after["contents"][i]) == _json(before["contents"][i]), i
