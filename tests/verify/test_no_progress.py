"""No progress: the same verify failures after two attempts in a row end the task early
(real pytest on a real git repository, scripted model)."""

from __future__ import annotations

from pathlib import Path

import yaml
from verify_helpers import CALC, PATH_ENV, fix, run_task

from agentci.events import types as ev
from agentci.outcome import Status
from agentci.providers.scripted import Reply
from agentci.testing.cli import run_recipe

VERIFY = {"command": "python -m pytest -q", "runner": "pytest", "attempts": 4}
ADD = "tests.test_calc::test_add"
MUL = "tests.test_calc::test_mul"
#: Edits that change nothing the tests see.
NOOP_1 = fix("calc/__init__.py", "def sub(a, b):", "def sub(a, b):  # a - b")
NOOP_2 = fix("calc/__init__.py", "def sub(a, b):  # a - b", "def sub(a, b):  # difference")


def test_the_same_failures_twice_end_the_task_without_the_remaining_attempts(
    repo_factory, tmp_path: Path
):
    repo = repo_factory(CALC)
    replies = [NOOP_1, Reply(text="Done."), NOOP_2, Reply(text="Done again.")]
    done = run_task(repo, {"prompt": "Fix the tests.", "verify": VERIFY}, replies, tmp_path / "o")

    report = done.report
    assert report.status is Status.verify_failed and report.exit_code == 1
    assert report.reason == (
        f"no_progress: verify failed the same way twice in a row (2 failing: {ADD}, {MUL}); "
        "2 attempt(s) not used"
    )
    assert [(e.phase, e.attempt, e.scope) for e in done.verify_events] == [
        ("baseline", 0, "full"), ("attempt", 1, "failing_first"), ("attempt", 2, "failing_first"),
        ("attempt", 2, "full"),  # about to stop: the full suite confirms it before the verdict
    ]  # fmt: skip
    assert report.extra["verify"]["attempts"] == 2
    assert report.extra["verify"]["max_attempts"] == 4
    assert len(done.provider.requests) == 4  # no third round was asked for
    loops = [e for e in done.events if isinstance(e, ev.LoopDetectedEvent)]
    assert [(e.kind, e.recovering) for e in loops] == [("no_progress", False)]


def test_a_changed_failure_message_is_progress(repo_factory, tmp_path: Path):
    repo = repo_factory(CALC)
    replies = [
        NOOP_1,
        Reply(text="Done."),
        fix("calc/__init__.py", "    return a + b\n", "    return a * b + 1\n"),  # mul: 13, not 7
        Reply(text="Closer."),
        NOOP_2,
        Reply(text="Done."),
    ]
    verify = {**VERIFY, "attempts": 3}
    done = run_task(repo, {"prompt": "Fix the tests.", "verify": verify}, replies, tmp_path / "o")
    assert done.report.status is Status.verify_failed
    assert done.report.reason.startswith("verify still fails after 3 attempt(s)")
    assert done.report.extra["verify"]["attempts"] == 3
    assert not [e for e in done.events if isinstance(e, ev.LoopDetectedEvent)]


def test_the_recipe_can_turn_it_off(repo_factory, tmp_path: Path):
    repo = repo_factory(CALC)
    replies = [NOOP_1, Reply(text="Done."), NOOP_2, Reply(text="Done."), NOOP_1, Reply(text="!")]
    recipe = {
        "prompt": "Fix the tests.",
        "verify": {**VERIFY, "attempts": 3},
        "loop_detection": {"no_progress": False},
    }
    done = run_task(repo, recipe, replies, tmp_path / "o")
    assert done.report.extra["verify"]["attempts"] == 3
    assert done.report.reason.startswith("verify still fails after 3 attempt(s)")


def test_through_the_cli_the_outputs_say_no_progress(repo_factory, tmp_path: Path):
    repo = repo_factory(CALC)
    script = tmp_path / "replies.yaml"
    edit = {"name": "replace", "args": {"file_path": "calc/__init__.py"}}
    replies = [
        {"calls": [{**edit, "args": {**edit["args"], "old_string": "def sub(a, b):",
                                     "new_string": "def sub(a, b):  # a - b"}}]},
        {"text": "Done."},
        {"calls": [{**edit, "args": {**edit["args"], "old_string": "  # a - b",
                                     "new_string": "  # difference"}}]},
        {"text": "Done again."},
    ]  # fmt: skip
    script.write_text(yaml.safe_dump(replies))
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        yaml.safe_dump(
            {
                "version": 1,
                "name": "fix",
                "model": {"name": f"scripted:{script}"},
                "prompt": "Fix the tests.",
                "verify": VERIFY,
                "sandbox": "none",
            }  # fmt: skip
        )
    )
    run = run_recipe(recipe, tmp_path / "out", "-q", cwd=repo, env=PATH_ENV)
    assert run.code == 1, run.stderr
    assert run.result["status"] == "verify_failed"
    task = run.result["tasks"][0]
    assert task["reason"].startswith("no_progress: verify failed the same way twice")
    assert task["verify"]["runs"] == 2  # baseline + the full run of attempt 2 (of four)
    scopes = [r["scope"] for r in task["extra"]["verify"]["runs"]]
    assert scopes == ["failing_first", "failing_first", "full"]
    assert run.result["usage"]["model_calls"] == 4
    assert "no_progress" in (tmp_path / "out" / "summary.md").read_text()
