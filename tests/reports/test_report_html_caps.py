"""report.html stays small for huge runs: the timeline and the diff are cut, saying so."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from agentci.outcome import Status
from agentci.reports.html_report import MAX_DIFF_LINES, render_run_html
from agentci.reports.redact import Redactor
from agentci.reports.report import RunReport, TaskReport
from agentci.reports.timeline import MAX_ITEMS


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skip = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.skip = tag == "style"

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def _text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def _huge_run(out: Path, turns: int) -> RunReport:
    with (out / "events.jsonl").open("w") as fh:
        seq = 0
        for turn in range(1, turns + 1):
            for event in (
                {"type": "turn_started", "turn": turn},
                {"type": "tool_call_request", "call_id": f"c{turn}", "name": "read_file",
                 "args": {"file_path": f"f{turn}.py"}},
                {"type": "tool_call_response", "call_id": f"c{turn}", "name": "read_file",
                 "ok": True, "output": "x" * 5_000},
                {"type": "usage", "model": "m", "prompt_tokens": 100 * turn, "output_tokens": 5},
            ):  # fmt: skip
                seq += 1
                fh.write(json.dumps({"v": 1, "seq": seq, "run_id": "r", "task": "t", **event}))
                fh.write("\n")
    task = TaskReport(name="t", status=Status.budget_exhausted, exit_code=3, turns=turns)
    return RunReport(run_id="r", recipe="r.yaml", recipe_name="huge", tasks=[task],
                     status=Status.budget_exhausted, exit_code=3)  # fmt: skip


def test_a_huge_run_gives_a_page_with_cut_timeline_and_diff(tmp_path: Path):
    run = _huge_run(tmp_path, turns=2000)
    patch = "".join(f"+line {i}\n" for i in range(MAX_DIFF_LINES + 1234))
    html = render_run_html(tmp_path, run, {"t": patch}, Redactor())
    text = _text(html)
    assert f"{2000 - MAX_ITEMS:,} timeline entries in the middle are not shown" in text
    assert "1,234 more lines of the patch are not shown: see patch.diff" in text
    assert "f1.py" in text and "f2000.py" in text  # the first and the last calls are kept
    assert "f1000.py" not in text
    assert f"+line {MAX_DIFF_LINES - 1}" in text and f"+line {MAX_DIFF_LINES}" not in text
    assert "more characters in events.jsonl" in text  # long tool outputs are cut too
    assert len(html) < 2_000_000


def test_the_chart_still_covers_every_turn(tmp_path: Path):
    run = _huge_run(tmp_path, turns=2000)
    text = _text(render_run_html(tmp_path, run, None, Redactor()))
    assert "turns 1–10" in text and "turns 1991–2000" in text  # 200 bars of 10 turns each


def test_a_log_larger_than_the_page_reads_is_cut_with_a_note(tmp_path: Path):
    from agentci.reports import html_report

    run = _huge_run(tmp_path, turns=300)
    size = (tmp_path / "events.jsonl").stat().st_size
    log = html_report.read_events(tmp_path / "events.jsonl", max_bytes=size // 2)
    text = _text(html_report.render_report_html(run, log, patch=None, redactor=Redactor()))
    assert "events.jsonl is larger than this page reads: its later events are not shown" in text
    assert "f1.py" in text and "f300.py" not in text


def test_a_private_key_spanning_diff_lines_is_masked_whole(tmp_path: Path):
    run = _huge_run(tmp_path, turns=1)
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
    patch = (
        "diff --git a/k.pem b/k.pem\n--- /dev/null\n+++ b/k.pem\n@@ -0,0 +1,4 @@\n"
        f"+-----BEGIN PRIVATE KEY-----\n+{body}\n+{body[::-1]}\n+-----END PRIVATE KEY-----\n"
    )
    html = render_run_html(tmp_path, run, {"t": patch}, Redactor())
    assert body not in html and body[::-1] not in html
    assert "+++ b/k.pem" in _text(html)
