"""Bad input found by fuzzing: exit 2 with file:line:key, never a traceback, nothing run.

Each case goes through both ``agentci validate`` and ``agentci run``. The recipe has a setup
command that leaves a mark: ``run`` must refuse before setup (and so before the baseline
verify and any model call).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from e2e_scenario import make_case

from agentci.testing.cli import agentci

SETUP = {"setup": ["touch setup-ran"]}
#: name → (recipe keys, extra YAML lines, the key the message names, the words it says)
CASES: dict[str, tuple[dict, str, str, str]] = {
    "YAML nested 600 deep": ({}, "description: " + "[" * 600 + "]" * 600, "", "nested more"),
    "a list as a mapping key": ({}, "parameters:\n  [a, b]: x", "", "a key must be"),
    "a mapping as a key": ({}, "? {a: 1}\n: x", "", "a key must be"),
    "division by zero in the prompt": ({"prompt": "{{ 1/0 }}"}, "", "prompt", "ZeroDivision"),
    "a recursive macro": (
        {"prompt": "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}"},
        "",
        "prompt",
        "Recursion",
    ),  # fmt: skip
    "an include": ({"prompt": "{% include 'other.txt' %}"}, "", "prompt", "cannot include"),
    "a render error in a task's prompt": (
        {
            "prompt": None,
            "tasks": [{"name": "a", "prompt": "ok"}, {"name": "b", "prompt": "{{ [] | first }}"}],
        },
        "",
        "tasks.1.prompt",
        "template error",
    ),  # fmt: skip
    "a NUL byte in setup": ({"setup": ["touch setup-ran", "echo \0"]}, "", "setup.1", "NUL"),
    "a NUL byte in verify.command": (
        {"verify": {"command": "true\0"}},
        "",
        "verify.command",
        "NUL",
    ),
    "a NUL byte rendered into verify.command": (
        {"verify": {"command": "true {{ '\\x00' }}"}},
        "",
        "verify.command",
        "NUL",
    ),  # fmt: skip
    "a NUL byte in outputs.dir": ({"outputs": {"dir": "out\0"}}, "", "outputs.dir", "NUL"),
    "a lone surrogate in the prompt": ({"prompt": "fix \ud800 it"}, "", "prompt", "Unicode"),
    "max_cost_usd 1e308": ({"budget": {"max_cost_usd": 1e308}}, "", "budget.max_cost_usd", "less"),
    "an infinite request timeout": (
        {
            "model": {
                "name": "scripted:script.yaml",
                "retry": {"request_timeout_seconds": float("inf")},
            }
        },
        "",
        "model.retry.request_timeout_seconds",
        "finite",
    ),  # fmt: skip
    "a base_url that is not a URL": (
        {"model": {"name": "gemini-2.5-flash", "base_url": "not a url"}},
        "",
        "model.base_url",
        "URL",
    ),  # fmt: skip
}


def bad_case(root: Path, name: str):
    recipe, lines, _, _ = CASES[name]
    case = make_case(root, [{"text": "done"}], {**SETUP, **recipe})
    data = yaml.safe_load(case.recipe.read_text())
    data = {k: v for k, v in data.items() if v is not None}
    text = yaml.safe_dump({**data, **({"setup": recipe["setup"]} if "setup" in recipe else {})})
    case.recipe.write_text(text + (lines + "\n" if lines else ""))
    return case


@pytest.mark.parametrize("name", list(CASES))
def test_validate_says_where(tmp_path: Path, name: str):
    _, _, key, words = CASES[name]
    case = bad_case(tmp_path, name)
    done = agentci("validate", str(case.recipe), cwd=case.repo, env={"GEMINI_API_KEY": "k"})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"agentci: {case.recipe}:"), first
    assert f": {key}: " in first if key else True, first
    assert words in first, first


@pytest.mark.parametrize("name", list(CASES))
def test_run_refuses_before_setup(tmp_path: Path, name: str):
    _, _, key, words = CASES[name]
    case = bad_case(tmp_path, name)
    run = case.run(env={"GEMINI_API_KEY": "k"})
    assert run.code == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert not (case.repo / "setup-ran").exists()
    lines = run.stderr.strip().splitlines()
    assert lines[0].startswith(f"agentci: error: {case.recipe}:"), lines
    assert words in lines[0] and (f": {key}: " in lines[0] if key else True), lines[0]
    assert (run.result["status"], run.result["exit_code"]) == ("invalid_input", 2)
    assert run.events[-1].type == "run_finished"
