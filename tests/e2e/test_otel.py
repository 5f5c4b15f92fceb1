"""OpenTelemetry: spans run → task → turn → model call / tool call, child of TRACEPARENT.

The run is a real ``agentci run`` in a subprocess with the SDK's in-memory exporter installed
as the process's tracer provider; the model is the real google-genai SDK against the fake
Gemini server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_scenario import make_case

from agentci.testing.fake_gemini import FakeGemini

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"
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
try:
    dump = sys.argv[1]
    sys.argv = ["agentci", *sys.argv[2:]]
    main()
except SystemExit as done:
    code = done.code
spans = [{"name": s.name, "id": format(s.context.span_id, "016x"),
          "trace": format(s.context.trace_id, "032x"),
          "parent": format(s.parent.span_id, "016x") if s.parent else None,
          "attrs": dict(s.attributes)} for s in memory.get_finished_spans()]
open(dump, "w").write(json.dumps({"code": code, "spans": spans}))
"""


def test_the_run_is_a_tree_of_spans_under_the_traceparent(tmp_path: Path):
    pytest.importorskip(
        "opentelemetry.sdk", reason="the otel extra (agentci[otel]) is not installed"
    )
    turns = [
        {"function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}, "id": "c1"}],
         "usage": {"prompt": 900, "output": 12, "cached": 300}},
        {"text": "It says alpha.", "usage": {"prompt": 1000, "output": 9}},
    ]  # fmt: skip
    model = {"name": "gemini-2.5-flash", "retry": {"initial_delay_seconds": 0}}
    case = make_case(
        tmp_path, None, {"model": model, "allow_no_changes": True}, {"a.txt": "alpha\n"}
    )
    dump = tmp_path / "spans.json"
    with FakeGemini(turns) as fake:
        env = {**fake.env(), "TRACEPARENT": f"00-{TRACE}-{PARENT}-01"}
        cmd = [sys.executable, "-c", DRIVER, str(dump), "run", str(case.recipe),
               "--out", str(case.out), "--otel", "-q"]  # fmt: skip
        done = subprocess.run(
            cmd, cwd=case.repo, env={**_env(), **env}, capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(dump.read_text())
    assert data["code"] == 0
    spans = {s["name"]: s for s in data["spans"]}
    assert {s["trace"] for s in data["spans"]} == {TRACE}
    run = spans["agentci.run"]
    (task,) = [s for s in data["spans"] if s["name"].startswith("agentci.task")]
    assert run["parent"] == PARENT
    assert task["parent"] == run["id"]
    turns_ = [s for s in data["spans"] if s["name"] == "agentci.turn"]
    assert len(turns_) == 2 and {t["parent"] for t in turns_} == {task["id"]}
    chats = [s for s in data["spans"] if s["name"] == "chat gemini-2.5-flash"]
    assert [c["attrs"]["gen_ai.usage.input_tokens"] for c in chats] == [900, 1000]
    assert chats[0]["attrs"]["gen_ai.usage.cached_tokens"] == 300
    assert [c["parent"] for c in chats] == [t["id"] for t in turns_]
    tool = spans["execute_tool read_file"]
    assert tool["parent"] == turns_[0]["id"]
    assert tool["attrs"]["gen_ai.tool.call.id"] == "c1"


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}


def test_importing_agentci_does_not_import_opentelemetry():
    code = (
        "import sys, agentci, agentci.cli, agentci.run.launch\n"
        "print('opentelemetry' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
