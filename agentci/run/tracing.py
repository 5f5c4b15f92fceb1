"""Whether a run exports OpenTelemetry spans, and what happens without the extra.

Tracing is on with ``--otel`` or when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set. It needs the
optional extra (``pip install 'agentci-runner[otel]'``); without it:

* ``--otel`` is a request agentci cannot honour: the run is refused before anything starts,
  ``invalid_input`` (exit 2), with the install line — like any other bad flag;
* ``OTEL_EXPORTER_OTLP_ENDPOINT`` alone is the environment's setting (it is often set for a
  whole organisation's jobs, for other tools): the run goes on without spans, and one warning
  line on stderr says so, with the install line.

agentci.events.otel, and so opentelemetry, is imported only when tracing is on.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType

from agentci.errors import InvalidInput
from agentci.events.sinks import Sink, tell

INSTALL = "pip install 'agentci-runner[otel]'"


def tracing_on(flag: bool) -> bool:
    """``--otel``, or ``OTEL_EXPORTER_OTLP_ENDPOINT`` in the environment."""
    return flag or bool(os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"))


def _missing(err: ImportError) -> str:
    return f"OpenTelemetry export needs the otel extra: {INSTALL} ({err})"


def check_tracing(flag: bool) -> None:
    """Refuse ``--otel`` when the extra is not installed (:class:`InvalidInput`)."""
    if flag:
        _otel(warn=False, flag=True, refuse=True)


def _otel(*, warn: bool, flag: bool, refuse: bool = False) -> ModuleType | None:
    """agentci.events.otel, or None (after a warning) when tracing is off or cannot be on;
    ``refuse``: raise :class:`InvalidInput` instead when ``--otel`` asked for it."""
    if not tracing_on(flag):
        return None
    try:
        # deferred: opentelemetry is an optional extra, imported only when tracing is on
        from agentci.events import otel
    except ImportError as err:
        if flag and refuse:
            raise InvalidInput(_missing(err)) from None
        if warn and not flag:
            tell(
                "agentci: warning: OTEL_EXPORTER_OTLP_ENDPOINT is set but OpenTelemetry is not "
                f"installed: this run exports no spans ({INSTALL})"
            )
        return None
    return otel


def otel_sink(redact: Callable[[str], str], *, flag: bool, warn: bool = True) -> Sink | None:
    """The sink of a single run's spans, or None (tracing off, or the extra missing: with
    ``--otel`` that was refused by :func:`check_tracing` already)."""
    otel = _otel(warn=warn, flag=flag)
    return None if otel is None else otel.OtelSink(redact)


def batch_trace(
    redact: Callable[[str], str], recipes: list[str], tasks: int, *, flag: bool
) -> object | None:
    """A batch's :class:`~agentci.events.otel.BatchTrace`, or None (see :func:`otel_sink`)."""
    otel = _otel(warn=True, flag=flag)
    return None if otel is None else otel.BatchTrace(redact, recipes, tasks)
