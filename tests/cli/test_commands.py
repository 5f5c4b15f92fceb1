"""The command line: version, schema, validate, and how bad input is reported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agentci.testing.cli import agentci, run_recipe

GOOD = """\
version: 1
name: good
model: {name: gemini-2.5-flash}
parameters:
  target: {type: string}
prompt: "Fix {{ target }}"
"""


def test_version_does_not_import_the_sdks():
    code = (
        "import sys; from agentci.cli import cli\n"
        "try:\n    cli(['--version'])\nexcept SystemExit:\n    pass\n"
        "print('google.genai' in sys.modules, 'openai' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.splitlines() == ["agentci, version 0.1.0", "False False"]


def test_validate_and_schema_do_not_import_the_sdks(tmp_path: Path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(GOOD)
    code = (
        "import sys; from agentci.cli import cli\n"
        f"for args in (['validate', {str(recipe)!r}, '-p', 'target=x'], ['schema']):\n"
        "    try:\n        cli(args)\n    except SystemExit:\n        pass\n"
        "print('google.genai' in sys.modules, 'openai' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.splitlines()[-1] == "False False"


def test_validate_checks_tool_names_without_importing_the_tools(tmp_path: Path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(
        GOOD + "policy:\n  rules: [{tool: read_fil, decision: allow}]\n"
        "output: {schema: {type: object, properties: {ok: {type: boolean}}}}\n"
    )
    code = (
        "import sys; from agentci.cli import cli\n"
        f"try:\n    cli(['validate', {str(recipe)!r}, '-p', 'target=x'])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('agentci.tools.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "did you mean 'read_file'?" in done.stderr
    assert done.stdout.splitlines()[-1] == "['agentci.tools.answer_schema', 'agentci.tools.names']"


def test_schema_prints_a_json_schema_of_recipes():
    done = agentci("schema")
    schema = json.loads(done.stdout)
    assert done.returncode == 0
    assert schema["title"] == "agentci recipe"
    assert {"version", "name", "model"} <= set(schema["required"])
    assert schema["additionalProperties"] is False


def test_validate_accepts_a_good_recipe(tmp_path: Path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(GOOD)
    done = agentci("validate", str(recipe), "-p", "target=tests/")
    assert (done.returncode, done.stdout.strip()) == (0, f"{recipe}: ok (good)")


def test_validate_reports_file_line_and_key_and_exits_2(tmp_path: Path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(GOOD.replace("prompt:", "promt:"))
    done = agentci("validate", str(recipe))
    assert done.returncode == 2
    assert f"agentci: {recipe}:6: promt: unknown key" in done.stderr
    assert "Traceback" not in done.stderr


def test_validate_reports_a_missing_parameter(tmp_path: Path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(GOOD)
    done = agentci("validate", str(recipe))
    assert done.returncode == 2
    assert f"agentci: {recipe}:5: parameters.target: has no default: pass -p target=VALUE" in (
        done.stderr
    )


def test_run_with_a_bad_recipe_exits_2_with_one_line_and_writes_outputs(tmp_path: Path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(GOOD + "budget: {max_turns: 0}\n")
    run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path)
    assert run.code == 2
    assert run.stderr.strip().splitlines() == [
        f"agentci: error: {recipe}:7: budget.max_turns: Input should be greater than 0"
    ]
    assert run.result["status"] == "invalid_input"
    assert run.events[-1].type == "run_finished"
    assert run.events[-1].exit_code == 2
    assert run.patch == ""


def test_run_with_an_unknown_parameter_exits_2(tmp_path: Path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(GOOD)
    run = run_recipe(recipe, tmp_path / "out", "-p", "target=x", "-p", "tagret=y", cwd=tmp_path)
    assert run.code == 2
    assert "unknown parameter 'tagret'" in run.stderr
    assert run.result["exit_code"] == 2


def test_run_with_a_missing_recipe_file_exits_2(tmp_path: Path):
    run = run_recipe(tmp_path / "nope.yaml", tmp_path / "out", cwd=tmp_path)
    assert run.code == 2
    assert "no such recipe file" in run.stderr


def test_a_bad_flag_is_a_usage_error_with_exit_2(tmp_path: Path):
    done = agentci("run", "x.yaml", "--max-turns", "0", cwd=tmp_path)
    assert done.returncode == 2
    assert "Invalid value for '--max-turns'" in done.stderr


def test_quiet_still_reports_a_failure_in_one_line(tmp_path: Path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(GOOD + "workspace: {path: missing}\n")
    env = {"GEMINI_API_KEY": "not-used-here"}
    run = run_recipe(recipe, tmp_path / "out", "-q", "-p", "target=x", cwd=tmp_path, env=env)
    assert run.code == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("agentci: invalid_input (exit 2): good: workspace.path 'missing'")
