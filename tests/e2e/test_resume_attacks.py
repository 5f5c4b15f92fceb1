"""Attacks on `agentci run --resume OUT` (docs/resume.md): ways resume loses work or lies."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPLIES = """\
- calls:
    - {name: write_file, args: {file_path: b.py, content: "y = 2\\n"}}
- calls:
    - {name: write_file, args: {file_path: c.py, content: "z = 3\\n"}}
- text: done
"""

RECIPE = """\
version: 1
name: t
model: {name: "scripted:replies.yaml"}
prompt: add files
workspace: {path: proj, isolation: copy}
setup: ["sh -c 'if [ -f {root}/hold ]; then touch {root}/setup-started; sleep 60; fi'"]
verify: {command: "test -f c.py"}
policy: {mode: auto_edit}
budget: {max_turns: 1}
outputs: {dir: out}
"""


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    _git(proj, "init", "-q")
    _git(proj, "config", "user.email", "a@b")
    _git(proj, "config", "user.name", "a")
    (proj / "a.py").write_text("x = 1\n")
    _git(proj, "add", ".")
    _git(proj, "commit", "-qm", "init")
    (tmp_path / "replies.yaml").write_text(REPLIES)
    (tmp_path / "recipe.yaml").write_text(RECIPE.replace("{root}", str(tmp_path)))
    return tmp_path


def _agentci(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentci", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _result(project: Path, out: str = "out") -> dict:
    """The result.json of the last run."""
    return json.loads((project / out / "result.json").read_text())


def _events(project: Path) -> list[dict]:
    """The last run's events."""
    return [json.loads(line) for line in (project / "out/events.jsonl").read_text().splitlines()]


def _without_setup(project: Path) -> None:
    """Take the setup command (the ``hold`` file's wait) out of the recipe."""
    recipe = project / "recipe.yaml"
    lines = recipe.read_text().splitlines()
    recipe.write_text("\n".join(line for line in lines if not line.startswith("setup")) + "\n")


def _reading_a_secret(project: Path) -> dict[str, str]:
    """Run 1's model reads config.txt, whose value is a secret (``MY_TOKEN``), instead of
    writing b.py; no setup. The environment to run agentci in."""
    proj = project / "proj"
    (proj / "config.txt").write_text("password=supersecret123\n")
    _git(proj, "add", ".")
    _git(proj, "commit", "-qm", "cfg")
    (project / "replies.yaml").write_text(
        REPLIES.replace(
            '{name: write_file, args: {file_path: b.py, content: "y = 2\\n"}}',
            "{name: read_file, args: {file_path: config.txt}}",
        )
    )
    _without_setup(project)
    return {**os.environ, "MY_TOKEN": "supersecret123"}


def _resume_cancelled_during_setup(project: Path) -> int:
    """``--resume out`` held in its setup (the ``hold`` file), then SIGTERM; its exit code."""
    (project / "hold").write_text("")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentci", "run", "recipe.yaml", "--resume", "out",
         "--max-turns", "5"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        for _ in range(600):
            if (project / "setup-started").exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert (project / "setup-started").exists()
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    os.unlink(project / "hold")
    return proc.returncode


def test_sigterm_during_resume_setup_then_resume_again_loses_the_earlier_work(project: Path):
    """Run 1 stops on its budget (1 turn, b.py written). Resume 1 is cancelled by SIGTERM while
    setup runs, before the earlier history is put back. docs/resume.md: "Resuming never loses
    work" and a cancelled task "is continued". But the cancelled resume's outputs hold no
    history, an empty patch and no resume block, and resume 2 moves them over out.prev (the only
    copy of run 1's conversation): run 1's turn and patch are gone, the task starts over, and
    all_runs no longer counts run 1."""
    first = _agentci(project, "run", "recipe.yaml")
    assert first.returncode == 3, first.stderr
    earlier_history = (project / "out/history.jsonl").read_text()
    earlier_patch = (project / "out/patch.diff").read_text()
    assert "b.py" in earlier_patch and earlier_history.count("\n") == 3

    assert _resume_cancelled_during_setup(project) == 143

    # what the cancelled resume left must still be resumable from run 1's end
    task = _result(project)["tasks"][0]
    assert task["status"] == "cancelled"
    assert (project / "out/patch.diff").read_text() == earlier_patch
    assert (project / "out/history.jsonl").read_text() == earlier_history
    assert task["resume"]["previous"]["turns"] == 1


def test_resume_twice_after_interrupted_resume_counts_every_run(project: Path):
    """The same sequence, judged by the end result a user reads: the third run's result.json
    must go on from run 1's conversation and count run 1's turn in all_runs."""
    assert _agentci(project, "run", "recipe.yaml").returncode == 3
    assert _resume_cancelled_during_setup(project) == 143

    third = _agentci(project, "run", "recipe.yaml", "--resume", "out", "--max-turns", "5")
    assert third.returncode == 0, third.stderr
    result = _result(project)
    resume = result["tasks"][0]["resume"]
    assert resume["continued"] is True  # went on from run 1's last turn
    assert resume["all_runs"]["turns"] == 1 + result["tasks"][0]["turns"]


def test_resume_from_prev_folder_destroys_the_folder_it_resumes_from(project: Path):
    """Run 1 stops after 1 turn; run 2 (a plain run, 2 turns) moves it to out.prev. The user
    resumes run 1 as docs/resume.md says one may ("give the folder the earlier run wrote, e.g.
    .agentci/out, or its .prev"): `--resume out.prev`. Starting, the run moves out aside to
    out.prev, replacing the very folder it resumes from: run 1's outputs are deleted, and the
    new result.json says `resumed_from: out.prev`, a folder that now holds run 2, not what was
    resumed."""
    assert _agentci(project, "run", "recipe.yaml").returncode == 3
    run1 = _result(project)
    run1_history = (project / "out/history.jsonl").read_text()
    second = _agentci(project, "run", "recipe.yaml", "--max-turns", "2")
    assert _result(project)["tasks"][0]["turns"] == 2, second.stderr
    # with its outputs in out, the run would move out (run 2) over out.prev: refused, nothing moved
    third = _agentci(project, "run", "recipe.yaml", "--resume", "out.prev", "--max-turns", "5")
    assert third.returncode == 2
    assert "replacing the folder it resumes from" in third.stderr
    assert "--out DIR" in third.stderr
    assert (project / "out.prev/history.jsonl").read_text() == run1_history
    assert _result(project)["tasks"][0]["turns"] == 2
    # another output folder, as the message says
    fourth = _agentci(
        project, "run", "recipe.yaml", "--resume", "out.prev", "--out", "out2", "--max-turns", "5"
    )
    assert fourth.returncode == 0, fourth.stderr
    result = _result(project, "out2")
    assert result["resumed_from"] == "out.prev"
    assert result["tasks"][0]["resume"]["previous"]["turns"] == 1  # it resumed run 1
    # ... so the folder it names must still be run 1's outputs
    assert (project / "out.prev/history.jsonl").read_text() == run1_history
    assert _result(project, "out.prev")["tasks"][0]["turns"] == run1["tasks"][0]["turns"]


def test_kept_success_after_verify_command_and_commit_changed_says_nothing(project: Path):
    """A task that ended `success` is kept by --resume, not run again. After it, the user changes
    the recipe's verify command to one that fails and commits new code. docs/resume.md: "A
    changed recipe file alone ... is only a resume_changed warning". But the resumed run exits 0,
    `success`, with no resume_changed warning at all: the green result is for a verify command
    and a commit that this run never checked, and nothing says so."""
    recipe = project / "recipe.yaml"
    recipe.write_text(recipe.read_text().replace("max_turns: 1", "max_turns: 5"))
    assert _agentci(project, "run", "recipe.yaml").returncode == 0
    recipe.write_text(recipe.read_text().replace('"test -f c.py"', '"false"'))
    (project / "proj/a.py").write_text("x = 2\n")
    _git(project / "proj", "commit", "-qam", "two")

    resumed = _agentci(project, "run", "recipe.yaml", "--resume", "out")
    warnings = [e for e in _events(project) if e.get("kind") == "resume_changed"]
    assert warnings, f"exit {resumed.returncode}, no resume_changed warning: {resumed.stderr}"


def test_adding_a_task_to_the_recipe_silently_drops_the_earlier_conversation(project: Path):
    """Run 1 (a one-task recipe, outputs at the top of OUT) stops on its budget after 1 turn.
    The user adds a second task to the recipe and resumes: a changed recipe file is documented
    as "only a resume_changed warning", and a budget_exhausted task "is continued". But resume
    now looks for the history under tasks/t/, finds none, and silently runs task t from the
    start (continued: false, the paid turn paid again), with no warning of any kind, while
    result.json says it resumed from budget_exhausted."""
    _without_setup(project)
    assert _agentci(project, "run", "recipe.yaml").returncode == 3
    recipe = project / "recipe.yaml"
    recipe.write_text(recipe.read_text() + "tasks:\n  - {name: t}\n  - {name: u}\n")
    resumed = _agentci(project, "run", "recipe.yaml", "--resume", "out", "--max-turns", "5")
    t = next(task for task in _result(project)["tasks"] if task["name"] == "t")
    assert t["resume"]["resumed_status"] == "budget_exhausted"
    assert t["resume"]["continued"] is True, resumed.stderr  # went on from run 1's turn


def test_flaky_setup_failure_during_resume_then_resume_again_starts_over(project: Path):
    """The same loss without a signal: a resume whose setup fails once (a network hiccup in
    `pip install`, here a flag file) ends invalid_input but, unlike a refused resume, its
    outputs hold no history and no patch, and resume.refused is false. The user fixes the
    hiccup and resumes from out again, as the exit-2 message invites: out.prev (run 1's
    conversation) is replaced and the task silently starts over."""
    recipe = project / "recipe.yaml"
    recipe.write_text(
        recipe.read_text().replace(
            "setup: [", f"setup: [\"sh -c 'test ! -f {project}/net-down'\", "
        )
    )
    assert _agentci(project, "run", "recipe.yaml").returncode == 3
    earlier_patch = (project / "out/patch.diff").read_text()
    (project / "net-down").write_text("")
    flaky = _agentci(project, "run", "recipe.yaml", "--resume", "out", "--max-turns", "5")
    assert flaky.returncode == 2, flaky.stderr
    os.unlink(project / "net-down")
    # the failed resume's outputs must still carry run 1's work for the next --resume
    assert (project / "out/patch.diff").read_text() == earlier_patch
    again = _agentci(project, "run", "recipe.yaml", "--resume", "out", "--max-turns", "5")
    assert _result(project)["tasks"][0]["resume"]["continued"] is True, again.stderr


def test_resume_hands_the_model_masked_tool_results_without_a_word(project: Path):
    """Run 1's model read config.txt, whose value is a secret (MY_TOKEN): history.jsonl holds
    `password=***`, as outputs.md promises. --resume hands that history back to the model as
    the conversation: the model is now told the file says `password=***` (a model that rewrites
    the file from what it read writes `***` over the user's password). The patch's masking is
    guarded (a redacted patch refuses the resume; patch_redacted warns), the history's is not:
    no warning, no result.json field says the resumed conversation is not what the model saw."""
    env = _reading_a_secret(project)
    first = _agentci(project, "run", "recipe.yaml", env=env)
    assert first.returncode == 3, first.stderr
    assert "password=***" in (project / "out/history.jsonl").read_text()
    resumed = _agentci(
        project, "run", "recipe.yaml", "--resume", "out", "--max-turns", "5", env=env
    )
    assert resumed.returncode == 0, resumed.stderr
    told = [
        e
        for e in _events(project)
        if e.get("type") == "warning"
        and "***" in e.get("message", "")
        or e.get("kind") in ("history_redacted", "resume_changed")
    ]
    assert told, "the resumed model got masked tool results and nothing says so"


def test_a_kept_success_on_another_commit_is_refused_and_stays_resumable(project: Path):
    """A kept verdict is about the commit it was judged on: on another commit the task is
    refused (exit 2), its outputs carried over (patch, resume block), and --resume-force keeps
    it with a resume_changed warning naming the commit."""
    recipe = project / "recipe.yaml"
    recipe.write_text(recipe.read_text().replace("max_turns: 1", "max_turns: 5"))
    assert _agentci(project, "run", "recipe.yaml").returncode == 0
    patch = (project / "out/patch.diff").read_text()
    (project / "proj/a.py").write_text("x = 2\n")
    _git(project / "proj", "commit", "-qam", "two")

    refused = _agentci(project, "run", "recipe.yaml", "--resume", "out")
    assert refused.returncode == 2, refused.stderr
    task = _result(project)["tasks"][0]
    assert task["status"] == "invalid_input"
    assert "the commit the workspace starts from" in task["reason"]
    assert task["resume"]["carried"] is True and task["resume"]["resumed_status"] == "success"
    assert (project / "out/patch.diff").read_text() == patch

    forced = _agentci(project, "run", "recipe.yaml", "--resume", "out", "--resume-force")
    assert forced.returncode == 0, forced.stderr
    task = _result(project)["tasks"][0]
    assert (task["status"], task["resume"]["kept"]) == ("success", True)
    assert (project / "out/patch.diff").read_text() == patch
    assert [
        e["message"].startswith("--resume-force: cannot keep task 't'")
        for e in _events(project)
        if e.get("kind") == "resume_changed"
    ] == [True]


def test_the_resumed_model_is_told_that_masked_values_are_agentci_s_mask(project: Path):
    """The disclosure itself: result.json counts the masked values the resumed history holds,
    and the model's next request carries agentci's note after the masked tool result."""
    env = _reading_a_secret(project)
    for extra in ([], ["--resume", "out", "--max-turns", "5"]):
        _agentci(project, "run", "recipe.yaml", *extra, env=env)
    task = _result(project)["tasks"][0]
    assert task["status"] == "success"
    assert task["resume"]["masked_values"] == 1
    lines = [json.loads(line) for line in (project / "out/history.jsonl").read_text().splitlines()]
    told = lines[2]  # the user message holding run 1's read_file result
    assert [p["kind"] for p in told["parts"]] == ["tool_result", "text"]
    assert "password=***" in told["parts"][0]["output"]
    assert told["parts"][1]["text"].startswith("Note from agentci: this conversation was resumed")
    assert "never write *** into a file" in told["parts"][1]["text"]
    assert lines[3]["role"] == "model"  # the model answered after the note


def test_a_stopped_task_whose_conversation_is_missing_restarts_with_a_warning(project: Path):
    """Starting over is never silent: a budget_exhausted task whose history.jsonl is gone runs
    from the start, and a resume_restarted warning names the file it looked for."""
    _without_setup(project)
    assert _agentci(project, "run", "recipe.yaml").returncode == 3
    (project / "out/history.jsonl").unlink()
    resumed = _agentci(project, "run", "recipe.yaml", "--resume", "out", "--max-turns", "5")
    assert resumed.returncode == 0, resumed.stderr
    resume = _result(project)["tasks"][0]["resume"]
    assert (resume["resumed_status"], resume["continued"]) == ("budget_exhausted", False)
    assert [e["message"] for e in _events(project) if e.get("kind") == "resume_restarted"] == [
        "--resume: task 't' stopped with budget_exhausted, but out.prev holds no conversation "
        "of it (history.jsonl is missing or empty): it runs from the start"
    ]
