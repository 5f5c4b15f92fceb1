"""What ``agentci run`` says about bad input: once, with file and line, and nothing left behind
when there is no recipe at all."""

from __future__ import annotations

from pathlib import Path

from e2e_scenario import make_case

from agentci.testing.cli import run_recipe


def test_an_invalid_input_message_is_printed_once(tmp_path: Path):
    case = make_case(tmp_path, [{"text": "done"}], {"workspace": {"path": "nowhere"}})
    run = case.run()
    assert run.code == 2
    assert run.stderr.count("nowhere does not exist") == 1, run.stderr
    assert run.stderr.splitlines()[-2] == "agentci: invalid_input (exit 2), 0 tokens"
    assert run.stderr.splitlines()[-1].startswith(f"agentci: outputs in {case.out}/ (")


def test_a_template_error_in_run_names_file_line_and_field_once(tmp_path: Path):
    case = make_case(tmp_path, [{"text": "done"}], {"prompt": "Fix {{ nope }}."})
    run = case.run()
    assert run.code == 2
    assert run.stderr.splitlines() == [
        f"agentci: error: {case.recipe}:5: prompt: template error: 'nope' is undefined"
    ]


def test_every_problem_of_a_recipe_is_listed_by_run_too(tmp_path: Path):
    case = make_case(tmp_path, [{"text": "done"}], {"promt": "x", "budget": {"max_turns": 0}})
    run = case.run()
    assert run.code == 2
    assert run.stderr.splitlines() == [
        f"agentci: error: {case.recipe}:7: promt: unknown key (did you mean 'prompt'?)",
        f"agentci: error: {case.recipe}:9: budget.max_turns: Input should be greater than 0",
    ]


def test_a_missing_recipe_creates_no_output_folder(tmp_path: Path):
    run = run_recipe(tmp_path / "nope.yaml", tmp_path / "out", cwd=tmp_path)
    assert run.code == 2
    assert run.stderr.splitlines() == [
        f"agentci: error: {tmp_path / 'nope.yaml'}: no such recipe file"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_missing_recipe_without_out_creates_no_default_folder(tmp_path: Path):
    from agentci.testing.cli import agentci

    done = agentci("run", "nope.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert not (tmp_path / ".agentci").exists()
