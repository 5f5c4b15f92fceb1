"""Inside GitHub Actions, bad input, an unusable sandbox and a sandbox that hides the
virtualenv are annotations on the job, like budget stops."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from e2e_scenario import make_case

from agentci.events import types as ev
from agentci.events.console import GitHubAnnotationsSink
from agentci.testing.cli import agentci


def test_invalid_input_is_an_error_annotation(tmp_path: Path):
    case = make_case(tmp_path, [{"text": "done"}], {"budget": {"max_turns": 0}})
    run = case.run(env={"GITHUB_ACTIONS": "true"})
    assert run.code == 2
    assert run.stdout.splitlines() == [
        f"::error title=agentci::agentci invalid_input (exit 2): {case.recipe}:8: "
        "budget.max_turns: Input should be greater than 0"
    ]


def test_a_missing_recipe_is_an_error_annotation(tmp_path: Path):
    done = agentci("run", "nope.yaml", cwd=tmp_path, env={"GITHUB_ACTIONS": "true"})
    assert done.returncode == 2
    assert done.stdout == (
        "::error title=agentci::agentci invalid_input (exit 2): nope.yaml: no such recipe file\n"
    )


def test_an_unusable_sandbox_is_a_warning_annotation():
    out = io.StringIO()
    sink = GitHubAnnotationsSink(out, sanitize=lambda text: text)
    sink.write(ev.Error(kind="sandbox_unavailable", message="bubblewrap is not installed"))
    assert out.getvalue() == (
        "::warning title=agentci::agentci ran without a sandbox: bubblewrap is not installed\n"
    )


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_a_virtualenv_under_tmp_is_warned_about_before_the_run(tmp_path: Path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    case = make_case(tmp_path, [{"text": "done"}], {"sandbox": "auto", "allow_no_changes": True})
    env = {"PATH": f"{venv / 'bin'}:{os.environ['PATH']}", "VIRTUAL_ENV": str(venv)}
    run = case.run(env=env)
    warning = [e for e in run.events if getattr(e, "kind", "") == "sandbox_hides_tmp"]
    if not warning:  # bubblewrap does not work here: the sandbox is off, nothing is hidden
        assert any(getattr(e, "kind", "") == "sandbox_unavailable" for e in run.events)
        pytest.skip("bubblewrap does not work here")
    # The suite's own virtualenv may be under /tmp too (CI clones anywhere): it is listed after ours.
    assert warning[0].message.startswith(f"{venv}, {venv / 'bin'}")
    assert (
        " are under /tmp, which the sandbox replaces with a private, "
        "empty /tmp: the model's commands will not see them"
    ) in warning[0].message
    first_turn = next(i for i, e in enumerate(run.events) if e.type == "turn_started")
    assert run.events.index(warning[0]) < first_turn
    assert f"sandbox_hides_tmp: {venv}, {venv / 'bin'}" in run.stderr
