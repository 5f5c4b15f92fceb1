"""A task's events as a timeline for report.html: turns, tool calls with their decisions, and
everything else that happened (retries, fallbacks, compression, loop warnings, hooks, verify).

Every event becomes at most one :class:`Item`; a tool call's request, decision and response
are one item. An event type this version does not know becomes a plain item showing its type
and fields, so a log written by a newer agentci still shows everything. Texts are cut to
:data:`MAX_TEXT` characters, and a timeline longer than :data:`MAX_ITEMS` keeps its first and
last items and says how many were left out (events.jsonl has them all).

:func:`turn_usage` sums the tokens and cost of each turn (its model calls, retries included)
for the chart.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentci.events import types as ev
from agentci.events.read import AnyEvent, OtherEvent

MAX_TEXT = 1500
MAX_ITEMS = 600
HEAD_ITEMS = 400  # with MAX_ITEMS - HEAD_ITEMS kept from the end

#: The stamp every event has; not repeated in an unknown event's fields.
_STAMP = {"v", "seq", "ts", "run_id", "task", "type"}


def cut(text: str | None, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    text = text or ""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit:,} more characters in events.jsonl)"


@dataclass
class Item:
    """One entry of the timeline. ``kind`` picks its look (a CSS class); ``tone`` is
    ``""``, ``ok``, ``warn`` or ``bad``."""

    kind: str
    title: str
    ts: str = ""
    text: str = ""  # shown as a block
    detail: str = ""  # shown folded (<details>)
    tone: str = ""
    tags: list[str] = field(default_factory=list)


@dataclass
class Turn:
    """A model turn and what followed it until the next turn."""

    number: int  # 0: before the first turn (setup, baseline verify)
    items: list[Item] = field(default_factory=list)
    tokens: int = 0
    cost: float | None = None

    @property
    def tone(self) -> str:
        """The worst tone of its items (``bad`` before ``warn``), for the folded turn's edge."""
        tones = {item.tone for item in self.items}
        return next((t for t in ("bad", "warn") if t in tones), "")

    def digest(self) -> list[tuple[str, str]]:
        """What the folded turn shows on its line: ``(text, tone)`` per tool call (its name,
        ``denied`` when the policy refused it), per verify run, and per item that went wrong."""
        shown: list[tuple[str, str]] = []
        for item in self.items:
            if item.kind == "tool":
                denied = "denied" in item.tags
                shown.append((f"{item.title} denied" if denied else item.title, item.tone))
            elif item.kind in ("verify", "task") or item.tone in ("bad", "warn"):
                shown.append((cut(item.title.split(" · ")[0], 60), item.tone))
        return shown


@dataclass
class Timeline:
    turns: list[Turn]
    omitted: int = 0  # items left out in the middle


def _args(args: dict[str, Any]) -> str:
    return cut(json.dumps(args, ensure_ascii=False, indent=1), MAX_TEXT)


def _other(event: OtherEvent) -> Item:
    fields = {k: v for k, v in event.data.items() if k not in _STAMP}
    text = json.dumps(fields, ensure_ascii=False, indent=1, default=str) if fields else ""
    return Item("other", event.type, ts=str(event.data.get("ts", "")), text=cut(text))


def _verify(e: ev.VerifyResult) -> Item:
    label = "baseline" if e.phase == "baseline" else f"attempt {e.attempt}"
    counts = ", ".join(f"{v} {k}" for k, v in e.counts.items() if v)
    code = "no exit code" if e.exit_code is None else f"exit {e.exit_code}"
    title = f"verify ({label}) {'passed' if e.passed else 'failed'} · {code}"
    tone = (
        "ok" if e.passed else "" if e.phase == "baseline" else "bad"
    )  # a failing baseline: the task
    return Item(
        "verify", title + (f" · {counts}" if counts else ""), tone=tone,
        text=cut(e.command, 500), detail=cut(e.output_tail),
    )  # fmt: skip


def _item(e: ev.Event) -> Item | None:  # noqa: C901 - one branch per event type
    """The timeline item of a single event (tool calls are handled by the builder)."""
    match e:
        case ev.Content():
            return Item("content", "model", text=cut(e.text)) if e.text.strip() else None
        case ev.Thought():
            return Item("thought", "thinking", text=cut(e.text))
        case ev.Retry():
            text = f"attempt {e.attempt}, after {e.delay_seconds:.1f} s: {e.reason}"
            return Item("retry", "retry", text=cut(text), tone="warn")
        case ev.ModelFallback():
            text = f"{e.from_model} → {e.to_model}: {e.reason}"
            return Item("fallback", "model fallback", text=cut(text), tone="warn")
        case ev.ChatCompressed():
            text = f"history: {e.tokens_before:,} → {e.tokens_after:,} tokens (estimated)"
            status = e.status.replace("_", " ")
            tone = "warn" if e.status.startswith("failed") else ""
            return Item("compressed", f"chat compressed: {status}", text=text, tone=tone)
        case ev.ContextWindowWillOverflow():
            text = f"about {e.estimated_tokens:,} tokens for a window of {e.limit:,}"
            return Item("overflow", "context window will overflow", text=text, tone="warn")
        case ev.LoopDetectedEvent():
            what = "nudged to recover" if e.recovering else "stopped"
            title = f"loop detected ({e.kind}): {what}"
            return Item("loop", title, text=cut(e.detail), tone="warn" if e.recovering else "bad")
        case ev.HookResult():
            code = "no exit code" if e.exit_code is None else f"exit {e.exit_code}"
            broken = e.exit_code not in (0, 2)
            tone = "bad" if e.decision in ("deny", "stop", "block") else "warn" if broken else ""
            text = e.command + (f" — {e.reason}" if e.reason else "")
            if e.args is not None:
                text += f" — arguments now: {json.dumps(e.args, ensure_ascii=False)}"
            return Item("hook", f"hook {e.hook} · {code} · {e.decision}", text=cut(text, 1000),
                        detail=cut(e.output), tone=tone)  # fmt: skip
        case ev.InvalidStream():
            return Item("invalid", f"invalid model answer (attempt {e.attempt})",
                        text=cut(e.reason), tone="warn")  # fmt: skip
        case ev.AgentExecutionBlocked() | ev.AgentExecutionStopped():
            return Item("stopped", e.type.replace("_", " "), text=cut(e.reason), tone="bad")
        case ev.VerifyResult():
            return _verify(e)
        case ev.BudgetExhaustedEvent():
            text = f"{e.limit}: {e.used:g} of {e.cap:g}" + (f" — {e.reason}" if e.reason else "")
            return Item("budget", "budget exhausted", text=cut(text), tone="bad")
        case ev.Error():
            tone = "bad" if e.kind in _STOPPING_KINDS else "warn"
            return Item("error", e.kind, text=cut(e.message), detail=cut(e.traceback), tone=tone)
        case ev.WarningEvent():
            return Item("warning", e.kind, text=cut(e.message), tone="warn")
        case ev.UserCancelled():
            return Item("cancelled", f"cancelled by {e.signal}", tone="bad")
        case ev.ModelInfo():
            version = f" ({e.model_version})" if e.model_version else ""
            return Item("info", f"model {e.model}{version}")
        case ev.TaskStarted():
            return Item("task", f"task started · model {e.model}", text=cut(e.prompt))
        case ev.TaskFinished():
            tone = "ok" if e.exit_code == 0 else "bad"
            return Item("task", f"task finished: {e.status} (exit {e.exit_code})",
                        text=cut(e.reason), tone=tone)  # fmt: skip
    return None


_STOPPING_KINDS = {
    "internal_error", "provider_error", "provider_unavailable", "invalid_input", "blocked", "verify_failed",
    "budget_exhausted", "loop_detected", "invalid_output", "cancelled",
}  # fmt: skip


def build_timeline(events: Iterable[AnyEvent]) -> Timeline:
    """The timeline of one task's events (already filtered to the task), in order."""
    turns = [Turn(0)]
    calls: dict[str, Item] = {}
    model = ""
    for e in events:
        turn = turns[-1]
        item: Item | None
        if isinstance(e, ev.ModelInfo):
            key = f"{e.model} {e.model_version}"
            if key == model:  # shown once, and again when it changes (a fallback)
                continue
            model = key
        if isinstance(e, OtherEvent):
            item = _other(e)
        elif isinstance(e, ev.TurnStarted):
            turns.append(Turn(e.turn))
            continue
        elif isinstance(e, ev.Usage):
            turn.tokens += e.prompt_tokens + e.output_tokens + e.thoughts_tokens
            if e.cost_usd is not None:
                turn.cost = (turn.cost or 0.0) + e.cost_usd
            continue
        elif isinstance(e, ev.ToolCallRequest):
            item = Item("tool", e.name, text=_args(e.args), tags=["requested"])
            calls[e.call_id] = item
        elif isinstance(e, ev.ToolCallDecision):
            _decide(calls.get(e.call_id), e, turn)
            continue
        elif isinstance(e, ev.ToolCallResponse):
            _respond(calls.pop(e.call_id, None), e, turn)
            continue
        else:
            item = _item(e)
        if item is not None:
            item.ts = item.ts or getattr(e, "ts", "")
            turn.items.append(item)
    if not turns[0].items and len(turns) > 1:
        turns.pop(0)
    return _capped(turns)


def _decide(item: Item | None, e: ev.ToolCallDecision, turn: Turn) -> None:
    if item is None:  # a decision without its request (a cut log): show it alone
        item = Item("tool", e.name)
        turn.items.append(item)
    item.tags = ["allowed" if e.decision == "allow" else "denied", e.rule]
    if e.decision == "deny":
        item.tone = "bad"
        item.detail = cut(e.reason)


def _respond(item: Item | None, e: ev.ToolCallResponse, turn: Turn) -> None:
    if item is None:
        item = Item("tool", e.name)
        turn.items.append(item)
    if e.exit_code is not None:
        item.tags.append(f"exit {e.exit_code}")
    item.tags.append(f"{e.duration_ms} ms")
    if not e.ok:
        item.tone = item.tone or "warn"
        item.detail = cut(e.error) or item.detail
    else:
        item.detail = cut(e.output)


def _capped(turns: list[Turn]) -> Timeline:
    """At most :data:`MAX_ITEMS` items: the first ones and the last ones."""
    count = sum(len(t.items) for t in turns)
    if count <= MAX_ITEMS:
        return Timeline(turns)
    keep_head, keep_tail = HEAD_ITEMS, MAX_ITEMS - HEAD_ITEMS
    seen = 0
    kept = []
    for turn in turns:
        start, end = seen, seen + len(turn.items)
        items = [
            item
            for i, item in enumerate(turn.items, start)
            if i < keep_head or i >= count - keep_tail
        ]
        if items or not turn.items:  # a turn whose items were all left out is left out
            turn.items = items
            kept.append(turn)
        seen = end
    return Timeline(kept, omitted=count - MAX_ITEMS)


def turn_usage(events: Iterable[AnyEvent]) -> list[tuple[int, int, int, float | None]]:
    """``(turn, input tokens, output tokens, cost)`` per turn with a model call, in order;
    output counts the thinking tokens, cost is None when no price is known."""
    rows: dict[int, list[Any]] = {}
    current = 0
    for e in events:
        if isinstance(e, ev.TurnStarted):
            current = e.turn
        elif isinstance(e, ev.Usage):
            row = rows.setdefault(current, [current, 0, 0, None])
            row[1] += e.prompt_tokens
            row[2] += e.output_tokens + e.thoughts_tokens
            if e.cost_usd is not None:
                row[3] = (row[3] or 0.0) + e.cost_usd
    return [tuple(r) for r in rows.values()]  # type: ignore[misc]
