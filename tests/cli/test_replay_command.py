"""``agentci replay``: a finished run's events shown again, whatever the log holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentci.testing.cli import agentci

STAMP = {"v": 1, "run_id": "r1", "ts": "2026-01-01T00:00:00.000Z"}


def _log(path: Path, *events: dict) -> Path:
    lines = [json.dumps({**STAMP, "seq": i, **e}) for i, e in enumerate(events, 1)]
    path.write_text("\n".join(lines) + "\n")
    return path


START = {"type": "run_started", "task": "", "recipe": "r.yaml", "recipe_name": "demo",
         "tasks": ["t"], "agentci_version": "0.1.0"}  # fmt: skip
CALL = {"type": "tool_call_request", "task": "t", "call_id": "c1", "name": "read_file",
        "args": {"file_path": "a.py"}}  # fmt: skip
FUTURE = {"type": "plan_updated", "task": "t", "steps": ["read", "fix"]}
TASK_END = {"type": "task_finished", "task": "t", "status": "success", "exit_code": 0,
            "turns": 1, "changed_files": ["a.py"]}  # fmt: skip
RUN_END = {"type": "run_finished", "task": "", "status": "success", "exit_code": 0}


def test_an_event_type_this_version_does_not_know_is_skipped_by_the_console(tmp_path: Path):
    log = _log(tmp_path / "events.jsonl", START, CALL, FUTURE, TASK_END, RUN_END)
    done = agentci("replay", str(log))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "agentci 0.1.0: demo (r.yaml)",
        '  → read_file {"file_path": "a.py"}',
        "■ task t: success (exit 0), 1 turns, 1 file changed",
        "agentci: success (exit 0), 0 tokens",
    ]


def test_the_jsonl_format_keeps_unknown_events_as_they_are(tmp_path: Path):
    log = _log(tmp_path / "events.jsonl", START, FUTURE, RUN_END)
    done = agentci("replay", str(log), "--format", "jsonl")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["type"] for line in lines] == ["run_started", "plan_updated", "run_finished"]
    assert lines[1]["steps"] == ["read", "fix"]


def test_the_html_format_shows_unknown_events_in_the_timeline(tmp_path: Path):
    log = _log(tmp_path / "events.jsonl", START, CALL, FUTURE, TASK_END, RUN_END)
    done = agentci("replay", str(log), "--format", "html")
    assert done.returncode == 0, done.stderr
    assert "plan_updated" in done.stdout
    assert "&#34;fix&#34;" in done.stdout or "&quot;fix&quot;" in done.stdout


def test_a_log_cut_before_run_finished_says_so(tmp_path: Path):
    log = _log(tmp_path / "events.jsonl", START, CALL)
    with log.open("a") as fh:
        fh.write('{"v":1,"seq":3,"type":"tool_call_resp')  # a kill in the middle of a line
    done = agentci("replay", str(log), "--format", "summary")
    assert done.returncode == 0, done.stderr
    assert "status `internal_error`, exit code 70" in done.stdout
    assert "ends before run_finished" in done.stdout


def test_unreadable_lines_are_skipped_and_counted_in_one_warning(tmp_path: Path):
    log = _log(tmp_path / "events.jsonl", START, CALL, TASK_END, RUN_END)
    lines = log.read_bytes().splitlines(keepends=True)
    deep, not_utf8 = b"[" * 100_000 + b"]" * 100_000 + b"\n", b'{"type": "caf\xe9"}\n'
    log.write_bytes(lines[0] + deep + lines[1] + not_utf8 + b"".join(lines[2:]))
    done = agentci("replay", str(log))
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        f"agentci: warning: {log}: 2 line(s) skipped (not a JSON object: cut, not UTF-8 or "
        "nested too deep)\n"
    )
    assert done.stdout.splitlines()[-1] == "agentci: success (exit 0), 0 tokens"


def test_a_missing_log_is_a_user_error(tmp_path: Path):
    done = agentci("replay", str(tmp_path / "nope.jsonl"))
    assert done.returncode == 2
    assert "nope.jsonl: cannot read the events" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_file_that_holds_no_events_is_a_user_error(tmp_path: Path):
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    done = agentci("replay", str(path))
    assert (done.returncode, done.stderr.strip()) == (
        2,
        f"Error: {path}: no events (is it an agentci events.jsonl?)",
    )


def test_version_imports_neither_jinja2_nor_the_report():
    import subprocess
    import sys

    code = (
        "import sys; from agentci.cli import cli\n"
        "try:\n    cli(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('jinja2', 'agentci.reports.html_report') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.splitlines()[-1] == "[]"


def test_the_html_timeline_shows_compression_and_loop_warnings(tmp_path: Path):
    compressed = {"type": "chat_compressed", "task": "t", "tokens_before": 120000,
                  "tokens_after": 30000, "status": "compressed"}  # fmt: skip
    loop = {"type": "loop_detected", "task": "t", "kind": "repeated_tool_call",
            "detail": "read_file a.py 5 times", "recovering": True}  # fmt: skip
    log = _log(tmp_path / "events.jsonl", START, CALL, compressed, loop, TASK_END, RUN_END)
    done = agentci("replay", str(log), "--format", "html")
    assert "chat compressed: compressed" in done.stdout
    assert "120,000 → 30,000 tokens" in done.stdout
    assert "loop detected (repeated_tool_call): nudged to recover" in done.stdout


@pytest.mark.parametrize(
    "result",
    [
        {"run_id": "r1", "tasks": [{"name": [], "extra": {}}]},
        {"run_id": "r1", "tasks": [{"name": "t", "extra": {"verify": "x", "guards": 5}}]},
        {"run_id": "r1", "tasks": [{"name": "t", "extra": {"guards": [1], "branch": "b"}}]},
        {"run_id": "r1", "tasks": [{"name": "t", "extra": {"verify": {"fixed": 3}}}]},
        {"run_id": "r1", "tasks": "all"},
    ],
)
@pytest.mark.parametrize("fmt", ["summary", "html"])
def test_a_result_json_of_another_shape_is_left_out_with_a_warning(
    tmp_path: Path, result: dict, fmt: str
):
    _log(tmp_path / "events.jsonl", START, TASK_END, RUN_END)
    (tmp_path / "result.json").write_text(json.dumps(result))
    done = agentci("replay", str(tmp_path), "--format", fmt)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert (
        f"agentci: warning: {tmp_path / 'result.json'}: not agentci's result.json (" in done.stderr
    )
    assert "the view is made from the events alone" in done.stderr
    assert "success" in done.stdout


def test_a_result_json_that_is_a_link_is_not_read(tmp_path: Path):
    _log(tmp_path / "events.jsonl", START, TASK_END, RUN_END)
    (tmp_path / "elsewhere.json").write_text(json.dumps({"run_id": "r1", "tasks": []}))
    (tmp_path / "result.json").symlink_to(tmp_path / "elsewhere.json")
    done = agentci("replay", str(tmp_path), "--format", "summary")
    assert done.returncode == 0, done.stderr
    assert f"{tmp_path / 'result.json'}: not read (a symbolic link" in done.stderr
