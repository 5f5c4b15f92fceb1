"""fake_gemini over raw HTTP: routes, script shapes, faults, recording, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agentci.testing.fake_gemini import FakeGemini
from agentci.testing.fake_script import parse_script


def post(url: str, body: object) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def sse_events(data: bytes) -> list[dict]:
    return [
        json.loads(line[6:]) for line in data.decode().splitlines() if line.startswith("data: ")
    ]


def test_generate_stream_and_count_tokens() -> None:
    turns = [
        {"text": "Hi", "usage": {"prompt": 3, "output": 1}},
        {"function_calls": [{"name": "ls", "args": {}, "id": "c1"}], "finish_reason": None},
    ]
    with FakeGemini(turns) as fake:
        code, _, data = post(f"{fake.base_url}/v1beta/models/m1:generateContent", {"contents": []})
        assert code == 200
        body = json.loads(data)
        assert body["candidates"][0]["content"]["parts"] == [{"text": "Hi"}]
        assert body["candidates"][0]["finishReason"] == "STOP"
        assert body["usageMetadata"]["promptTokenCount"] == 3
        code, headers, data = post(
            f"{fake.base_url}/v1alpha/models/m2:streamGenerateContent?alt=sse",
            {"contents": [{"role": "user", "parts": [{"text": "x"}]}]},
        )
        assert headers["Content-Type"] == "text/event-stream"
        events = sse_events(data)
        assert events[0]["candidates"][0]["content"]["parts"][0]["functionCall"]["id"] == "c1"
        assert "candidates" not in events[-1]  # no finish reason scripted
        code, _, data = post(f"{fake.base_url}/v1/models/m1:countTokens", {"contents": []})
        assert code == 200 and json.loads(data)["totalTokens"] >= 1
        # the script is spent: a clear 400, not an invented answer
        code, _, data = post(f"{fake.base_url}/v1/models/m1:generateContent", {})
        assert code == 400 and b"no turn 3" in data
        reqs = fake.requests
        assert [r.model for r in reqs] == ["m1", "m2", "m1", "m1"]
        assert [r.api_version for r in reqs] == ["v1beta", "v1alpha", "v1", "v1"]
        assert reqs[1].query == {"alt": ["sse"]}
        assert reqs[1].parts("text") == [{"text": "x"}]
        assert [r.turn for r in fake.generate_requests] == [0, 1, 2]


def test_errors_carry_retry_info_and_headers() -> None:
    turns = [
        {"error": {"code": 429, "retry_delay": 1.5, "quota": "daily"}},
        {"error": {"code": 503, "retry_after": 2}},
    ]
    with FakeGemini(turns) as fake:
        code, _, data = post(f"{fake.base_url}/v1/models/m:streamGenerateContent?alt=sse", {})
        err = json.loads(data)["error"]
        assert code == 429 and err["status"] == "RESOURCE_EXHAUSTED"
        types = [d["@type"].rsplit(".", 1)[-1] for d in err["details"]]
        assert types == ["QuotaFailure", "RetryInfo"]
        assert err["details"][1]["retryDelay"] == "1.5s"
        code, headers, _ = post(f"{fake.base_url}/v1/models/m:generateContent", {})
        assert code == 503 and headers["Retry-After"] == "2"


def test_block_reason_and_raw_chunks() -> None:
    turns = [{"block_reason": "SAFETY"}, [{"candidates": [{"finishReason": "RECITATION"}]}]]
    with FakeGemini(turns) as fake:
        _, _, data = post(f"{fake.base_url}/v1/models/m:streamGenerateContent?alt=sse", {})
        (ev,) = sse_events(data)
        assert ev["promptFeedback"] == {"blockReason": "SAFETY"} and "candidates" not in ev
        _, _, data = post(f"{fake.base_url}/v1/models/m:streamGenerateContent?alt=sse", {})
        assert sse_events(data) == [{"candidates": [{"finishReason": "RECITATION"}]}]


def test_unknown_route_and_bad_script() -> None:
    with FakeGemini([]) as fake:
        code, _, _ = post(f"{fake.base_url}/v2/models/m:generateContent", {})
        assert code == 404
    with pytest.raises(ValueError):
        parse_script([{"txt": "typo"}])


def test_cli_serves_a_script(tmp_path: Path) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps({"turns": [{"text": "from the cli"}]}))
    record = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentci.testing.fake_gemini",
            "--script",
            str(script),
            "--record",
            str(record),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:")
        base = line.split("=", 1)[1]
        _, _, data = post(f"{base}/v1beta/models/m:generateContent", {"contents": []})
        assert json.loads(data)["candidates"][0]["content"]["parts"][0]["text"] == "from the cli"
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
    assert (
        json.loads(record.read_text().splitlines()[0])["path"] == "/v1beta/models/m:generateContent"
    )


def test_a_model_with_its_own_script_keeps_its_conversation_whatever_the_order() -> None:
    scripts = {"gemini-a": [{"text": "a1"}, {"text": "a2"}], "gemini-b": [{"text": "b1"}]}
    with FakeGemini([{"text": "shared"}], scripts=scripts) as fake:

        def answer(model: str) -> tuple[int, str]:
            code, _, data = post(f"{fake.base_url}/v1beta/models/{model}:generateContent", {})
            body = json.loads(data)
            return code, body["candidates"][0]["content"]["parts"][0]["text"] if code == 200 else ""

        assert [answer(m) for m in ("gemini-a", "gemini-b", "gemini-other", "gemini-a")] == [
            (200, "a1"), (200, "b1"), (200, "shared"), (200, "a2"),
        ]  # fmt: skip
        code, _, data = post(f"{fake.base_url}/v1beta/models/gemini-b:generateContent", {})
        assert code == 400 and b"no turn 2 (it holds 1)" in data
