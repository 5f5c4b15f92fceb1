"""The Action delivers the change: a branch and a pull request (create-pr), one sticky comment
(comment), through a stub ``gh`` that records what it was asked and answers like gh; and it
refuses pull_request_target with the pull request's code checked out.

The branch is pushed for real, to a bare repository standing in for GitHub
(``GITHUB_SERVER_URL=file://…``).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from gh_stub import calls, install_gh_stub, state
from test_action import FIX, NOTHING, Job, _bin_dir


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout


TOKEN = "ghs_DeliveryCanaryToken000000000000000"
REPO = "owner/repo"
BRANCH = "agentci/fix-calc-fix-calc"


class Delivery:
    """A job whose workflow was triggered by ``event`` on owner/repo, with gh stubbed."""

    def __init__(self, tmp_path: Path, bin_dir: Path, event_name: str, event: dict) -> None:
        self.job = Job(tmp_path, bin_dir)
        self.gh_dir = tmp_path / "gh"
        install_gh_stub(bin_dir / "job-bin", self.gh_dir)
        self.remote = tmp_path / "server" / "owner" / "repo.git"
        self.remote.mkdir(parents=True)
        git(self.remote, "init", "-q", "--bare")
        self.head = git(self.job.workspace, "rev-parse", "HEAD").strip()
        event_file = tmp_path / "event.json"
        event_file.write_text(json.dumps(event))
        self.env = {
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event_file),
            "GITHUB_SERVER_URL": f"file://{tmp_path / 'server'}",
            "GITHUB_SHA": self.head,
            "GITHUB_REF_NAME": "7/merge",
        }

    def run(self, replies: str = FIX, **inputs: str):
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=self.job.workspace, check=True)
        return self.job.run(replies, inputs={"github-token": TOKEN, **inputs}, extra_env=self.env)

    def branch_diff(self) -> str:
        return git(self.remote, "diff", f"{self.head}..{BRANCH}")


PR_EVENT = {
    "pull_request": {
        "number": 7,
        "head": {"ref": "feature", "sha": "0" * 40, "repo": {"full_name": REPO}},
        "base": {"ref": "main", "repo": {"full_name": REPO}},
    },
    "repository": {"default_branch": "main"},
}


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    """A folder outside /tmp for programs on the job's PATH (gh among them)."""
    with _bin_dir() as path:
        yield path


@pytest.fixture
def on_pr(tmp_path: Path, bin_dir: Path) -> Delivery:
    return Delivery(tmp_path, bin_dir, "pull_request", PR_EVENT)


def test_create_pr_pushes_the_patch_to_a_branch_and_opens_a_pr_with_the_summary(on_pr):
    run = on_pr.run(**{"create-pr": "true"})
    assert not run.failed, run.log
    assert run.outputs["branch"] == BRANCH
    assert run.outputs["pr-url"] == "https://github.com/owner/repo/pull/1"
    diff = on_pr.branch_diff()
    assert "-    return a - b" in diff and "+    return a + b" in diff
    assert git(on_pr.remote, "rev-parse", f"{BRANCH}^").strip() == on_pr.head
    [pr] = state(on_pr.gh_dir)["prs"]
    summary = (on_pr.job.workspace / ".agentci/out/summary.md").read_text()
    assert (pr["head"], pr["base"]) == (BRANCH, "feature")
    assert pr["body"].startswith(summary)
    assert pr["title"] == "agentci fix-calc: Fixed add."
    assert all(c["token"] == TOKEN for c in calls(on_pr.gh_dir))


def test_the_checkouts_index_is_left_alone(on_pr):
    on_pr.run(**{"create-pr": "true"})
    assert git(on_pr.job.workspace, "diff", "--cached", "--name-only") == ""
    assert git(on_pr.job.workspace, "rev-parse", "HEAD").strip() == on_pr.head


def test_a_second_run_updates_the_branch_and_the_pr_instead_of_opening_another(on_pr):
    first = on_pr.run(**{"create-pr": "true"})
    second = on_pr.run(**{"create-pr": "true"})
    assert not second.failed, second.log
    assert second.outputs["pr-url"] == first.outputs["pr-url"]
    assert len(state(on_pr.gh_dir)["prs"]) == 1
    commands = [c["argv"][:2] for c in calls(on_pr.gh_dir)]
    assert commands.count(["pr", "create"]) == 1
    assert commands.count(["pr", "edit"]) == 1
    assert "+    return a + b" in on_pr.branch_diff()


def test_the_comment_is_posted_once_then_edited(on_pr):
    first = on_pr.run(comment="true")
    assert not first.failed, first.log
    assert first.outputs["comment-url"].startswith("https://github.com/owner/repo/issues/7#")
    second = on_pr.run(NOTHING, comment="true")  # this run fails: the comment says so
    [comment] = state(on_pr.gh_dir)["comments"]
    assert comment["issue"] == 7
    assert "verify_failed" in comment["body"]
    assert comment["body"].startswith("<!-- agentci:comment fix-calc -->\n")
    assert second.outputs["comment-url"] == first.outputs["comment-url"]
    methods = [c["argv"][2] for c in calls(on_pr.gh_dir) if c["argv"][1] == "--method"]
    assert methods == ["POST", "PATCH"]


def test_the_comment_links_the_pull_request(on_pr):
    run = on_pr.run(**{"create-pr": "true", "comment": "true"})
    [comment] = state(on_pr.gh_dir)["comments"]
    assert f"Pull request with the change: {run.outputs['pr-url']}" in comment["body"]


def test_no_pr_for_a_failed_run(on_pr):
    run = on_pr.run(NOTHING, **{"create-pr": "true"})
    assert run.outputs["branch"] == "" and run.outputs["pr-url"] == ""
    assert calls(on_pr.gh_dir) == []
    assert run.exit_code == 1


def test_without_create_pr_or_comment_gh_is_never_called(on_pr):
    run = on_pr.run()
    assert run.step("Deliver the change").outcome == "skipped"
    assert calls(on_pr.gh_dir) == []


def test_the_token_never_reaches_the_models_commands(on_pr):
    recipe = on_pr.job.workspace / ".github/agentci/fix.yaml"
    recipe.write_text(
        recipe.read_text().replace(
            "policy: {mode: auto_edit}",
            "policy: {mode: yolo, env_passthrough: [GITHUB_TOKEN, GH_TOKEN, AGENTCI_GITHUB_TOKEN]}",
        )
    )
    replies = "- calls: [{name: run_shell_command, args: {command: env}}]\n" + FIX
    on_pr.env.update({"GITHUB_TOKEN": TOKEN, "GH_TOKEN": TOKEN})  # a job-level env, too
    run = on_pr.run(replies, **{"create-pr": "true"})
    assert not run.failed, run.log
    events = (on_pr.job.workspace / ".agentci/out/events.jsonl").read_text()
    assert '"tool_call_response"' in events and "PATH=" in events  # env did run
    assert TOKEN not in events
    assert run.outputs["pr-url"]  # delivery still had it


def test_pull_request_target_with_the_prs_code_checked_out_is_refused(tmp_path, bin_dir):
    d = Delivery(tmp_path, bin_dir, "pull_request_target", PR_EVENT)
    d.env["GITHUB_SHA"] = "1" * 40  # the base commit; the checkout holds something else
    run = d.run(**{"create-pr": "true"})
    assert run.failed
    check = run.step("Refuse untrusted code")
    assert check.outcome == "failure"
    assert "refusing to run on pull_request_target" in check.stdout
    assert run.step("Run agentci").outcome == "skipped"
    assert calls(d.gh_dir) == []


def test_pull_request_target_on_the_base_commit_runs(tmp_path, bin_dir):
    d = Delivery(tmp_path, bin_dir, "pull_request_target", PR_EVENT)
    run = d.run()
    assert run.step("Refuse untrusted code").outcome == "success", run.log
    assert run.outputs["status"] == "success"
