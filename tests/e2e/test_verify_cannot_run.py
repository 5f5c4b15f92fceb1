"""A verify command whose tool is missing says so on the console, not only "verify failed"."""

from __future__ import annotations

from pathlib import Path

from e2e_scenario import make_case


def test_a_missing_python_module_is_named(tmp_path: Path):
    recipe = {"verify": {"command": "python -m agentci_no_such_runner -q", "attempts": 1}}
    case = make_case(tmp_path, [{"text": "done"}], recipe)
    run = case.run()
    assert run.code != 0
    assert (
        "the verify command could not run: No module named agentci_no_such_runner — install "
        "agentci_no_such_runner in the Python that runs agentci (pip install "
        "agentci_no_such_runner), or in the recipe's setup:"
    ) in run.stderr


def test_a_missing_command_is_named(tmp_path: Path):
    recipe = {"verify": {"command": "agentci-no-such-command --check", "attempts": 1}}
    case = make_case(tmp_path, [{"text": "done"}], recipe)
    run = case.run()
    assert run.code != 0
    assert (
        "the verify command could not run: command 'agentci-no-such-command' not found (exit 127)"
    ) in run.stderr
