"""The variables whose values a run masks in every output whatever their names.

A name that looks secret (``*_TOKEN``, ``*_KEY``, …) is masked anyway
(:mod:`agentci.reports.redact`); these are the ones the tasks make secret by use: the variable
each task's model reads its key from (``OPENAI_API_KEY``, ``model.api_key_env``, …), each ``${VAR}`` an MCP server's ``env``
or ``headers`` refers to, and the OTLP exporter's headers (``OTEL_EXPORTER_OTLP_HEADERS``,
``OTEL_EXPORTER_OTLP_TRACES_HEADERS``: where a tracing backend's credentials go). ``agentci run`` and ``agentci batch`` build their redactor from this
one list.
"""

from __future__ import annotations

from collections.abc import Iterable

from agentci.providers.registry import key_vars
from agentci.spec import TaskSpec
from agentci.tools.mcp.launch import referenced

#: The OpenTelemetry exporter's request headers: a tracing backend's credentials.
OTLP_HEADER_VARS = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS")


def secret_vars(tasks: Iterable[TaskSpec]) -> list[str]:
    """The variables of the tasks' model keys, the ``${VAR}`` their MCP servers take and the
    OTLP exporter's headers."""
    specs = list(tasks)
    names = set(key_vars(spec.model for spec in specs)) | set(OTLP_HEADER_VARS)
    for spec in specs:
        names.update(referenced(spec.tools.mcp_servers))
    return sorted(names)
