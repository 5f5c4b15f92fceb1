"""On a terminal the console keeps a live status line: task, turn, tokens, cost, what runs."""

from __future__ import annotations

import io

from rich.console import Console

from agentci.events import types as ev
from agentci.events.live import LiveConsoleSink


def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, color_system=None, width=120), out


EVENTS = [
    ev.TaskStarted(task="fix", model="gemini-2.5-flash", workspace="/ws", prompt="p"),
    ev.TurnStarted(task="fix", turn=2),
    ev.Usage(
        task="fix",
        model="gemini-2.5-flash",
        totals=ev.UsageTotals(total_tokens=12345, cost_usd=0.0123),
    ),
    ev.ToolCallRequest(task="fix", call_id="c1", name="read_file", args={"file_path": "a.py"}),
]


def test_the_status_line_shows_turn_tokens_cost_and_the_running_tool():
    console, out = _terminal()
    sink = LiveConsoleSink(console, sanitize=lambda text: text)
    for event in EVENTS:
        sink.write(event)
    assert "fix · turn 2 · 12,345 tokens · $0.0123 · → read_file" in out.getvalue()
    sink.close()


def test_the_event_lines_are_printed_above_it():
    console, out = _terminal()
    sink = LiveConsoleSink(console, sanitize=lambda text: text)
    for event in EVENTS:
        sink.write(event)
    sink.close()
    text = out.getvalue()
    assert "▸ task fix: model gemini-2.5-flash, workspace /ws" in text
    assert '  → read_file {"file_path": "a.py"}' in text


def test_the_status_line_is_sanitised_like_the_lines():
    console, out = _terminal()
    sink = LiveConsoleSink(console, sanitize=lambda text: text.replace("::", ": :"))
    sink.write(ev.TaskStarted(task="a::b", model="m", workspace="/ws", prompt="p"))
    sink.close()
    assert "a::b" not in out.getvalue()
