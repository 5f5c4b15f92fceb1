"""Every invalid_input case reaches the user as one clear line on stderr, exit 2, no traceback.

Flags are checked by click before agentci runs; its message ends with one ``Error:`` line
after the usage hint.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_scenario import make_case

CASES = {
    "unknown recipe key": ({"surprise": 1}, (), {}, "surprise"),
    "bad budget value": ({"budget": {"max_turns": -1}}, (), {}, "max_turns"),
    "unknown parameter": ({}, ("-p", "nope=1"), {}, "nope"),
    "missing script file": ({"model": {"name": "scripted:missing.yaml"}}, (), {}, "missing.yaml"),
    "missing api key": (
        {"model": {"name": "gemini-2.5-flash"}},
        (),
        {"GEMINI_API_KEY": "", "GOOGLE_API_KEY": "", "GOOGLE_GENAI_USE_VERTEXAI": ""},
        "GEMINI_API_KEY",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_one_clear_line(tmp_path: Path, name: str):
    recipe, args, env, needle = CASES[name]
    case = make_case(tmp_path, [{"text": "done"}], recipe)
    run = case.run(*args, env=env)
    assert run.code == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("agentci: error: ") and needle in lines[0]
    assert run.result["status"] == "invalid_input" and run.result["exit_code"] == 2
    assert run.events[-1].type == "run_finished"


def test_a_missing_recipe_file(tmp_path: Path):
    case = make_case(tmp_path, [], {})
    case.recipe.unlink()
    run = case.run()
    assert run.code == 2
    assert run.stderr.strip().splitlines() == [
        f"agentci: error: {case.recipe}: no such recipe file"
    ]


@pytest.mark.parametrize("flag", [("--max-turns", "0"), ("--max-cost", "-1"), ("--nope",)])
def test_a_bad_flag(tmp_path: Path, flag: tuple[str, ...]):
    case = make_case(tmp_path, [], {})
    run = case.run(*flag)
    assert run.code == 2
    assert "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("Error: ")
