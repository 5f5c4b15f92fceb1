"""report.html never shows a secret, even one that HTML escaping would rewrite."""

from __future__ import annotations

import json
from pathlib import Path

from agentci.events.read import read_events
from agentci.outcome import Status
from agentci.reports.html_report import render_report_html
from agentci.reports.redact import Redactor
from agentci.reports.report import RunReport, TaskReport


def _log(path: Path, text: str) -> Path:
    events = [
        {"type": "turn_started", "turn": 1},
        {"type": "content", "text": text},
    ]
    lines = [json.dumps({"v": 1, "seq": i, "run_id": "r", "task": "t", **e}) for i, e in
             enumerate(events, 1)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


def _page(tmp_path: Path, secret: str) -> str:
    log = read_events(_log(tmp_path / "events.jsonl", f"the password is {secret} here"))
    run = RunReport(run_id="r", recipe="r.yaml", recipe_name="r", status=Status.success,
                    exit_code=0, tasks=[TaskReport(name="t", status=Status.success, exit_code=0)])  # fmt: skip
    return render_report_html(
        run, log, patch={"t": f"+x = '{secret}'\n"}, redactor=Redactor([secret])
    )


def test_a_secret_holding_markup_characters_is_masked_before_escaping(tmp_path: Path):
    secret = "p<a&ss\"w0rd'x"
    page = _page(tmp_path, secret)
    assert "p&lt;a&amp;ss" not in page and secret not in page
    assert "the password is *** here" in page
    assert "+x = &#39;***&#39;" in page


def test_a_plain_secret_is_masked_in_the_diff_before_the_final_pass(tmp_path: Path):
    page = _page(tmp_path, "hunter2hunter2")
    assert "+x = &#39;***&#39;" in page  # the diff's lines are redacted when they are cut


def test_a_secret_in_the_final_message_is_masked_before_the_markdown_is_rendered(tmp_path: Path):
    secret = "p<a&ss\"w0rd'x"
    log = read_events(_log(tmp_path / "events.jsonl", "done"))
    task = TaskReport(name="t", status=Status.success, exit_code=0,
                      summary=f"**Done.** The key is `{secret}` and {secret}.")  # fmt: skip
    run = RunReport(run_id="r", recipe="r.yaml", recipe_name="r", status=Status.success,
                    exit_code=0, tasks=[task])  # fmt: skip
    page = render_report_html(run, log, patch=None, redactor=Redactor([secret]))
    assert "<strong>Done.</strong> The key is <code>***</code> and ***." in page
    assert "p&lt;a&amp;ss" not in page and secret not in page
