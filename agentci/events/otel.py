"""OpenTelemetry traces of a run, built from its events (the optional extra ``agentci[otel]``).

On when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set or ``agentci run --otel``: spans
run → task → turn → model call / tool call, and verify and hook spans under their task, with
``gen_ai.*`` attributes (model, token usage, tool name and call id). With ``TRACEPARENT`` in the
environment the run span is a child of that trace. Every string attribute goes through the
run's redactor. Spans are exported with OTLP over HTTP (the standard ``OTEL_*`` variables
configure it); a tracer provider the process has already installed is used as it is.

This module imports opentelemetry; nothing imports it unless tracing is on.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from agentci.events import types as ev


def _ns(ts: str) -> int | None:
    try:
        return int(datetime.fromisoformat(ts).timestamp() * 1e9) if ts else None
    except ValueError:
        return None


class OtelSink:
    """An event sink that turns a run's events into spans (see the module docstring)."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        self._redact = redact
        current = trace.get_tracer_provider()
        self._own: TracerProvider | None = None
        if not isinstance(current, TracerProvider):
            # deferred: the OTLP exporter is needed only when no tracer provider is installed
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            self._own = TracerProvider()
            self._own.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
            current = self._own
        self._tracer = current.get_tracer("agentci")
        self._run: Span | None = None
        self._tasks: dict[str, Span] = {}
        self._turns: dict[str, Span] = {}
        self._models: dict[str, Span] = {}
        self._tools: dict[str, Span] = {}

    def _attrs(self, values: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in values.items():
            if value is None:
                continue
            out[key] = self._redact(value) if isinstance(value, str) else value
        return out

    def _start(self, name: str, parent: Span | None, event: ev.Event, **attrs: Any) -> Span:
        ctx = trace.set_span_in_context(parent) if parent is not None else None
        if parent is None:
            carrier = {"traceparent": os.environ.get("TRACEPARENT", "")}
            ctx = TraceContextTextMapPropagator().extract(carrier)
        return self._tracer.start_span(
            name, context=ctx, attributes=self._attrs(attrs), start_time=_ns(event.ts)
        )

    def _end(self, span: Span | None, event: ev.Event, error: str = "") -> None:
        if span is None:
            return
        if error:
            span.set_status(Status(StatusCode.ERROR, self._redact(error)))
        span.end(end_time=_ns(event.ts))

    def _parent(self, task: str) -> Span | None:
        return self._tasks.get(task) or self._run

    def write(self, event: ev.Event) -> None:
        """Start or end the spans ``event`` marks."""
        t = event.task
        match event:
            case ev.RunStarted():
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
                    span.set_attributes({
                        "gen_ai.usage.input_tokens": event.prompt_tokens,
                        "gen_ai.usage.output_tokens": event.output_tokens,
                        "gen_ai.usage.cached_tokens": event.cached_tokens,
                    })  # fmt: skip
                self._end(span, event)
            case ev.ToolCallRequest():
                self._tools[event.call_id] = self._start(
                    f"execute_tool {event.name}", self._turns.get(t) or self._parent(t), event,
                    **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": event.name,
                       "gen_ai.tool.call.id": event.call_id},
                )  # fmt: skip
            case ev.ToolCallResponse():
                self._end(self._tools.pop(event.call_id, None), event, event.error or "")
            case ev.VerifyResult():
                span = self._start("agentci.verify", self._parent(t), event, **{
                    "agentci.verify.phase": event.phase})  # fmt: skip
                self._end(span, event)
            case ev.HookResult():
                span = self._start("agentci.hook", self._parent(t), event, **{
                    "agentci.hook": event.hook, "agentci.hook.exit_code": event.exit_code})  # fmt: skip
                self._end(span, event)
            case ev.TaskFinished():
                for table in (self._models, self._turns):
                    self._end(table.pop(t, None), event)
                span = self._tasks.pop(t, None)
                if span is not None:
                    span.set_attribute("agentci.status", event.status)
                self._end(span, event, event.reason if event.exit_code else "")
            case ev.RunFinished():
                if self._run is not None:
                    self._run.set_attribute("agentci.status", event.status)
                self._end(self._run, event, event.reason if event.exit_code else "")
                self._run = None
            case _:
                pass

    def close(self) -> None:
        """Export what is left (a provider agentci created is shut down)."""
        if self._own is not None:
            self._own.shutdown()
        else:
            provider = trace.get_tracer_provider()
            flush = getattr(provider, "force_flush", None)
            if flush is not None:
                flush()
