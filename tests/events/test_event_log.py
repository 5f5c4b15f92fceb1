"""Events: the union matches the contract, and the JSONL log is valid line by line."""

from __future__ import annotations

import io
import json
from pathlib import Path

from agentci.events import types as ev
from agentci.events.sinks import Emitter, EventLines, JsonlSink, StreamJsonlSink


def test_the_emitter_stamps_seq_ts_run_id_and_task(tmp_path: Path):
    sink = JsonlSink(tmp_path / "events.jsonl")
    emitter = Emitter("run123", [sink])
    emitter.emit(ev.Content(text="hello"), task="t1")
    emitter.emit(ev.TurnStarted(turn=2), task="t1")
    sink.close()
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    assert {k: first[k] for k in ("v", "seq", "run_id", "task", "type", "text")} == {
        "v": 1, "seq": 1, "run_id": "run123", "task": "t1", "type": "content", "text": "hello",
    }  # fmt: skip
    assert first["ts"].endswith("Z") and first["ts"][:4].isdigit()
    assert [ev.parse_event(line).seq for line in lines] == [1, 2]


def test_each_event_is_one_line_even_with_newlines_in_the_text(tmp_path: Path):
    sink = JsonlSink(tmp_path / "events.jsonl")
    Emitter("r", [sink]).emit(ev.Content(text="a\nb\r\nc\u2028d"))
    sink.close()
    lines = (tmp_path / "events.jsonl").read_bytes().split(b"\n")
    assert lines[1:] == [b""]
    assert ev.parse_event(lines[0]).text == "a\nb\r\nc\u2028d"


def test_the_log_applies_the_redaction_function(tmp_path: Path):
    def redact(data):
        return json.loads(json.dumps(data).replace("s3cr3t-value", "***"))

    sink = JsonlSink(tmp_path / "events.jsonl", redact=redact)
    Emitter("r", [sink]).emit(ev.Content(text="token s3cr3t-value here"))
    sink.close()
    assert "s3cr3t-value" not in (tmp_path / "events.jsonl").read_text()


def test_the_file_and_stdout_logs_share_one_redaction_per_event(tmp_path: Path):
    redacted: list[str] = []

    def redact(data):
        redacted.append(data["type"])
        return json.loads(json.dumps(data).replace("s3cr3t-value", "***"))

    lines = EventLines(redact)
    stdout = io.StringIO()
    sinks = [
        JsonlSink(tmp_path / "events.jsonl", lines=lines),
        StreamJsonlSink(stdout, lines=lines),
    ]
    emitter = Emitter("r", sinks)
    emitter.emit(ev.Content(text="token s3cr3t-value here"))
    emitter.emit(ev.TurnStarted(turn=2))
    sinks[0].close()
    assert redacted == ["content", "turn_started"]
    assert stdout.getvalue() == (tmp_path / "events.jsonl").read_text()
    assert "s3cr3t-value" not in stdout.getvalue()
