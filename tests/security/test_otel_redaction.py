"""Secrets never leave in OpenTelemetry spans.

agentci runs with the canary secrets in its environment (as in every attack case) and the
SDK's in-memory exporter installed; the scripted model puts the canary values where a model
that got hold of a secret would: its answer and thoughts, a command whose output prints it,
the name of a tool it calls, a path whose error message quotes it; the recipe's hooks quote
them in a deny reason, in the reason that stops the run and in the output of a hook that
fails (a warning event). Every exported string — span
names, attributes, span events, status descriptions, the resource — is checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from attack_case import CANARIES, make_attack, shell, tool
from otel_spans import run_with_memory_exporter

pytest.importorskip(
    "opentelemetry.sdk", reason="the otel extra (agentci-runner[otel]) is not installed"
)

KEY = CANARIES["GEMINI_API_KEY"]
TOKEN = CANARIES["GITHUB_TOKEN"]


def _hook(decision: str, reason: str) -> str:
    return "echo " + json.dumps(json.dumps({"decision": decision, "reason": reason}))


def test_no_canary_reaches_a_span_name_attribute_event_or_status(tmp_path: Path):
    script = [
        {"text": f"The key is {KEY}.", "thought": f"I saw {TOKEN}",
         **shell(f"echo {KEY} {TOKEN}")},
        {"calls": [{"name": TOKEN, "args": {"value": KEY}}]},  # no such tool: an error
        tool("read_file", file_path="a.txt"),  # the hook denies, quoting a secret
        tool("list_directory", dir_path=f"{KEY}/{TOKEN}"),  # not found: the error quotes it
        tool("glob", pattern="*.txt"),  # the hook stops the run, quoting a secret
    ]  # fmt: skip
    hooks = {"session_start": [{"command": f"echo {TOKEN}; exit 1"}],  # a warning event
             "before_tool": [
        {"matcher": "read_file", "command": _hook("deny", f"not with {KEY} around")},
        {"matcher": "glob", "command": _hook("stop", f"stopped: {TOKEN}")},
    ]}  # fmt: skip
    case = make_attack(tmp_path, script, {"hooks": hooks}, {"a.txt": "alpha\n"})
    done, data = run_with_memory_exporter(
        ["run", str(case.recipe), "--out", str(case.out), "--otel", "-q"],
        cwd=case.repo, env=CANARIES, dump=tmp_path / "spans.json",
    )  # fmt: skip
    assert data["code"] == 5, done.stderr  # blocked by the hook
    exported = json.dumps(data["spans"])
    assert KEY not in exported and TOKEN not in exported
    assert not case.leaked(done)  # nor in the outputs and the console
    # what carried a secret was exported, masked
    names = [s["name"] for s in data["spans"]]
    assert "execute_tool ***" in names
    hooks_ = [s["attrs"] for s in data["spans"] if s["name"] == "agentci.hook"]
    assert [h["agentci.hook.reason"] for h in hooks_] == [
        "the hook failed (exit 1): ***; the hook only observes, the run goes on",
        "not with *** around",
        "stopped: ***",
    ]
    (task,) = [s for s in data["spans"] if s["name"].startswith("agentci.task")]
    assert task["status"].endswith("stopped: ***")
    (error,) = [s["status"] for s in data["spans"] if s["name"] == "execute_tool list_directory"]
    assert error == "***/*** is not a directory"
    warnings = [e["attrs"] for s in data["spans"] for e in s["events"]
                if e["name"] == "agentci.warning"]  # fmt: skip
    assert any("***" in w["agentci.warning.message"] for w in warnings), warnings


def test_the_otlp_exporters_headers_are_masked_like_a_key(tmp_path: Path):
    headers = "x-backend-team=otlpCanaryTeamSecret0000"  # where a backend's credentials go
    case = make_attack(tmp_path, [{"text": f"The exporter sends {headers}."}],
                       {"allow_no_changes": True})  # fmt: skip
    run = case.run("-v", env={"OTEL_EXPORTER_OTLP_HEADERS": headers})
    assert run.code == 0, run.stderr
    assert run.result["summary"] == "The exporter sends ***."
    outputs = [p.read_text() for p in case.out.rglob("*") if p.is_file()]
    assert not any(headers in text for text in [*outputs, run.stdout, run.stderr])
