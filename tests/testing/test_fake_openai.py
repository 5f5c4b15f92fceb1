"""fake_openai over raw HTTP: routes, how a script turn is streamed, errors, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_fake_gemini import post, sse_events

from agentci.testing.fake_openai import FakeOpenAI

CALL = {"name": "read_file", "args": {"file_path": "a.py"}}


def test_a_turn_streams_as_openai_chunks_ending_with_usage_and_done() -> None:
    turn = {"thought": "hmm", "text": "Hi", "function_calls": [CALL],
            "usage": {"prompt": 10, "output": 5, "thoughts": 3, "cached": 2}}  # fmt: skip
    with FakeOpenAI([turn]) as fake:
        body = {"model": "m", "messages": [], "stream": True,
                "stream_options": {"include_usage": True}}  # fmt: skip
        code, headers, data = post(f"{fake.api_base}/chat/completions", body)
    assert code == 200 and headers["Content-Type"] == "text/event-stream"
    assert data.decode().rstrip().endswith("data: [DONE]")
    events = sse_events(data.replace(b"data: [DONE]", b""))
    deltas = [e["choices"][0]["delta"] for e in events if e["choices"]]
    assert deltas[:3] == [{"role": "assistant", "content": ""}, {"reasoning_content": "hmm"},
                          {"content": "Hi"}]  # fmt: skip
    assert deltas[3]["tool_calls"][0] == {"index": 0, "id": "call_0_0", "type": "function",
                                          "function": {"name": "read_file", "arguments": ""}}  # fmt: skip
    pieces = [d["tool_calls"][0]["function"]["arguments"] for d in deltas[4:-1]]
    assert len(pieces) == 3 and json.loads("".join(pieces)) == CALL["args"]
    assert events[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert events[-1]["choices"] == []
    assert events[-1]["usage"] == {
        "prompt_tokens": 10, "completion_tokens": 8, "total_tokens": 18,
        "prompt_tokens_details": {"cached_tokens": 2},
        "completion_tokens_details": {"reasoning_tokens": 3},
    }  # fmt: skip


def test_usage_only_when_asked_and_never_with_no_usage() -> None:
    with FakeOpenAI([{"text": "a"}, {"text": "b"}, {"text": "c", "no_usage": True}]) as fake:
        url = f"{fake.api_base}/chat/completions"
        asked = {"stream": True, "stream_options": {"include_usage": True}}
        last = []
        for body in ({"stream": True}, asked, asked):
            _, _, data = post(url, body)
            last.append(sse_events(data.replace(b"data: [DONE]", b""))[-1])
    assert ["usage" in e for e in last] == [False, True, False]


def test_errors_come_in_openais_shape_with_their_headers() -> None:
    turns = [{"error": {"code": 429, "retry_after": 2}}, {"error": {"code": 429, "retry_delay": 0.5}},
             {"error": {"code": 401}}, {"error": {"code": 429, "quota": "daily"}},
             {"block_reason": "SAFETY"}]  # fmt: skip
    with FakeOpenAI(turns) as fake:
        url = f"{fake.api_base}/chat/completions"
        answers = [post(url, {"stream": True}) for _ in turns]
    assert answers[0][0] == 429 and answers[0][1]["Retry-After"] == "2"
    assert answers[1][1]["retry-after-ms"] == "500"
    assert json.loads(answers[2][2])["error"]["code"] == "invalid_api_key"
    quota = json.loads(answers[3][2])["error"]
    assert (
        quota["code"] == "insufficient_quota" and "check your plan and billing" in quota["message"]
    )
    assert answers[4][0] == 400 and json.loads(answers[4][2])["error"]["code"] == "content_filter"


def test_any_prefix_of_chat_completions_is_served_and_models_are_listed() -> None:
    with FakeOpenAI([{"text": "azure"}], scripts={"mine": []}) as fake:
        code, _, data = post(f"{fake.base_url}/openai/v1/chat/completions", {"model": "x"})
        assert code == 200
        assert json.loads(data)["choices"][0]["message"]["content"] == "azure"
        assert fake.requests[0].api_version == "v1"
        code, _, _ = post(f"{fake.base_url}/v1/completions", {})
        assert code == 404
        import urllib.request

        with urllib.request.urlopen(f"{fake.api_base}/models", timeout=5) as r:
            assert [m["id"] for m in json.load(r)["data"]] == ["fake-model", "mine"]


def test_cli_serves_a_script(tmp_path: Path) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps([{"text": "from the cli"}]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentci.testing.fake_openai", "--script", str(script)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.startswith("OPENAI_BASE_URL=http://127.0.0.1:") and line.endswith("/v1")
        _, _, data = post(f"{line.split('=', 1)[1]}/chat/completions", {"model": "m"})
        assert json.loads(data)["choices"][0]["message"]["content"] == "from the cli"
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
