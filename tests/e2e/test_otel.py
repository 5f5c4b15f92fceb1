"""OpenTelemetry: spans run → task → turn → model call / tool call, child of TRACEPARENT.

Real ``agentci run`` processes, the model the real google-genai SDK against the fake Gemini
server. The spans are read either from the SDK's in-memory exporter installed in the process
(tests/otel_spans.py) or from a local OTLP/HTTP collector on 127.0.0.1 that agentci's own
exporter sends them to, as it does for a user.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from e2e_scenario import make_case, shell_call, wait_for
from otel_spans import OtlpReceiver, clean_env, closed_port, run_with_memory_exporter

from agentci.testing.fake_gemini import FakeGemini
from agentci.testing.processes import pids_with

pytest.importorskip(
    "opentelemetry.sdk", reason="the otel extra (agentci-runner[otel]) is not installed"
)

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE}-{PARENT}-01"
MODEL = {"name": "gemini-2.5-flash", "retry": {"initial_delay_seconds": 0}}
TURNS = [
    {"function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}, "id": "c1"}],
     "usage": {"prompt": 900, "output": 12, "cached": 300}},
    {"text": "It says alpha.", "usage": {"prompt": 1000, "output": 9}},
]  # fmt: skip


def _case(tmp_path: Path, **recipe: object):
    return make_case(
        tmp_path, None, {"model": MODEL, "allow_no_changes": True, **recipe}, {"a.txt": "alpha\n"}
    )


def _check_tree(spans: list[dict]) -> None:
    """One run span under PARENT in TRACE, its task, two turns, their model and tool calls."""
    by_name = {s["name"]: s for s in spans}
    assert {s["trace"] for s in spans} == {TRACE}
    run = by_name["agentci.run"]
    (task,) = [s for s in spans if s["name"].startswith("agentci.task")]
    assert run["parent"] == PARENT
    assert task["parent"] == run["id"]
    turns = [s for s in spans if s["name"] == "agentci.turn"]
    assert len(turns) == 2 and {t["parent"] for t in turns} == {task["id"]}
    chats = sorted(
        (s for s in spans if s["name"] == "chat gemini-2.5-flash"),
        key=lambda c: c["attrs"]["gen_ai.usage.input_tokens"],
    )
    assert [c["attrs"]["gen_ai.usage.input_tokens"] for c in chats] == [900, 1000]
    assert chats[0]["attrs"]["gen_ai.usage.cached_tokens"] == 300
    # gemini-2.5-flash: $0.30 a million prompt tokens ($0.03 cached), $2.50 a million output
    cost = 600 * 0.3e-6 + 300 * 0.03e-6 + 12 * 2.5e-6
    assert chats[0]["attrs"]["agentci.cost_usd"] == pytest.approx(cost)
    assert [t["attrs"]["gen_ai.response.finish_reasons"] for t in turns] == [["STOP"], ["STOP"]]
    assert [t["attrs"]["agentci.finish"] for t in turns] == ["stop", "stop"]
    assert sorted(c["parent"] for c in chats) == sorted(t["id"] for t in turns)
    tool = by_name["execute_tool read_file"]
    assert tool["parent"] == chats[0]["parent"]  # the turn that asked for it
    assert tool["attrs"]["gen_ai.tool.call.id"] == "c1"
    assert tool["attrs"]["agentci.decision"] == "allow"
    assert run["attrs"]["agentci.model_calls"] == 2
    assert run["attrs"]["agentci.cost_usd"] == pytest.approx(
        sum(c["attrs"]["agentci.cost_usd"] for c in chats)
    )


def test_the_run_is_a_tree_of_spans_under_the_traceparent(tmp_path: Path):
    case = _case(tmp_path)
    with FakeGemini(TURNS) as fake:
        done, data = run_with_memory_exporter(
            ["run", str(case.recipe), "--out", str(case.out), "--otel", "-q"],
            cwd=case.repo, env={**fake.env(), "TRACEPARENT": TRACEPARENT},
            dump=tmp_path / "spans.json",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert data["code"] == 0
    _check_tree(data["spans"])


def test_a_collector_receives_the_span_tree_under_the_traceparent(tmp_path: Path):
    case = _case(tmp_path)
    with FakeGemini(TURNS) as fake, OtlpReceiver() as collector:
        env = {**fake.env(), "TRACEPARENT": TRACEPARENT, "TRACESTATE": "ci=build7",
               "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint}  # fmt: skip
        run = case.run("-q", env={**env, **_no_otel_overrides()})
        spans = list(collector.spans)
    assert run.code == 0, run.stderr
    _check_tree(spans)
    run_span = next(s for s in spans if s["name"] == "agentci.run")
    assert run_span["attrs"]["agentci.status"] == "no_changes"
    assert run_span["attrs"]["agentci.exit_code"] == 0
    assert {s["state"] for s in spans} == {"ci=build7"}  # the pipeline's tracestate goes along
    assert "could not be exported" not in run.stderr


def test_a_collector_that_is_down_changes_neither_the_exit_code_nor_the_outputs(tmp_path: Path):
    case = _case(tmp_path, allow_no_changes=False)  # the model changes nothing: exit 1
    with FakeGemini(TURNS) as fake:
        env = {**fake.env(), "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{closed_port()}"}
        run = case.run(env={**env, **_no_otel_overrides()})
    assert run.code == 1, run.stderr
    assert (run.result["status"], run.result["exit_code"]) == ("no_changes", 1)
    assert run.events[-1].type == "run_finished"
    for name in ("patch.diff", "junit.xml", "summary.md", "report.html"):
        assert (case.out / name).is_file(), name
    # one line says what was lost; the SDK's retry messages stay off the console
    lost = [line for line in run.stderr.splitlines() if "could not be exported" in line]
    assert len(lost) == 1 and lost[0].startswith("agentci: warning: "), run.stderr
    assert "Transient error" not in run.stderr and "Traceback" not in run.stderr


def test_a_refused_run_is_still_one_span_with_its_error(tmp_path: Path):
    case = _case(tmp_path)
    with OtlpReceiver() as collector:
        env = {"TRACEPARENT": TRACEPARENT, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint}
        run = case.run("-p", "nope=1", env={**env, **_no_otel_overrides()})
        spans = list(collector.spans)
    assert run.code == 2, run.stderr
    (span,) = spans
    assert (span["name"], span["parent"]) == ("agentci.run", PARENT)
    assert span["attrs"]["agentci.status"] == "invalid_input"


def test_a_run_cancelled_by_sigterm_still_exports_its_spans(tmp_path: Path):
    marker = f"sleep 61.{os.getpid()}{time.monotonic_ns() % 10**6:06d}"
    allow = {"rules": [{"tool": "run_shell_command", "command": "sleep", "decision": "allow"}]}
    case = make_case(tmp_path, [shell_call(marker), {"text": "done"}], {"policy": allow})
    with OtlpReceiver() as collector:
        env = {"TRACEPARENT": TRACEPARENT, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint}
        proc = case.popen("-q", env={**env, **_no_otel_overrides()})
        try:
            wait_for(lambda: pids_with(marker), what="the tool to start")
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
        finally:
            proc.kill()
            proc.communicate()
        spans = list(collector.spans)
    assert code == 143
    by_name = {s["name"]: s for s in spans}
    run = by_name["agentci.run"]
    assert (run["parent"], run["attrs"]["agentci.status"]) == (PARENT, "cancelled")
    assert run["attrs"]["agentci.exit_code"] == 143
    # the call the signal cut short is exported too, under its turn and task
    tool, turn, task = (by_name[n] for n in ("execute_tool run_shell_command", "agentci.turn",
                                              "agentci.task case"))  # fmt: skip
    assert (tool["parent"], turn["parent"]) == (turn["id"], task["id"])
    assert task["attrs"]["agentci.status"] == "cancelled"
    assert {s["trace"] for s in spans} == {TRACE}


def _no_otel_overrides() -> dict[str, str]:
    """The machine's OTEL_* settings do not reach the run (case.run adds to os.environ)."""
    return {k: "" for k in os.environ if k.startswith("OTEL_")}


def test_importing_agentci_does_not_import_opentelemetry():
    code = (
        "import sys, agentci, agentci.cli, agentci.run.launch, agentci.batch.launch\n"
        "print('opentelemetry' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=clean_env()
    )
    assert done.stdout.strip() == "False"
