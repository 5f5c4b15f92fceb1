"""``outputs.branch`` and ``already_proposed``: a maintenance task commits its patch to a local
branch; a rerun that finds the same change on a branch (local or remote-tracking) does not
propose it again — with ``--skip-if-proposed`` without calling the model at all."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml
from e2e_scenario import make_case, write_call

from agentci.testing.case import write_case
from agentci.testing.cli import run_recipe
from agentci.testing.repo import git, git_env

BRANCH = "agentci/maint-bump"
RECIPE = {
    "name": "maint",
    "workspace": {"isolation": "worktree"},
    "allow_no_changes": False,
    "outputs": {"branch": {"commit_message": "chore: {{ task }} by {{ recipe }}"}},
    "tasks": [{"name": "bump", "prompt": "Bump the version."}],
}
SCRIPT = [write_call("VERSION", "1.1\n"), {"text": "Bumped VERSION to 1.1."}]


def test_a_successful_task_is_committed_to_its_branch(tmp_path: Path):
    case = make_case(tmp_path, SCRIPT, RECIPE, {"VERSION": "1.0\n"})
    run = case.run()
    assert run.code == 0, run.stderr
    branch = run.result["tasks"][0]["extra"]["branch"]
    assert branch["name"] == BRANCH
    assert git(case.repo, "rev-parse", BRANCH).strip() == branch["commit"]
    message = git(case.repo, "log", "-1", "--format=%B", BRANCH)
    assert message.startswith("chore: bump by maint\n\nBumped VERSION to 1.1.\n")
    patch = run.patch
    done = subprocess.run(["git", "patch-id", "--stable"], cwd=case.repo, env=git_env(),
                          input=patch, capture_output=True, text=True, check=True)  # fmt: skip
    patch_id = done.stdout.split()[0]
    assert f"Agentci-Patch-Hash: {patch_id}\n" in message
    assert f"Agentci-Base: {git(case.repo, 'rev-parse', 'HEAD').strip()}\n" in message
    assert git(case.repo, "show", f"{BRANCH}:VERSION") == "1.1\n"
    assert git(case.repo, "diff", "--name-only", "HEAD", BRANCH) == "VERSION\n"
    summary = (run.out / "summary.md").read_text()
    assert f"committed to branch `{BRANCH}` ({branch['commit'][:12]})" in summary
    # the user's checkout is untouched: same branch, clean tree
    assert git(case.repo, "branch", "--show-current") == "main\n"
    assert git(case.repo, "status", "--porcelain") == ""


def test_a_rerun_of_a_proposed_task_is_skipped_without_a_model_call(tmp_path: Path):
    case = make_case(tmp_path, SCRIPT, RECIPE, {"VERSION": "1.0\n"})
    assert case.run().code == 0
    # the nightly job: a fresh clone, where the branch is only remote-tracking
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(case.repo), str(clone))
    assert git(clone, "branch", "--list", BRANCH) == ""
    (tmp_path / "script.yaml").write_text(yaml.safe_dump([]))  # any model call would fail
    out = tmp_path / "rerun"
    run = run_recipe(case.recipe, out, "--skip-if-proposed", cwd=clone)
    assert run.code == 0, run.stderr
    task = run.result["tasks"][0]
    assert task["status"] == "no_changes"
    assert task["reason"].startswith("already_proposed: origin/agentci/maint-bump")
    assert run.result["usage"]["model_calls"] == 0
    assert [e.type for e in run.events if e.type in ("turn_started", "usage")] == []
    assert git(clone, "branch", "--list", BRANCH) == ""  # no new local branch either


def test_the_same_change_found_again_is_not_committed_twice(tmp_path: Path):
    case = make_case(tmp_path, SCRIPT, RECIPE, {"VERSION": "1.0\n"})
    first = case.run()
    assert first.code == 0
    tip = git(case.repo, "rev-parse", BRANCH)
    run = case.run()  # without --skip-if-proposed: the model works, the re-check finds it
    assert run.code == 0, run.stderr
    task = run.result["tasks"][0]
    assert (task["status"], task["usage"]["model_calls"]) == ("no_changes", 2)
    assert task["reason"].startswith(f"already_proposed: {BRANCH}")
    assert git(case.repo, "rev-parse", BRANCH) == tip
    finished = [e for e in run.events if e.type == "task_finished"]
    assert [(e.status, e.exit_code) for e in finished] == [("no_changes", 0)]


def _branch_failed(run) -> list[str]:
    return [e.message for e in run.events if e.type == "warning" and e.kind == "branch_failed"]


def test_a_branch_the_user_amended_is_never_moved(tmp_path: Path):
    case = make_case(tmp_path, SCRIPT, RECIPE, {"VERSION": "1.0\n"})
    assert case.run().code == 0
    # the user reviews the proposal and amends it, keeping agentci's trailers
    git(case.repo, "checkout", "-q", BRANCH)
    (case.repo / "VERSION").write_text("1.1.0\n")
    git(case.repo, "commit", "-q", "-a", "--amend", "--no-edit")
    amended = git(case.repo, "rev-parse", BRANCH)
    git(case.repo, "checkout", "-q", "main")
    (tmp_path / "script.yaml").write_text(
        yaml.safe_dump([write_call("VERSION", "1.2\n"), {"text": "Bumped VERSION to 1.2."}])
    )
    run = case.run()
    assert git(case.repo, "rev-parse", BRANCH) == amended
    task = run.result["tasks"][0]
    assert (run.code, task["status"]) == (0, "success")  # the task keeps its status
    assert "branch" not in task["extra"]
    failed = task["extra"]["branch_failed"]
    assert failed.startswith(f"branch {BRANCH} ends in a commit agentci did not make")
    assert _branch_failed(run) == [failed]
    assert "+1.2" in run.patch


def test_a_new_change_of_the_same_task_moves_the_branch_agentci_made(tmp_path: Path):
    case = make_case(tmp_path, SCRIPT, RECIPE, {"VERSION": "1.0\n"})
    assert case.run().code == 0
    (tmp_path / "script.yaml").write_text(
        yaml.safe_dump([write_call("VERSION", "1.2\n"), {"text": "Bumped VERSION to 1.2."}])
    )
    run = case.run()
    assert run.code == 0, run.stderr
    branch = run.result["tasks"][0]["extra"]["branch"]
    assert git(case.repo, "rev-parse", BRANCH).strip() == branch["commit"]
    assert git(case.repo, "show", f"{BRANCH}:VERSION") == "1.2\n"


def test_two_tasks_given_one_branch_name_do_not_overwrite_each_other(tmp_path: Path):
    recipe = {
        **RECIPE,
        "outputs": {"branch": {"name": "agentci/static"}},
        "tasks": [
            {"name": "one", "prompt": "Bump."},
            {"name": "two", "prompt": "Note.", "model": {"name": "scripted:two.yaml"}},
        ],
    }
    scripts = {"two.yaml": [write_call("NOTES", "two\n"), {"text": "Wrote NOTES."}]}
    case = write_case(tmp_path, SCRIPT, {"sandbox": "none", **recipe}, {"VERSION": "1.0\n"},
                      scripts=scripts)  # fmt: skip
    run = case.run()
    one, two = run.result["tasks"]
    assert one["extra"]["branch"]["commit"] == git(case.repo, "rev-parse", "agentci/static").strip()
    assert "branch" not in two["extra"]
    assert two["extra"]["branch_failed"].startswith(
        "branch agentci/static holds the proposal of maint/one"
    )
    assert (run.code, two["status"]) == (0, "success")


def test_a_branch_git_cannot_create_fails_the_delivery_not_the_task(tmp_path: Path):
    case = make_case(tmp_path, SCRIPT, RECIPE, {"VERSION": "1.0\n"})
    git(case.repo, "branch", "agentci")  # so refs/heads/agentci/... cannot exist
    run = case.run()
    assert run.code == 0, run.stderr
    task = run.result["tasks"][0]
    assert task["status"] == "success"
    assert "+1.1" in run.patch
    failed = task["extra"]["branch_failed"]
    assert f"branch {BRANCH} could not be created" in failed
    assert "'refs/heads/agentci' exists" in failed
    assert _branch_failed(run) == [failed]
    assert "Not committed to a branch" in (run.out / "summary.md").read_text()


def test_a_crash_after_a_task_finished_keeps_that_tasks_outputs(tmp_path: Path):
    """git vanishes once the first task's branch is made (a stub ``git`` that removes itself):
    the run stops on the bug (70), and task one's report and patch are still in the outputs."""
    recipe = {**RECIPE, "tasks": [{"name": "one", "prompt": "Bump."},
                                  {"name": "two", "prompt": "Bump again."}]}  # fmt: skip
    case = make_case(tmp_path, SCRIPT, recipe, {"VERSION": "1.0\n"})
    stub = tmp_path / "bin" / "git"
    stub.parent.mkdir()
    rm, real_git = shutil.which("rm"), shutil.which("git")
    stub.write_text(f'#!/bin/sh\ncase " $* " in *" update-ref "*) {rm} "$0";; esac\n'
                    f'exec {real_git} "$@"\n')  # fmt: skip
    stub.chmod(0o755)
    run = case.run(env={"PATH": str(stub.parent)})
    assert run.code == 70, run.stderr
    assert (run.result["status"], run.result["exit_code"]) == ("internal_error", 70)
    one, two = run.result["tasks"]
    assert (one["name"], one["status"], one["exit_code"]) == ("one", "success", 0)
    assert one["extra"]["branch"]["name"] == "agentci/maint-one"
    assert (two["name"], two["status"], two["exit_code"]) == ("two", "internal_error", 70)
    assert "+1.1" in (run.out / "tasks/one/patch.diff").read_text()
    assert (run.out / "tasks/two/patch.diff").read_text() == ""
    assert run.events[-1].type == "run_finished"
    assert (run.events[-1].status, run.events[-1].exit_code) == ("internal_error", 70)


def test_the_commit_message_is_redacted_like_every_output(tmp_path: Path):
    token, key = "ghs_CanaryGithubToken00000000000000000", "AIzaCanaryGeminiKey0000000000000000000"
    script = [write_call("VERSION", "1.1\n"), {"text": f"Bumped. Used {token} and {key}."}]
    case = make_case(tmp_path, script, RECIPE, {"VERSION": "1.0\n"})
    run = case.run(env={"GITHUB_TOKEN": token, "GEMINI_API_KEY": key})
    assert run.code == 0, run.stderr
    message = git(case.repo, "log", "-1", "--format=%B", BRANCH)
    assert message.startswith("chore: bump by maint\n\nBumped. Used *** and ***.\n")
    assert token not in message and key not in message
