"""What an ``agentci`` process exports as OpenTelemetry spans, seen from outside it.

Two ways, both with the real agentci CLI in a subprocess:

* :func:`run_with_memory_exporter`: the process installs the SDK's in-memory exporter as its
  tracer provider (as an application embedding agentci would install its own), runs
  ``agentci ARGS`` and dumps every finished span whole: name, ids, status, attributes, events.
* :class:`OtlpReceiver`: a collector on 127.0.0.1 (``POST /v1/traces``, OTLP/HTTP protobuf,
  decoded with opentelemetry-proto); the process exports to it with agentci's own exporter,
  pointed at it by ``OTEL_EXPORTER_OTLP_ENDPOINT`` as a user would.
"""

from __future__ import annotations

import gzip
import json
import os
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

DRIVER = """
import json, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
memory = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(memory))
trace.set_tracer_provider(provider)
from agentci.cli import main
code = None
try:
    dump = sys.argv[1]
    sys.argv = ["agentci", *sys.argv[2:]]
    main()
except SystemExit as done:
    code = done.code
spans = [{"name": s.name, "id": format(s.context.span_id, "016x"),
          "trace": format(s.context.trace_id, "032x"),
          "parent": format(s.parent.span_id, "016x") if s.parent else None,
          "status": s.status.description, "attrs": dict(s.attributes),
          "events": [{"name": e.name, "attrs": dict(e.attributes)} for e in s.events],
          "resource": dict(s.resource.attributes)}
         for s in memory.get_finished_spans()]
open(dump, "w").write(json.dumps({"code": code, "spans": spans}, default=str))
"""


def clean_env() -> dict[str, str]:
    """This process's environment without any ``OTEL_*`` setting of the machine."""
    return {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}


def run_with_memory_exporter(
    args: list[str], *, cwd: Path, env: dict[str, str], dump: Path
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``agentci ARGS`` with the in-memory exporter; the process and ``{"code", "spans"}``."""
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(dump), *args],
        cwd=cwd,
        env={**clean_env(), **env},
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert dump.is_file(), done.stderr
    return done, json.loads(dump.read_text())


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


class OtlpReceiver:
    """An OTLP/HTTP trace receiver on 127.0.0.1 (a context manager); ``spans`` holds every
    span received, decoded: name, trace, id, parent (hex, None for a root), state (W3C tracestate), attrs,
    resource."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.requests = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
                    ExportTraceServiceRequest,
                    ExportTraceServiceResponse,
                )

                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path != "/v1/traces":
                    self.send_response(404)
                    self.end_headers()
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver.requests += 1
                for rs in request.resource_spans:
                    resource = {a.key: _value(a.value) for a in rs.resource.attributes}
                    for ss in rs.scope_spans:
                        for s in ss.spans:
                            receiver.spans.append({
                                "name": s.name, "trace": s.trace_id.hex(), "id": s.span_id.hex(),
                                "parent": s.parent_span_id.hex() or None,
                                "state": s.trace_state,
                                "attrs": {a.key: _value(a.value) for a in s.attributes},
                                "resource": resource,
                            })  # fmt: skip
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
