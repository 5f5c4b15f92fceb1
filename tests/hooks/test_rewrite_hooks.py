"""A before_tool hook rewrites a call's arguments: the rewritten call is validated against the
tool, judged by the policy and run (real hook scripts, real tools, real policy, real git repo)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hook_helpers import of_type, run_batch, scheduler, script

from agentci.providers.base import ToolCallPart

#: Rewrites the arguments to what the test puts in ``NEW`` (a JSON object).
REWRITE = """\
import json, sys
json.load(sys.stdin)
print("rewriting")
print(json.dumps({{"decision": "continue", "args": {new}}}))
"""

#: Records the arguments it reads.
RECORD = """\
import json, sys
doc = json.load(sys.stdin)
with open({log!r}, "a") as f:
    f.write(json.dumps(doc["args"]) + "\\n")
"""


@pytest.fixture
def ws(repo_factory) -> Path:
    return repo_factory({"README.md": "hello\n"})


def _rewriter(tmp_path: Path, new: dict[str, object]) -> Path:
    folder = tmp_path / "recipe"
    script(folder, "ci/rewrite.py", REWRITE.format(new=repr(new)))
    return folder


def _write(path: str) -> ToolCallPart:
    return ToolCallPart("1", "write_file", {"file_path": path, "content": "x = 1\n"})


def test_a_rewrite_into_a_protected_path_is_denied_by_the_policy(ws: Path, tmp_path: Path):
    folder = _rewriter(tmp_path, {"file_path": ".git/hooks/pre-commit"})
    hooks = {"before_tool": [{"matcher": "write_file", "command": "./ci/rewrite.py"}]}
    s = scheduler(ws, folder, hooks, mode="auto_edit")
    events, results = run_batch(s, [_write("src/ok.py")])
    (hook,) = of_type(events, "hook_result")
    assert (hook.decision, hook.args["file_path"]) == ("rewrite", ".git/hooks/pre-commit")
    (decision,) = of_type(events, "tool_call_decision")
    assert decision.decision == "deny"
    assert decision.rule != "hooks.before_tool[0]: ./ci/rewrite.py"  # the policy's own rule
    assert results[0].error is not None and results[0].error.startswith("denied by policy")
    assert not (ws / ".git/hooks/pre-commit").exists()
    assert not (ws / "src/ok.py").exists()


def test_an_allowed_rewrite_runs_the_rewritten_call_and_the_model_reads_the_change(
    ws: Path, tmp_path: Path
):
    folder = _rewriter(tmp_path, {"file_path": "src/moved.py"})
    log = tmp_path / "seen.jsonl"
    script(folder, "ci/record.py", RECORD.format(log=str(log)))
    hooks = {
        "before_tool": [
            {"matcher": "write_file", "command": "./ci/rewrite.py"},
            {"matcher": "write_file", "command": "./ci/record.py"},
        ],
        "after_tool": [{"matcher": "write_file", "command": "./ci/record.py"}],
    }
    s = scheduler(ws, folder, hooks, mode="auto_edit")
    events, results = run_batch(s, [_write("src/asked.py")])
    assert (ws / "src/moved.py").read_text() == "x = 1\n"
    assert not (ws / "src/asked.py").exists()
    seen = [json.loads(line)["file_path"] for line in log.read_text().splitlines()]
    assert seen == ["src/moved.py", "src/moved.py"]  # the next hook and after_tool see it
    assert (
        '[hooks.before_tool[0] changed the arguments to: {"file_path": "src/moved.py"'
        in results[0].output
    )
    (decision,) = of_type(events, "tool_call_decision")
    assert decision.decision == "allow"


def test_a_rewrite_into_invalid_arguments_denies_the_call(ws: Path, tmp_path: Path):
    folder = _rewriter(tmp_path, {"file_path": ["not", "a", "path"]})
    hooks = {"before_tool": [{"matcher": "write_file", "command": "./ci/rewrite.py"}]}
    s = scheduler(ws, folder, hooks, mode="yolo")
    events, results = run_batch(s, [_write("src/ok.py")])
    (hook,) = of_type(events, "hook_result")
    assert hook.decision == "deny"
    assert hook.reason == (
        "the hook rewrote the arguments into an invalid call: "
        "invalid arguments: file_path: Input should be a valid string"
    )
    assert results[0].error is not None
    assert results[0].error.startswith("denied by hook (hooks.before_tool[0]: ./ci/rewrite.py)")
    assert not (ws / "src/ok.py").exists()


def test_args_that_are_not_an_object_deny_the_call(ws: Path, tmp_path: Path):
    folder = tmp_path / "recipe"
    script(folder, "ci/bad.py", 'print(\'{"decision": "continue", "args": "rm -rf ."}\')\n')
    hooks = {"before_tool": [{"matcher": "*", "command": "./ci/bad.py"}]}
    s = scheduler(ws, folder, hooks, mode="yolo")
    events, results = run_batch(s, [_write("src/ok.py")])
    assert of_type(events, "hook_result")[0].decision == "deny"
    assert "must be an object of arguments" in (results[0].error or "")
    assert not (ws / "src/ok.py").exists()


PATH_HOOK = """\
import json, sys
path = json.load(sys.stdin)["args"]["path"]
print(json.dumps({{"decision": "continue", "args": {{"path": {new!r}}}}}))
"""


@pytest.mark.parametrize(
    ("new", "ok", "shown"),
    [
        ("tests/unit", True, "checking tests/unit"),
        ("../outside", False, "does not match '^tests/'"),
    ],
)
def test_a_command_tools_rewritten_arguments_are_checked_against_its_json_schema(
    tmp_path: Path, new: str, ok: bool, shown: str
):
    from agentci.testing.case import tool_call, write_case

    tools = {
        "commands": [
            {
                "name": "run_tests",
                "description": "Check one test folder.",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string", "pattern": "^tests/"}},
                    "required": ["path"],
                    "additionalProperties": False,
                },
                "command": "echo checking {{ path }}",
            }
        ]
    }
    hook = {"matcher": "run_tests", "command": "python3 ci/path.py"}
    recipe = {
        "sandbox": "none",
        "allow_no_changes": True,
        "tools": tools,
        "policy": {"mode": "auto_edit", "rules": [{"tool": "run_tests", "decision": "allow"}]},
        "hooks": {"before_tool": [hook]},
    }
    case = write_case(tmp_path, [tool_call("run_tests", path="tests/"), {"text": "done"}], recipe)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci/path.py").write_text(PATH_HOOK.format(new=new))
    run = case.run()
    assert run.code == 0, run.stderr
    (response,) = [e for e in run.events if e.type == "tool_call_response"]
    assert response.ok is ok
    assert shown in (response.output if ok else response.error or "")
