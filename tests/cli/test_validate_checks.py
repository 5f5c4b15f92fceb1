"""``agentci validate`` checks what ``run`` checks before any model call and lists every error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agentci.testing.cli import agentci


def _validate(tmp_path: Path, text: str, *args: str, files: dict[str, str] | None = None):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(text)
    for name, content in (files or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    done = agentci("validate", str(recipe), *args)
    return recipe, done


def test_every_error_is_listed_with_its_line_and_a_did_you_mean(tmp_path: Path):
    recipe, done = _validate(
        tmp_path,
        "version: 1\nname: t\nmodel: {name: gemini-2.5-flash, temprature: 1}\n"
        "promt: x\nprompt: y\nbudget: {max_turns: 0}\n",
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"agentci: {recipe}:3: model.temprature: unknown key (did you mean 'temperature'?)",
        f"agentci: {recipe}:4: promt: unknown key (did you mean 'prompt'?)",
        f"agentci: {recipe}:6: budget.max_turns: Input should be greater than 0",
        "Error: 1 of 1 recipe(s) invalid",
    ]


def test_a_wrong_type_names_the_yaml_shape_not_a_class(tmp_path: Path):
    recipe, done = _validate(tmp_path, "version: 1\nname: t\nmodel: gemini\nprompt: y\n")
    assert done.stderr.splitlines()[0] == (
        f"agentci: {recipe}:3: model: expected a mapping (key: value), got a string"
    )
    assert "ModelConfig" not in done.stderr


def test_a_template_error_names_file_line_and_field_once(tmp_path: Path):
    recipe, done = _validate(
        tmp_path, "version: 1\nname: uv\nmodel: {name: gemini-2.5-flash}\nprompt: 'x {{ nope }}'\n"
    )
    assert done.stderr.splitlines()[0] == (
        f"agentci: {recipe}:4: prompt: template error: 'nope' is undefined"
    )


def test_model_files_models_hooks_and_parameters_are_checked(tmp_path: Path):
    recipe, done = _validate(
        tmp_path,
        "version: 1\nname: h\nmodel: {name: gpt-4o}\n"
        "parameters:\n  target: {type: string}\n"
        "prompt: 'fix {{ target }}'\n"
        "tasks:\n  - {name: a, prompt: p, model: {name: 'scripted:missing.yaml'}}\n"
        "hooks:\n  before_tool:\n    - {matcher: '*', command: './hooks/check.sh --x'}\n",
    )
    assert done.stderr.splitlines()[:-1] == [
        f"agentci: {recipe}:3: model.name: 'gpt-4o' is not a model agentci can serve (did you "
        "mean 'openai:gpt-4o'?): name a Gemini model (gemini-2.5-flash, …), or its provider with "
        "model.provider or a prefix: gemini:NAME, openai:NAME, replay:FILE, scripted:FILE",
        f"agentci: {recipe}:5: parameters.target: has no default: pass -p target=VALUE (or set "
        "it in the params of task 'a')",
        f"agentci: {recipe}:8: tasks.0.model.name: no such file: {tmp_path / 'missing.yaml'}",
        f"agentci: {recipe}:11: hooks.before_tool.0.command: no such hook script: "
        f"{tmp_path / 'hooks' / 'check.sh'} (a relative path is taken from the recipe's folder)",
    ]


def test_a_bad_reply_script_gives_its_own_file_and_lines(tmp_path: Path):
    _, done = _validate(
        tmp_path,
        "version: 1\nname: s\nmodel: {name: 'scripted:replies.yaml'}\nprompt: p\n",
        files={"replies.yaml": "- text: hi\n  bogus: 2\n- calls: 5\n"},
    )
    script = tmp_path / "replies.yaml"
    assert done.stderr.splitlines()[:-1] == [
        f"agentci: {script}:2: 0.bogus: unknown key",
        f"agentci: {script}:3: 1.calls: expected a list, got a number",
    ]


def test_a_valid_recipe_with_a_replay_model_validates_without_the_sdk(tmp_path: Path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text("version: 1\nname: ok\nmodel: {name: 'replay:c.jsonl'}\nprompt: p\n")
    (tmp_path / "c.jsonl").write_text('{"chunks": [{"candidates": []}]}\n')
    code = (
        "import sys; from agentci.cli import cli\n"
        f"try:\n    cli(['validate', {str(recipe)!r}])\nexcept SystemExit as e:\n    print(e.code)\n"
        "print('google.genai' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.splitlines() == [f"{recipe}: ok (ok)", "0", "False"], done.stderr


def test_help_says_what_is_checked():
    done = agentci("validate", "--help")
    text = " ".join(done.stdout.split())
    assert "the way `agentci run` does before its first model call" in text
    assert "scripted:/replay: files exist and parse" in text
    assert "Every error is listed as FILE:LINE: KEY: MESSAGE" in text


def test_a_rule_for_a_tool_that_does_not_exist_is_an_error_with_a_did_you_mean(tmp_path: Path):
    recipe, done = _validate(
        tmp_path,
        "version: 1\nname: r\nmodel: {name: gemini-2.5-flash}\nprompt: p\npolicy:\n  rules:\n"
        "    - {tool: run_shell_comand, command: pytest, decision: allow}\n"
        "    - {tool: [read_file, 'write_*', nope], decision: deny}\n"
        "    - {tool: '*', path: 'docs/**', decision: allow}\n",
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[:-1] == [
        f"agentci: {recipe}:7: policy.rules.0.tool: no tool is named 'run_shell_comand', so the "
        "rule never matches (did you mean 'run_shell_command'?)",
        f"agentci: {recipe}:8: policy.rules.1.tool: no tool is named 'nope', so the rule never "
        "matches",
    ]


def test_a_near_miss_model_name_is_an_error_with_the_name_meant(tmp_path: Path):
    recipe, done = _validate(
        tmp_path,
        "version: 1\nname: m\nmodel: {name: gemini-2.5-flsh, fallback: [gemini-2.5-pro-preview]}\n"
        "prompt: p\ntasks:\n  - {name: a, prompt: q, model: {name: gemini-3.5-pro}}\n",
    )
    assert done.stderr.splitlines()[:-1] == [
        f"agentci: {recipe}:3: model.name: unknown model 'gemini-2.5-flsh' (did you mean "
        "'gemini-2.5-flash'?)",
    ]  # a newer version or a variant of a known model is no typo


def test_an_undefined_template_variable_names_the_parameter_meant(tmp_path: Path):
    recipe, done = _validate(
        tmp_path,
        "version: 1\nname: t\nmodel: {name: gemini-2.5-flash}\n"
        "parameters:\n  target: {default: src}\nprompt: 'fix {{ traget }}'\n",
    )
    assert done.stderr.splitlines()[0] == (
        f"agentci: {recipe}:6: prompt: template error: 'traget' is undefined (did you mean "
        "'target'?)"
    )


def test_rules_may_name_the_recipes_own_tools_and_an_mcp_servers_tools(tmp_path: Path):
    recipe, done = _validate(
        tmp_path,
        "version: 1\nname: t\nmodel: {name: gemini-2.5-flash}\nprompt: p\n"
        "tools:\n"
        "  mcp_servers: {github: {command: [github-mcp-server, stdio]}}\n"
        "  commands: [{name: run_tests, description: d, command: pytest}]\n"
        "policy:\n  rules:\n"
        "    - {tool: [run_tests, 'github__*', github__add_issue_comment], decision: allow}\n"
        "    - {tool: [run_test, gihub__get_issue], decision: deny}\n",
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[:-1] == [
        f"agentci: {recipe}:11: policy.rules.1.tool: no tool is named 'run_test', so the rule "
        "never matches (did you mean 'run_tests'?)",
        f"agentci: {recipe}:11: policy.rules.1.tool: no tool is named 'gihub__get_issue', so "
        "the rule never matches",
    ]
