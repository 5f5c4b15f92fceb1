"""OpenTelemetry traces of a run, built from its events (the optional extra ``agentci-runner[otel]``).

On when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set or ``agentci run --otel``: spans
run → task → turn → model call / tool call, and verify and hook spans under their task, with
``gen_ai.*`` attributes (model, token usage, finish reasons, tool name and call id) and
agentci's own (cost, the policy's decision and rule, status and exit code). Errors, warnings and
retries are span events on the innermost open span of their task. With ``TRACEPARENT`` in the
environment the run span is a child of that trace. Every string that is exported — span names,
attributes, event attributes, status descriptions — goes through the run's redactor. Where the
spans go, and how the end waits for them: :mod:`agentci.events.otel_export`.

In ``agentci batch`` every task has its own sink, all under the batch's one run span
(:class:`BatchTrace`): the tasks run concurrently in one event loop, so each sink keeps its own
open spans and only the tracer is shared.

This module imports opentelemetry; nothing imports it unless tracing is on.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from opentelemetry.trace import Span, Status, StatusCode

from agentci.events import types as ev
from agentci.events.otel_export import Tracing
from agentci.events.sinks import utc_now


def _ns(ts: str) -> int | None:
    """An event's ``ts`` (``…Z``, which Python 3.10's fromisoformat does not read) in ns."""
    try:
        return (
            int(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1e9) if ts else None
        )
    except ValueError:
        return None


class OtelSink:
    """An event sink that turns a run's events into spans (see the module docstring).

    ``tracing`` and ``run_span`` are a batch's: this sink's task spans go under ``run_span``
    and the task's own ``run_started`` / ``run_finished`` are the batch's business."""

    def __init__(
        self,
        redact: Callable[[str], str],
        tracing: Tracing | None = None,
        run_span: Span | None = None,
    ) -> None:
        self._redact = redact
        self._owns_tracing = tracing is None
        self._tracing = tracing or Tracing()
        self._in_batch = run_span is not None
        self._run: Span | None = run_span
        self._tasks: dict[str, Span] = {}
        self._turns: dict[str, Span] = {}
        self._models: dict[str, Span] = {}
        self._tools: dict[str, tuple[str, Span]] = {}  # call id → (task, span)

    def _clean(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._redact(value)
        if isinstance(value, (list, tuple)):
            return [self._clean(v) for v in value]
        return value

    def _attrs(self, values: dict[str, Any]) -> dict[str, Any]:
        return {k: self._clean(v) for k, v in values.items() if v is not None}

    def _start(self, name: str, parent: Span | None, event: ev.Event, **attrs: Any) -> Span:
        return self._tracing.start(self._redact(name), parent, self._attrs(attrs), _ns(event.ts))

    def _end(self, span: Span | None, event: ev.Event, error: str = "") -> None:
        if span is None:
            return
        if error:
            span.set_status(Status(StatusCode.ERROR, self._redact(error)))
        span.end(end_time=_ns(event.ts))

    def _parent(self, task: str) -> Span | None:
        return self._tasks.get(task) or self._run

    def _innermost(self, event: ev.Event) -> Span:
        """The open span an event of its task belongs to (a run that never started, e.g.
        refused input, gets its run span now)."""
        t = event.task
        span = self._models.get(t) or self._turns.get(t) or self._parent(t)
        if span is None:
            span = self._run = self._start("agentci.run", None, event)
        return span

    def _add_event(self, name: str, event: ev.Event, **attrs: Any) -> None:
        self._innermost(event).add_event(name, self._attrs(attrs), timestamp=_ns(event.ts))

    def write(self, event: ev.Event) -> None:
        """Start or end the spans ``event`` marks."""
        t = event.task
        match event:
            case ev.RunStarted() if not self._in_batch:
                self._run = self._start(
                    "agentci.run", None, event, **{"agentci.recipe": event.recipe_name}
                )
            case ev.TaskStarted():
                self._tasks[t] = self._start(
                    f"agentci.task {t}", self._run, event,
                    **{"agentci.task": t, "gen_ai.request.model": event.model},
                )  # fmt: skip
            case ev.TurnStarted():
                self._end(self._turns.pop(t, None), event)
                self._turns[t] = self._start(
                    "agentci.turn", self._parent(t), event, **{"agentci.turn": event.turn}
                )
            case ev.ModelInfo():
                self._models[t] = self._start(
                    f"chat {event.model}", self._turns.get(t) or self._parent(t), event,
                    **{"gen_ai.operation.name": "chat", "gen_ai.request.model": event.model,
                       "gen_ai.response.model": event.model_version},
                )  # fmt: skip
            case ev.Usage():
                span = self._models.pop(t, None)
                if span is not None:
                    span.set_attributes(self._attrs({
                        "gen_ai.usage.input_tokens": event.prompt_tokens,
                        "gen_ai.usage.output_tokens": event.output_tokens,
                        "gen_ai.usage.cached_tokens": event.cached_tokens,
                        "agentci.usage.thoughts_tokens": event.thoughts_tokens,
                        "agentci.cost_usd": event.cost_usd,
                    }))  # fmt: skip
                self._end(span, event)
            case ev.TurnFinished() if t in self._turns:
                reasons = [event.finish_reason] if event.finish_reason else None
                self._turns[t].set_attributes(self._attrs({
                    "gen_ai.response.finish_reasons": reasons, "agentci.finish": event.finish}))  # fmt: skip
            case ev.ToolCallDecision() if event.call_id in self._tools:
                self._tools[event.call_id][1].set_attributes(self._attrs({
                    "agentci.decision": event.decision, "agentci.rule": event.rule}))  # fmt: skip
            case ev.ToolCallRequest():
                self._tools[event.call_id] = (t, self._start(
                    f"execute_tool {event.name}", self._turns.get(t) or self._parent(t), event,
                    **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": event.name,
                       "gen_ai.tool.call.id": event.call_id},
                ))  # fmt: skip
            case ev.ToolCallResponse():
                _, tool = self._tools.pop(event.call_id, ("", None))
                self._end(tool, event, event.error or "")
            case ev.VerifyResult():
                span = self._start("agentci.verify", self._parent(t), event, **{
                    "agentci.verify.phase": event.phase})  # fmt: skip
                self._end(span, event)
            case ev.HookResult():
                span = self._start("agentci.hook", self._parent(t), event, **{
                    "agentci.hook": event.hook, "agentci.hook.exit_code": event.exit_code,
                    "agentci.hook.decision": event.decision,
                    "agentci.hook.reason": event.reason or None})  # fmt: skip
                self._end(span, event)
            case ev.Error():
                self._add_event("agentci.error", event, **{
                    "agentci.error.kind": event.kind, "agentci.error.message": event.message})  # fmt: skip
            case ev.WarningEvent():
                self._add_event("agentci.warning", event, **{
                    "agentci.warning.kind": event.kind,
                    "agentci.warning.message": event.message})  # fmt: skip
            case ev.Retry():
                self._add_event("agentci.retry", event, **{
                    "agentci.retry.attempt": event.attempt,
                    "agentci.retry.reason": event.reason})  # fmt: skip
            case ev.TaskFinished():
                self._end_open(event, f"unfinished: the task ended {event.status}", task=t)
                span = self._tasks.pop(t, None)
                if span is not None:
                    span.set_attributes(self._outcome(event))
                self._end(span, event, event.reason if event.exit_code else "")
            case ev.RunFinished() if self._in_batch:
                self._end_open(event, f"unfinished: the run ended {event.status}")
            case ev.RunFinished():
                self._end_open(event, f"unfinished: the run ended {event.status}")
                if self._run is None:  # a run refused before it started
                    self._run = self._start("agentci.run", None, event)
                self._run.set_attributes(self._outcome(event))
                self._end(self._run, event, event.reason if event.exit_code else "")
                self._run = None
            case _:
                pass

    def _outcome(self, event: ev.TaskFinished | ev.RunFinished) -> dict[str, Any]:
        """A task's or the run's status, exit code, model calls and cost."""
        return self._attrs({
            "agentci.status": event.status, "agentci.exit_code": event.exit_code,
            "agentci.model_calls": event.usage.model_calls,
            "agentci.cost_usd": event.usage.cost_usd,
        })  # fmt: skip

    def _end_open(self, event: ev.Event, why: str, task: str | None = None) -> None:
        """End the spans still open when their task (``task``) or the run ends — a tool call
        a signal cut short, a turn — so they are exported too, tool calls with ``why``."""
        for call_id, (owner, span) in list(self._tools.items()):
            if task is None or owner == task:
                del self._tools[call_id]
                self._end(span, event, why)
        for table in (self._models, self._turns):
            for name in [n for n in table if task is None or n == task]:
                self._end(table.pop(name), event)
        if task is None:
            for name in list(self._tasks):
                self._end(self._tasks.pop(name), event, why)

    def close(self) -> None:
        """Export what is left (a batch's tracing is closed by the batch)."""
        if self._owns_tracing:
            self._tracing.close()


class BatchTrace:
    """The spans of ``agentci batch``: one run span, and a sink per task under it."""

    def __init__(self, redact: Callable[[str], str], recipes: list[str], tasks: int) -> None:
        self._redact = redact
        self._tracing = Tracing()
        attrs = {"agentci.recipe": [redact(r) for r in recipes], "agentci.batch.tasks": tasks}
        self._run = self._tracing.start("agentci.run", None, attrs, _ns(utc_now()))

    def task_sink(self) -> OtelSink:
        """The sink of one task's events."""
        return OtelSink(self._redact, self._tracing, self._run)

    def finish(self, status: str, exit_code: int, reason: str) -> None:
        """End the run span with the batch's outcome and export what is left."""
        self._run.set_attribute("agentci.status", status)
        self._run.set_attribute("agentci.exit_code", exit_code)
        if exit_code:
            self._run.set_status(Status(StatusCode.ERROR, self._redact(reason)))
        self._run.end(end_time=_ns(utc_now()))
        self._tracing.close()
