"""Hooks at the loop's stages, end to end: the real ``agentci`` command, the real google-genai
SDK against the fake Gemini server, real hook scripts in the recipe's folder, a real git repo."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from hook_helpers import script

from agentci.testing.cli import Run, agentci, run_recipe
from agentci.testing.fake_gemini import FakeGemini, RecordedRequest
from agentci.testing.repo import commit_repo

RECIPE = """\
version: 1
name: hooks
model: {{name: gemini-2.5-flash, retry: {{attempts: 1}}}}
prompt: Fix the greeting.
workspace: {{path: {repo}}}
sandbox: none
policy: {{mode: yolo}}
hooks:
{hooks}
"""

WRITE = {
    "function_calls": [{"name": "write_file", "args": {"file_path": "a.txt", "content": "hi\n"}}]
}

#: Blocks until it has blocked twice (it counts in a file of its own), then accepts; logs its
#: input.
BLOCK_TWICE = """\
import json, sys
from pathlib import Path
doc = json.load(sys.stdin)
log = Path({log!r})
seen = log.read_text().splitlines() if log.exists() else []
with log.open("a") as f:
    f.write(json.dumps(doc) + "\\n")
if len(seen) < 2:
    print(json.dumps({{"decision": "block", "reason": f"run the tests first (check {{len(seen) + 1}})"}}))
"""

ALWAYS_BLOCK = """\
import json
print(json.dumps({"decision": "block", "reason": "run the tests first"}))
"""

CONTEXT = """\
import json, sys
doc = json.load(sys.stdin)
text = {text!r}.format(**doc)
print("a log line the model never sees")
print(json.dumps({{"additionalContext": text}}))
"""


def _run(
    tmp_path: Path, hooks: str, turns: list[Any], scripts: dict[str, str]
) -> tuple[Run, list[RecordedRequest]]:
    repo = tmp_path / "repo"
    commit_repo(repo, {"README.md": "hello\n"})
    folder = tmp_path / "recipe"
    for name, body in scripts.items():
        script(folder, name, body)
    recipe = folder / "recipe.yaml"
    recipe.write_text(RECIPE.format(repo=repo, hooks=hooks))
    with FakeGemini(turns) as fake:
        run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path, env=fake.env())
        requests = fake.generate_requests
    return run, requests


def _texts(request: RecordedRequest) -> list[str]:
    """The text parts of the request's contents, in order."""
    return [p["text"] for c in request.contents for p in c.get("parts", []) if "text" in p]


def test_after_agent_blocks_twice_then_accepts_and_its_reasons_reach_the_model(tmp_path: Path):
    log = tmp_path / "after_agent.jsonl"
    run, requests = _run(
        tmp_path,
        "  after_agent: [{command: ./ci/require-tests.py}]",
        [WRITE, {"text": "Done."}, {"text": "Tests pass."}, {"text": "Really done."}],
        {"ci/require-tests.py": BLOCK_TWICE.format(log=str(log))},
    )
    assert run.code == 0, run.stderr
    assert run.result["status"] == "success"
    assert run.result["summary"] == "Really done."
    assert len(requests) == 4
    assert "run the tests first (check 1)" in _texts(requests[2])[-1]
    assert "run the tests first (check 2)" in _texts(requests[3])[-1]
    assert "check 2" not in " ".join(_texts(requests[2]))
    inputs = [json.loads(line) for line in log.read_text().splitlines()]
    assert [d["answer"] for d in inputs] == ["Done.", "Tests pass.", "Really done."]
    assert [d["stop_hook_active"] for d in inputs] == [False, True, True]
    assert {d["event"] for d in inputs} == {"after_agent"}
    results = [e for e in run.events if e.type == "hook_result"]
    assert [(e.stage, e.decision) for e in results] == [
        ("after_agent", "block"),
        ("after_agent", "block"),
        ("after_agent", "continue"),
    ]
    assert results[0].reason == "run the tests first (check 1)"
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| `hooks.after_agent[0]` | ./ci/require-tests.py | 3 | 2 block, 1 continue |" in summary
    assert "- `hooks.after_agent[0]` block: run the tests first (check 2)" in summary
    hooks = run.result["tasks"][0]["extra"]["hooks"]["hooks"]
    assert hooks == [
        {
            "hook": "hooks.after_agent[0]",
            "stage": "after_agent",
            "command": "./ci/require-tests.py",
            "runs": 3,
            "decisions": {"block": 2, "continue": 1},
            "failed": 0,
        }
    ]
    html = (tmp_path / "out" / "report.html").read_text()
    assert html.count("hook hooks.after_agent[0] · exit 0 · block") == 2
    assert "run the tests first (check 2)" in html
    alone = tmp_path / "log" / "events.jsonl"  # the log alone, without result.json
    alone.parent.mkdir()
    shutil.copy(tmp_path / "out" / "events.jsonl", alone)
    replayed = agentci("replay", str(alone), "--format", "summary")
    assert replayed.returncode == 0, replayed.stderr
    assert "| `hooks.after_agent[0]` | ./ci/require-tests.py | 3 | 2 block, 1 continue |" in (
        replayed.stdout
    )


def test_an_after_agent_hook_that_never_accepts_ends_the_task_blocked(tmp_path: Path):
    run, requests = _run(
        tmp_path,
        "  max_continuations: 2\n  after_agent: [{command: ./ci/never.py}]",
        [WRITE, {"text": "Done."}, {"text": "Done."}, {"text": "Done."}, {"text": "unused"}],
        {"ci/never.py": ALWAYS_BLOCK},
    )
    assert run.code == 5, run.stderr
    assert run.result["status"] == "blocked"
    assert "hooks.max_continuations is 2" in run.result["reason"]
    assert "run the tests first" in run.result["reason"]
    assert len(requests) == 4  # the answer, then two continuations; the third block stops
    stopped = [e for e in run.events if e.type == "agent_execution_stopped"]
    assert len(stopped) == 1 and "hooks.after_agent[0]" in stopped[0].reason
    assert run.events[-1].type == "run_finished"


def test_a_broken_after_agent_hook_never_accepts_the_answer(tmp_path: Path):
    run, requests = _run(
        tmp_path,
        "  after_agent: [{command: ./ci/broken.py}]",
        [WRITE, {"text": "Done."}, {"text": "unused"}],
        {"ci/broken.py": "raise SystemExit('no such checker')\n"},
    )
    assert run.code == 5, run.stderr
    assert run.result["status"] == "blocked"
    assert "the hook failed (exit 1): no such checker" in run.result["reason"]
    assert len(requests) == 2


def test_session_start_context_is_in_the_first_request_before_the_prompt(tmp_path: Path):
    run, requests = _run(
        tmp_path,
        "  session_start: [{command: ./ci/context.py}]",
        [WRITE, {"text": "Done."}],
        {"ci/context.py": CONTEXT.format(text="The CI job is {task}; the branch is main.")},
    )
    assert run.code == 0, run.stderr
    first = requests[0].contents[0]["parts"]
    texts = [p["text"] for p in first]
    assert texts[-1] == "Fix the greeting."
    assert "[hooks.session_start[0]]: The CI job is hooks; the branch is main." in texts
    assert "a log line" not in json.dumps(requests[0].body)
    starts = [e for e in run.events if e.type == "hook_result" and e.stage == "session_start"]
    assert len(starts) == 1


def test_before_model_context_is_in_each_request_and_only_that_one(tmp_path: Path):
    run, requests = _run(
        tmp_path,
        "  before_model: [{command: ./ci/context.py}]",
        [WRITE, {"text": "Done."}],
        {"ci/context.py": CONTEXT.format(text="time left for turn {turn}: plenty")},
    )
    assert run.code == 0, run.stderr
    assert len(requests) == 2
    assert _texts(requests[0])[-1] == "[hooks.before_model[0]]: time left for turn 1: plenty"
    second = _texts(requests[1])
    assert second[-1] == "[hooks.before_model[0]]: time left for turn 2: plenty"
    assert not any("turn 1" in t for t in second)  # not kept in the history
    stages = [e.stage for e in run.events if e.type == "hook_result"]
    assert stages == ["before_model", "before_model"]


def test_a_failing_observing_hook_is_a_warning_and_the_run_goes_on(tmp_path: Path):
    run, requests = _run(
        tmp_path,
        "  before_model: [{command: ./ci/broken.py}]\n  session_end: [{command: ./ci/broken.py}]",
        [WRITE, {"text": "Done."}],
        {"ci/broken.py": "raise SystemExit('cannot reach the dashboard')\n"},
    )
    assert run.code == 0, run.stderr
    warnings = [e for e in run.events if e.type == "warning" and e.kind == "hook_warning"]
    assert len(warnings) == 3  # two model calls, one session end
    assert "cannot reach the dashboard" in warnings[0].message
    assert "the run goes on" in warnings[0].message
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| `hooks.before_model[0]` | ./ci/broken.py | 2 | 2 continue (2 failed) |" in summary
    assert "- `hooks.session_end[0]` continue, exit 1: the hook failed (exit 1)" in summary


# 300 lines of 40 characters: one read is about 3,000 tokens
BIG = "".join(f"{i:04d} " + "abcdefghij" * 3 + "abcd\n" for i in range(300))
SNAP = "<state_snapshot><goal>read big.txt</goal></state_snapshot>"

RECORD = """\
import json, sys
with open({log!r}, "a") as f:
    f.write(sys.stdin.read())
"""


def test_pre_compress_hooks_run_before_the_history_is_compressed(tmp_path: Path):
    log = tmp_path / "pre_compress.jsonl"
    repo = tmp_path / "repo"
    commit_repo(repo, {"big.txt": BIG})
    folder = tmp_path / "recipe"
    script(folder, "ci/record.py", RECORD.format(log=str(log)))
    recipe = folder / "recipe.yaml"
    recipe.write_text(
        RECIPE.format(repo=repo, hooks="  pre_compress: [{command: ./ci/record.py}]").replace(
            "retry: {attempts: 1}", "retry: {attempts: 1}, context_window: 30000"
        )
        + "allow_no_changes: true\n"
    )
    read = "read_file"
    turns: list[Any] = [
        {"text": SNAP, "function_calls": [{"name": read, "args": {"file_path": "big.txt"}}]}
        for _ in range(10)
    ]
    turns += [{"text": "finished"}] * 3
    with FakeGemini(turns) as fake:
        run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path, env=fake.env())
    assert run.code == 0, run.stderr
    events = run.events
    compressed = [i for i, e in enumerate(events) if e.type == "chat_compressed"]
    hooks = [i for i, e in enumerate(events) if e.type == "hook_result"]
    assert compressed and hooks
    assert all(events[i].stage == "pre_compress" for i in hooks)
    assert hooks[0] < compressed[0]
    inputs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(inputs) == len(hooks)
    assert inputs[0]["event"] == "pre_compress"
    assert inputs[0]["window"] == 30000
    assert inputs[0]["tokens"] == events[compressed[0]].tokens_before


ENV_RECORD = """\
import json, os, sys
doc = json.load(sys.stdin)
with open({log!r}, "w") as f:
    json.dump({{"cwd": os.getcwd(), "env": dict(os.environ), "doc": doc}}, f)
"""


def test_a_stage_hook_runs_in_the_private_copy_with_the_tools_environment(
    tmp_path: Path, monkeypatch
):
    import asyncio

    from agentci.hooks.loop_stages import LoopHooks
    from agentci.hooks.runner import HookRunner
    from agentci.policy.env import child_env
    from agentci.recipe.hook_config import Hooks

    monkeypatch.setenv("GEMINI_API_KEY", "AIzaCanaryGeminiKey0000000000000000000")
    repo = tmp_path / "repo"
    commit_repo(repo, {"README.md": "hello\n"})
    folder, log = tmp_path / "recipe", tmp_path / "seen.json"
    script(folder, "ci/record.py", ENV_RECORD.format(log=str(log)))
    config = Hooks.model_validate({"session_start": [{"command": "./ci/record.py"}]})
    runner = HookRunner(config, workspace=repo, env=child_env(), recipe_dir=folder, task="t")
    verdict = asyncio.run(LoopHooks(runner).session_start(prompt="Fix it.", model="m"))
    seen = json.loads(log.read_text())
    assert Path(seen["cwd"]) == runner.home != folder
    assert seen["env"]["AGENTCI_HOOK_EVENT"] == "session_start"
    assert seen["env"]["AGENTCI_RECIPE_DIR"] == str(runner.home)
    assert "GEMINI_API_KEY" not in seen["env"]
    assert seen["doc"] == {
        "v": 1,
        "event": "session_start",
        "task": "t",
        "workspace": str(repo),
        "prompt": "Fix it.",
        "model": "m",
    }
    assert [e.stage for e in verdict.events] == ["session_start"]
    assert runner.started
