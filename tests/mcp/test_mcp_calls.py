"""MCP tools through the whole run: the real ``mcp`` SDK, the demo server over stdio (or HTTP),
the model from the fake Gemini server or a script; policy, results, a dying server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from e2e_scenario import wait_for
from mcp_case import SERVER, call, demo_server, mcp_case, responses

from agentci.testing.fake_gemini import FakeGemini


def test_a_rule_allows_the_call_and_its_result_reaches_the_next_model_request(tmp_path: Path):
    turns = [
        {"function_calls": [{"name": "demo__greet", "args": {"name": "Ada"}}]},
        {"text": "The server greeted Ada."},
    ]
    with FakeGemini(turns) as fake:
        case = mcp_case(tmp_path, None, model={"name": "gemini-2.5-flash"})
        run = case.run("-q", env=fake.env())
        requests = fake.generate_requests
    assert run.code == 0, run.stderr
    declared = {
        d["name"]: d for t in requests[0].body["tools"] for d in t.get("functionDeclarations", [])
    }
    greet = declared["demo__greet"]
    assert greet["parametersJsonSchema"]["properties"]["name"]["type"] == "string"
    assert greet["parametersJsonSchema"]["required"] == ["name"]
    assert "Greet someone by name." in greet["description"]
    (answer,) = requests[1].parts("functionResponse")
    assert answer["functionResponse"]["name"] == "demo__greet"
    assert "Hello, Ada! (from the demo server)" in json.dumps(answer["functionResponse"])
    decision = next(e for e in run.events if e.type == "tool_call_decision")
    assert (decision.decision, decision.rule) == ("allow", "rules[0]: allow demo__*")


def test_without_a_rule_the_call_is_denied_and_the_server_never_sees_it(tmp_path: Path):
    case = mcp_case(tmp_path, [call("demo__greet", {"name": "Ada"}), {"text": "ok"}], rules=[])
    run = case.run("-q")
    assert run.code == 0, run.stderr
    decision = next(e for e in run.events if e.type == "tool_call_decision")
    assert (decision.decision, decision.rule) == ("deny", "mode:auto_edit")
    greet = responses(run)["demo__greet"]
    assert not greet.ok
    assert greet.error.startswith("denied by policy (mode:auto_edit): demo__greet runs a program")


def test_a_trusted_read_only_server_runs_without_a_rule(tmp_path: Path):
    server = demo_server(trust="read_only")
    case = mcp_case(
        tmp_path, [call("demo__greet", {"name": "Ada"}), {"text": "ok"}], rules=[], server=server
    )
    run = case.run("-q")
    assert run.code == 0, run.stderr
    assert responses(run)["demo__greet"].output == "Hello, Ada! (from the demo server)"


def test_arguments_the_schema_refuses_go_back_to_the_model_unsent(tmp_path: Path):
    case = mcp_case(tmp_path, [call("demo__greet", {"name": 7}), {"text": "ok"}])
    run = case.run("-q")
    assert run.code == 0, run.stderr
    greet = responses(run)["demo__greet"]
    assert not greet.ok
    assert "invalid arguments" in greet.error and "name: 7 is not of type 'string'" in greet.error
    assert not [e for e in run.events if e.type == "tool_call_decision"]


def test_a_server_killed_mid_run_makes_its_tools_fail_and_the_run_goes_on(tmp_path: Path):
    script = [
        call("demo__crash"),
        call("demo__greet", {"name": "Ada"}),
        call("write_file", {"file_path": "notes.txt", "content": "still working\n"}),
        {"text": "done"},
    ]
    case = mcp_case(tmp_path, script, allow_no_changes=False)
    run = case.run("-q")
    assert run.code == 0, run.stderr
    assert run.result["status"] == "success"
    got = responses(run)
    assert not got["demo__crash"].ok and "MCP server 'demo'" in got["demo__crash"].error
    assert not got["demo__greet"].ok and "MCP server 'demo'" in got["demo__greet"].error
    assert got["write_file"].ok
    assert "+still working" in run.patch


def test_the_server_sees_the_tools_environment_and_its_own_env_only(tmp_path: Path):
    server = demo_server(env={"DEMO_SETTING": "on", "DEMO_KEY": "${DEMO_SOURCE}"})
    case = mcp_case(tmp_path, [call("demo__env_names"), {"text": "ok"}], server=server)
    secrets = {"CANARY_API_KEY": "canary-secret-value-123", "DEMO_SOURCE": "passed-on-purpose"}
    run = case.run("-q", env=secrets)
    assert run.code == 0, run.stderr
    names = responses(run)["demo__env_names"].output.split("[structured content]")[0].split()
    assert "DEMO_SETTING" in names and "DEMO_KEY" in names and "PATH" in names
    assert "CANARY_API_KEY" not in names and "DEMO_SOURCE" not in names
    assert not any(n.startswith("AGENTCI_") or n.startswith("GEMINI") for n in names)
    log = (case.out / "events.jsonl").read_text()
    assert "canary-secret-value-123" not in log and "passed-on-purpose" not in log


def test_images_are_described_not_sent(tmp_path: Path):
    case = mcp_case(tmp_path, [call("demo__picture"), {"text": "ok"}])
    run = case.run("-q")
    assert run.code == 0, run.stderr
    assert responses(run)["demo__picture"].output == (
        "[image image/png, 70 bytes: not shown to the model]"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_http_server_on_loopback_is_called_with_its_headers(tmp_path: Path):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: _listening(port), what="the HTTP MCP server")
        server = {
            "url": f"http://127.0.0.1:{port}/mcp",
            "headers": {"Authorization": "Bearer ${DEMO_HTTP_TOKEN}"},
        }
        case = mcp_case(
            tmp_path, [call("demo__greet", {"name": "Bo"}), {"text": "ok"}], server=server
        )
        run = case.run("-q", env={"DEMO_HTTP_TOKEN": "http-token-value-456"})
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert run.code == 0, run.stderr
    assert responses(run)["demo__greet"].output == "Hello, Bo! (from the demo server)"
    assert "http-token-value-456" not in (case.out / "events.jsonl").read_text()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_a_before_tool_hook_sees_an_mcp_call_by_name_and_may_rewrite_it(tmp_path: Path):
    hooks = {"before_tool": [{"matcher": "demo__.*", "command": "./rename.sh"}]}
    case = mcp_case(tmp_path, [call("demo__greet", {"name": "Ada"}), {"text": "ok"}], hooks=hooks)
    hook = case.root / "rename.sh"
    hook.write_text('#!/bin/sh\necho \'{"decision": "continue", "args": {"name": "Hook"}}\'\n')
    hook.chmod(0o755)
    run = case.run("-q")
    assert run.code == 0, run.stderr
    assert responses(run)["demo__greet"].output == (
        "Hello, Hook! (from the demo server)\n\n"
        '[hooks.before_tool[0] changed the arguments to: {"name": "Hook"}]'
    )
    (result,) = [e for e in run.events if e.type == "hook_result"]
    assert result.args == {"name": "Hook"}
