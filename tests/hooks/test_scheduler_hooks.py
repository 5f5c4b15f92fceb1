"""Hooks in the scheduler: real hook scripts, real tools, a real git repository."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hook_helpers import of_type, run_batch, scheduler, script

from agentci.errors import HookStopped, InvalidInput
from agentci.hooks.runner import HookRunner
from agentci.providers.base import ToolCallPart
from agentci.recipe.hook_config import Hooks
from agentci.testing.processes import pids_with

NO_CURL = """\
import json, sys
doc = json.load(sys.stdin)
if "curl" in doc["args"].get("command", ""):
    print("no network from the agent: the data is vendored in data/", file=sys.stderr)
    sys.exit(2)
"""

RECORD = """\
import json, os, sys
doc = json.load(sys.stdin)
doc["env"] = dict(os.environ)
doc["cwd"] = os.getcwd()
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(doc) + "\\n")
"""


@pytest.fixture
def ws(repo_factory) -> Path:
    return repo_factory({"README.md": "hello\n", "src/app.py": "x = 1\n"})


@pytest.fixture
def recipe_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "recipe"
    folder.mkdir()
    return folder


def shell(cid: str, command: str) -> ToolCallPart:
    return ToolCallPart(cid, "run_shell_command", {"command": command})


def test_a_before_tool_hook_denies_curl_and_the_model_reads_why(ws, recipe_dir):
    script(recipe_dir, "ci/no-curl.py", NO_CURL)
    s = scheduler(
        ws,
        recipe_dir,
        {"before_tool": [{"matcher": "run_shell_command", "command": "./ci/no-curl.py"}]},
    )
    events, results = run_batch(
        s, [shell("1", "curl http://x.invalid > got.txt"), shell("2", "echo ok > done.txt")]
    )
    assert not (ws / "got.txt").exists()  # denied before it ran
    assert (ws / "done.txt").read_text() == "ok\n"  # the next call ran
    hook_results = of_type(events, "hook_result")
    assert [(h.hook, h.exit_code, h.decision) for h in hook_results] == [
        ("hooks.before_tool[0]", 2, "deny"),
        ("hooks.before_tool[0]", 0, "continue"),
    ]
    assert hook_results[0].command == "./ci/no-curl.py"
    decisions = of_type(events, "tool_call_decision")
    assert decisions[0].decision == "deny"
    assert decisions[0].rule == "hooks.before_tool[0]: ./ci/no-curl.py"
    assert "vendored" in decisions[0].reason
    assert (decisions[1].decision, decisions[1].rule) == ("allow", "mode:yolo")
    assert results[0].error is not None
    assert "denied by hook (hooks.before_tool[0]: ./ci/no-curl.py)" in results[0].error
    assert "the data is vendored in data/" in results[0].error
    assert results[1].error is None


def test_the_hook_reads_the_call_as_json_on_stdin_without_secrets(
    ws, recipe_dir, tmp_path, monkeypatch
):
    monkeypatch.setenv("AGENTCI_TEST_SECRET_TOKEN", "canary-hook-secret")
    log = tmp_path / "log.jsonl"
    script(recipe_dir, "record.py", RECORD)
    hook = {"matcher": "*", "command": f"./record.py {log}"}
    s = scheduler(ws, recipe_dir, {"before_tool": [hook], "after_tool": [hook]})
    run_batch(s, [shell("c7", "echo hi; exit 3")])
    before, after = (json.loads(line) for line in log.read_text().splitlines())
    assert before["event"] == "before_tool" and after["event"] == "after_tool"
    home = s.hooks.home  # the private copy of the recipe's folder, made at the start
    assert (home / "record.py").read_text() == (recipe_dir / "record.py").read_text()
    assert not home.is_relative_to(ws) and not home.is_relative_to(recipe_dir)
    for doc in (before, after):
        assert doc["tool_name"] == "run_shell_command"
        assert doc["call_id"] == "c7"
        assert doc["args"]["command"] == "echo hi; exit 3"
        assert doc["task"] == "t"
        assert Path(doc["cwd"]) == home  # never the workspace, nor a folder the agent can write
        assert doc["env"]["AGENTCI_RECIPE_DIR"] == str(home)
        assert doc["env"]["AGENTCI_HOOK_EVENT"] == doc["event"]
        assert "AGENTCI_TEST_SECRET_TOKEN" not in doc["env"]
        assert "canary-hook-secret" not in json.dumps(doc)
    assert "result" not in before
    assert after["result"]["exit_code"] == 3
    assert "hi" in after["result"]["output"]


@pytest.mark.parametrize(
    ("body", "timeout", "why"),
    [
        ("import time; time.sleep(10)\n", 0.5, "the hook timed out after 0.5s"),
        ("raise SystemExit('hook bug')\n", 30, "the hook failed (exit 1): hook bug"),
        ('print(\'{"decision": "allow"}\')\n', 30, "unknown decision 'allow'"),
    ],
    ids=["timeout", "crash", "unknown-decision"],
)
def test_a_broken_hook_denies_the_call_never_allows_it(ws, recipe_dir, body, timeout, why):
    script(recipe_dir, "hook.py", body)
    s = scheduler(
        ws,
        recipe_dir,
        {"before_tool": [{"matcher": "*", "command": "./hook.py", "timeout_seconds": timeout}]},
    )
    start = time.monotonic()
    events, results = run_batch(s, [shell("1", "echo ran > ran.txt")])
    assert time.monotonic() - start < 10  # the timed-out hook's 10 s sleep was not waited for
    assert not (ws / "ran.txt").exists()
    assert why in (results[0].error or "")
    (hook,) = of_type(events, "hook_result")
    assert hook.decision == "deny"
    (decision,) = of_type(events, "tool_call_decision")
    assert decision.decision == "deny" and decision.rule.startswith("hooks.before_tool[0]")


def test_json_deny_on_stdout_with_exit_0(ws, recipe_dir):
    script(
        recipe_dir,
        "hook.py",
        "import sys\nprint('checking', file=sys.stderr)\n"
        'print(\'{"decision": "deny", "reason": "edits to src/ need a ticket"}\')\n',
    )
    s = scheduler(
        ws, recipe_dir, {"before_tool": [{"matcher": "write_file|replace", "command": "./hook.py"}]}
    )
    calls = [
        ToolCallPart("1", "write_file", {"file_path": "src/app.py", "content": "x = 2\n"}),
        ToolCallPart("2", "read_file", {"file_path": "README.md"}),
    ]
    events, results = run_batch(s, calls)
    assert (ws / "src/app.py").read_text() == "x = 1\n"
    assert results[0].error is not None and "edits to src/ need a ticket" in results[0].error
    assert results[1].error is None and "hello" in results[1].output
    assert len(of_type(events, "hook_result")) == 1  # read_file does not match


def test_a_hook_printing_json_nested_too_deep_lets_the_call_run(ws, recipe_dir):
    deep = "[" * 100_000 + "]" * 100_000
    script(recipe_dir, "hook.py", f"print('{{\"decision\": {deep}}}')\n")
    s = scheduler(ws, recipe_dir, {"before_tool": [{"matcher": "*", "command": "./hook.py"}]})
    events, results = run_batch(s, [ToolCallPart("1", "read_file", {"file_path": "README.md"})])
    assert results[0].error is None and "hello" in results[0].output
    assert [e.decision for e in of_type(events, "hook_result")] == ["continue"]


def test_a_stop_from_a_before_tool_hook_ends_the_batch(ws, recipe_dir):
    script(recipe_dir, "stop.py", 'print(\'{"decision": "stop", "reason": "freeze in effect"}\')\n')
    s = scheduler(ws, recipe_dir, {"before_tool": [{"matcher": "*", "command": "./stop.py"}]})
    events: list = []
    with pytest.raises(HookStopped) as err:
        run_batch(s, [shell("1", "echo ran > ran.txt"), shell("2", "echo b > b.txt")], events)
    assert err.value.status == "blocked"
    assert err.value.hook == "hooks.before_tool[0]"
    assert "freeze in effect" in err.value.reason
    assert not (ws / "ran.txt").exists() and not (ws / "b.txt").exists()
    assert [e.type for e in events] == ["hook_result", "tool_call_decision"]
    assert events[0].decision == "stop"


def test_after_tool_hooks_add_notes_and_can_stop_but_not_undo(ws, recipe_dir):
    script(recipe_dir, "note.py", "print('formatted 1 file')\n")
    script(
        recipe_dir,
        "guard.py",
        "import json, sys\ndoc = json.load(sys.stdin)\n"
        "if doc['args']['file_path'] == 'STOP.md':\n"
        '    print(\'{"decision": "stop", "reason": "no more edits"}\')\n',
    )
    hooks = {
        "after_tool": [
            {"matcher": "write_file", "command": "./note.py"},
            {"matcher": "write_file", "command": "./guard.py"},
        ]
    }
    s = scheduler(ws, recipe_dir, hooks)
    events, results = run_batch(
        s, [ToolCallPart("1", "write_file", {"file_path": "a.md", "content": "a\n"})]
    )
    assert results[0].error is None
    assert results[0].output.endswith("[hooks.after_tool[0]]: formatted 1 file")
    (response,) = of_type(events, "tool_call_response")
    assert "formatted 1 file" in response.output

    events = []
    with pytest.raises(HookStopped, match="no more edits"):
        run_batch(
            s, [ToolCallPart("2", "write_file", {"file_path": "STOP.md", "content": "s\n"})], events
        )
    assert (ws / "STOP.md").read_text() == "s\n"  # the tool ran; the hook cannot undo it
    assert [e.type for e in events] == [
        "tool_call_decision",
        "hook_result",
        "hook_result",
        "tool_call_response",
    ]
    assert events[2].decision == "stop"


def test_hooks_of_concurrent_read_calls_run_concurrently(ws, recipe_dir):
    # Each hook waits until all three have started: one after another, the first one would
    # give up (exit 1: a deny) instead of finishing.
    barrier = recipe_dir / "started"
    barrier.mkdir()
    script(
        recipe_dir,
        "together.py",
        "import os, pathlib, sys, time\n"
        f"here = pathlib.Path({str(barrier)!r})\n"
        "(here / str(os.getpid())).touch()\n"
        "deadline = time.monotonic() + 20\n"
        "while len(list(here.iterdir())) < 3:\n"
        "    if time.monotonic() > deadline:\n"
        "        sys.exit('the hooks did not run side by side')\n"
        "    time.sleep(0.01)\n",
    )
    s = scheduler(
        ws, recipe_dir, {"before_tool": [{"matcher": "read_file", "command": "./together.py"}]}
    )
    calls = [ToolCallPart(str(i), "read_file", {"file_path": "README.md"}) for i in range(3)]
    events, results = run_batch(s, calls)
    assert [r.error for r in results] == [None, None, None]
    assert len(of_type(events, "hook_result")) == 3


def test_relative_commands_resolve_against_the_recipe_folder_not_the_checkout(ws, recipe_dir):
    script(recipe_dir, "ci/check.py", "print('recipe copy')\n")
    script(ws, "ci/check.py", "import sys; sys.exit(2)\n")  # the agent's checkout: never used
    s = scheduler(ws, recipe_dir, {"after_tool": [{"matcher": "*", "command": "./ci/check.py"}]})
    _, results = run_batch(s, [ToolCallPart("1", "read_file", {"file_path": "README.md"})])
    assert "[hooks.after_tool[0]]: recipe copy" in results[0].output


def test_a_missing_hook_script_is_invalid_input(ws, recipe_dir):
    hooks = Hooks.model_validate({"before_tool": [{"matcher": "*", "command": "./nope.sh"}]})
    with pytest.raises(InvalidInput, match=r"hooks.before_tool\[0\]: './nope.sh'"):
        HookRunner(hooks, workspace=ws, env={}, recipe_dir=recipe_dir)


def test_matchers_are_star_or_a_fully_matched_regex(ws, recipe_dir):
    hooks = Hooks.model_validate(
        {
            "before_tool": [
                {"matcher": "*", "command": "true"},
                {"matcher": "write_file|replace", "command": "true"},
                {"matcher": "read", "command": "true"},
            ]
        }
    )
    runner = HookRunner(hooks, workspace=ws, env={}, recipe_dir=recipe_dir)
    names = {
        tool: [h.label for h in runner.matching("before_tool", tool)]
        for tool in ("read_file", "replace", "write_file_x")
    }
    assert names == {
        "read_file": ["hooks.before_tool[0]"],
        "replace": ["hooks.before_tool[0]", "hooks.before_tool[1]"],
        "write_file_x": ["hooks.before_tool[0]"],
    }
    assert runner.scripts == []  # bare commands are looked up on PATH


def test_a_stop_on_a_later_read_ends_the_reads_already_started(ws, recipe_dir):
    # the reads of one turn start as their decisions come out: a stop from the third call's
    # hook must end the two already running (nothing of theirs outlives the batch)
    marker = "7.6543"
    script(
        recipe_dir,
        "stop.py",
        "import json, sys\n"
        "if 'STOP' in json.dumps(json.load(sys.stdin)):\n"
        '    print(\'{"decision": "stop", "reason": "frozen"}\')\n',
    )
    s = scheduler(
        ws,
        recipe_dir,
        {"before_tool": [{"matcher": "*", "command": "./stop.py"}]},
        mode="auto_edit",
    )
    calls = [shell("1", f"sleep {marker}"), shell("2", f"sleep {marker}"), shell("3", "echo STOP")]
    events: list = []
    with pytest.raises(HookStopped):
        run_batch(s, calls, events)
    assert [e.type for e in events] == ["hook_result", "tool_call_decision"] * 3
    assert [e.decision for e in of_type(events, "tool_call_decision")] == [
        "allow",
        "allow",
        "deny",
    ]
    assert of_type(events, "tool_call_response") == []
    assert pids_with(marker) == []
