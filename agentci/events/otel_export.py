"""Where agentci's OpenTelemetry spans go, and how a run's end waits for them.

:class:`Tracing` is the tracer of one agentci process (a run, or a batch with all its tasks).
When the process has no tracer provider installed, agentci creates one that exports with OTLP
over HTTP (the standard ``OTEL_EXPORTER_OTLP_*`` variables configure it) through a batching
processor. Its end is bounded: each export gives up after ``OTEL_EXPORTER_OTLP_TRACES_TIMEOUT``
/ ``OTEL_EXPORTER_OTLP_TIMEOUT`` seconds when set, else after :data:`EXPORT_TIMEOUT_SECONDS`
(retries included), so a collector that is down or unreachable delays the exit by at most
that, never hangs it. Spans that could not be exported are counted and told in one line on
stderr at the end (the SDK's own retry messages are kept off the console); they never change
the run's outcome or outputs.

This module imports opentelemetry; nothing imports it unless tracing is on.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Span, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from agentci.events.sinks import tell

EXPORT_TIMEOUT_SECONDS = 5.0
"""How long one export (with its retries) may take when no ``OTEL_*_TIMEOUT`` says otherwise."""

_TIMEOUT_VARS = ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")
_ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


class _CountingExporter(SpanExporter):
    """The OTLP exporter, counting the spans it could not deliver."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner
        self.lost = 0
        self.error = ""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception as err:  # noqa: BLE001 - lost spans never end the run
            result, self.error = SpanExportResult.FAILURE, f"{type(err).__name__}: {err}"
        if result is not SpanExportResult.SUCCESS:
            self.lost += len(spans)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


def _own_exporter() -> _CountingExporter:
    # deferred: the OTLP exporter is needed only when no tracer provider is installed
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    timeout = None if any(os.environ.get(v) for v in _TIMEOUT_VARS) else EXPORT_TIMEOUT_SECONDS
    # the SDK logs every retry; agentci says once, at the end, what was lost
    logging.getLogger("opentelemetry.exporter").setLevel(logging.CRITICAL)
    return _CountingExporter(OTLPSpanExporter(timeout=timeout))


class Tracing:
    """The process's tracer: the installed tracer provider, else agentci's own (OTLP/HTTP)."""

    def __init__(self) -> None:
        current = trace.get_tracer_provider()
        self._own: TracerProvider | None = None
        self._exporter: _CountingExporter | None = None
        if not isinstance(current, TracerProvider):
            self._exporter = _own_exporter()
            self._own = TracerProvider()
            self._own.add_span_processor(BatchSpanProcessor(self._exporter))
            current = self._own
        self.tracer: Tracer = current.get_tracer("agentci")

    def start(
        self, name: str, parent: Span | None, attributes: dict[str, Any], start_time: int | None
    ) -> Span:
        """A span under ``parent``; without one, a root span, the child of ``TRACEPARENT``
        (with ``TRACESTATE``, when set)."""
        if parent is not None:
            ctx = trace.set_span_in_context(parent)
        else:
            carrier = {
                "traceparent": os.environ.get("TRACEPARENT", ""),
                "tracestate": os.environ.get("TRACESTATE", ""),
            }
            ctx = TraceContextTextMapPropagator().extract(carrier)
        return self.tracer.start_span(
            name, context=ctx, attributes=attributes, start_time=start_time
        )

    def close(self) -> None:
        """Export what is left, within the export timeout (a provider agentci created is shut
        down); say in one line how many spans were lost."""
        if self._own is not None:
            self._own.shutdown()
        else:
            flush = getattr(trace.get_tracer_provider(), "force_flush", None)
            if flush is not None:
                flush()
        if self._exporter is not None and self._exporter.lost:
            endpoint = next((os.environ[v] for v in _ENDPOINT_VARS if os.environ.get(v)), "")
            why = f" ({self._exporter.error})" if self._exporter.error else ""
            tell(
                f"agentci: warning: {self._exporter.lost} OpenTelemetry span(s) could not be "
                f"exported to {endpoint or 'the OTLP endpoint'}{why}; the run's outcome and "
                "outputs are not affected"
            )
