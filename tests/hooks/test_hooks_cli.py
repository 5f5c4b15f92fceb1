"""Hooks end to end: the real ``agentci`` command, a scripted model, real hook scripts."""

from __future__ import annotations

from pathlib import Path

from hook_helpers import script

from agentci.testing.cli import run_recipe

RECIPE = """\
version: 1
name: hooks
model: {{name: "scripted:replies.yaml"}}
prompt: Add the data file.
workspace: {{path: {repo}}}
sandbox: none
policy: {{mode: yolo}}
hooks:
{hooks}
"""

NO_CURL = """\
import json, sys
doc = json.load(sys.stdin)
if "curl" in doc["args"]["command"]:
    print("no network from the agent: the data is vendored in data/", file=sys.stderr)
    sys.exit(2)
"""

STOP_ON_WRITE = """\
import json
print(json.dumps({"decision": "stop", "reason": "release freeze: no edits today"}))
"""


def setup(tmp_path: Path, repo: Path, hooks: str, replies: str) -> Path:
    folder = tmp_path / "recipe"
    folder.mkdir()
    (folder / "replies.yaml").write_text(replies)
    recipe = folder / "recipe.yaml"
    recipe.write_text(RECIPE.format(repo=repo, hooks=hooks))
    return recipe


def test_a_hook_denies_curl_the_model_reads_why_and_finishes(repo_factory, tmp_path: Path):
    repo = repo_factory({"README.md": "hi\n"})
    recipe = setup(
        tmp_path,
        repo,
        "  before_tool: [{matcher: run_shell_command, command: ./ci/no-curl.py}]",
        """\
- calls: [{name: run_shell_command, args: {command: "curl -o data.csv http://example.invalid/d"}}]
- calls: [{name: write_file, args: {file_path: data.csv, content: "a,b\\n"}}]
- text: Wrote data.csv from the vendored data.
""",
    )
    script(recipe.parent, "ci/no-curl.py", NO_CURL)
    run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path)
    assert run.code == 0, run.stderr
    assert run.result["status"] == "success"
    assert run.result["changed_files"] == ["data.csv"]
    events = run.events
    (hook,) = [e for e in events if e.type == "hook_result"]
    assert (hook.hook, hook.exit_code, hook.decision) == ("hooks.before_tool[0]", 2, "deny")
    deny = next(e for e in events if e.type == "tool_call_decision")
    assert deny.rule == "hooks.before_tool[0]: ./ci/no-curl.py"
    response = next(e for e in events if e.type == "tool_call_response")
    assert not response.ok and "the data is vendored in data/" in (response.error or "")
    assert events[-1].type == "run_finished"


def test_a_hook_that_says_stop_ends_the_run_blocked_with_all_outputs(repo_factory, tmp_path: Path):
    repo = repo_factory({"README.md": "hi\n"})
    recipe = setup(
        tmp_path,
        repo,
        "  before_tool: [{matcher: write_file|replace, command: ./freeze.py}]",
        """\
- calls: [{name: read_file, args: {file_path: README.md}}]
- calls: [{name: write_file, args: {file_path: README.md, content: "changed\\n"}}]
- text: never reached
""",
    )
    script(recipe.parent, "freeze.py", STOP_ON_WRITE)
    out = tmp_path / "out"
    run = run_recipe(recipe, out, cwd=tmp_path)
    assert run.code == 5, run.stderr
    assert run.result["status"] == "blocked"
    assert "release freeze: no edits today" in run.result["reason"]
    assert (repo / "README.md").read_text() == "hi\n"
    for name in ("events.jsonl", "patch.diff", "junit.xml", "result.json", "summary.md"):
        assert (out / name).exists(), name
    assert run.patch == ""
    types = [e.type for e in run.events]
    assert types[-1] == "run_finished"
    assert run.events[-1].exit_code == 5
    assert "agent_execution_stopped" in types
    assert types.index("hook_result") < types.index("agent_execution_stopped")
    assert types.count("hook_result") == 1  # read_file did not match the hook


def test_a_missing_hook_script_is_invalid_input_before_any_model_call(repo_factory, tmp_path: Path):
    repo = repo_factory({"README.md": "hi\n"})
    recipe = setup(
        tmp_path, repo, "  after_tool: [{matcher: '*', command: ./gone.sh}]", "- text: hi\n"
    )
    run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path)
    assert run.code == 2, run.stderr
    assert run.result["status"] == "invalid_input"
    assert "gone.sh" in run.result["reason"]
    assert run.result["usage"]["model_calls"] == 0


def test_the_agent_cannot_rewrite_a_hook_script_inside_the_checkout(repo_factory, tmp_path: Path):
    repo = repo_factory({"README.md": "hi\n"})
    folder = repo / "ci"
    script(folder, "check.py", "pass\n")
    (folder / "replies.yaml").write_text(
        """\
- calls: [{name: write_file, args: {file_path: ci/check.py, content: "import os\\n"}}]
- calls: [{name: write_file, args: {file_path: NOTE.md, content: "n\\n"}}]
- text: done
"""
    )
    recipe = folder / "recipe.yaml"
    recipe.write_text(
        RECIPE.format(repo=repo, hooks="  after_tool: [{matcher: '*', command: ./check.py}]")
    )
    run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path)
    assert run.code == 0, run.stderr
    assert (folder / "check.py").read_text().endswith("pass\n")
    deny = next(e for e in run.events if e.type == "tool_call_decision")
    assert deny.decision == "deny" and deny.rule.startswith("protected:")
    assert run.result["changed_files"] == ["NOTE.md"]


def test_validate_refuses_a_relative_hook_command_that_leaves_the_recipes_folder(
    repo_factory, tmp_path: Path
):
    from agentci.testing.cli import agentci

    repo = repo_factory({"README.md": "hi\n"})
    (tmp_path / "check.sh").write_text("true\n")
    hooks = "  before_tool: [{matcher: '*', command: ../check.sh}]"
    recipe = setup(tmp_path, repo, hooks, "- text: hi\n")
    done = agentci("validate", str(recipe), cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        "hooks.before_tool.0.command: '../check.sh': hooks run from a private copy of the "
        "recipe's folder: a relative command names a file inside that folder (no '..')"
    ) in done.stdout + done.stderr
