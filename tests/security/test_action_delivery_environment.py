"""The Action's delivery step runs ``gh`` and ``git`` with the GitHub token after the agent
has had the workspace: nothing the agent wrote may run there, and they get no secret they
do not need.

A job often puts a folder of the checkout on ``PATH`` (the project's ``.venv/bin``). The agent
can write a ``git`` there, and gh runs ``git`` from its ``PATH`` on ``pr create`` (the remotes,
the uncommitted-changes warning), with ``GH_TOKEN`` in its environment. The delivery's
processes therefore get ``PATH`` without the workspace's folders, and an allowlisted
environment: the job's other secrets (the model's key, the OIDC request token) stay out.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gh_stub import calls  # noqa: E402
from test_action import FIX, _bin_dir  # noqa: E402
from test_action_delivery import PR_EVENT, TOKEN, Delivery, git  # noqa: E402

GEMINI_KEY = "AIzaCanaryJobLevelKey000000000000000000"
OIDC_TOKEN = "CanaryOidcRequestToken0000000000000000"


@pytest.fixture
def on_pr(tmp_path: Path) -> Iterator[Delivery]:
    with _bin_dir() as bin_dir:
        yield Delivery(tmp_path, bin_dir, "pull_request", PR_EVENT)


def _yolo(on_pr: Delivery) -> None:
    """The recipe lets the model run any command (committed: each run checks out the files)."""
    recipe = on_pr.job.workspace / ".github/agentci/fix.yaml"
    text = recipe.read_text().replace("policy: {mode: auto_edit}", "policy: {mode: yolo}")
    recipe.write_text(text)
    git(on_pr.job.workspace, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qam", "yolo")
    on_pr.head = git(on_pr.job.workspace, "rev-parse", "HEAD").strip()
    on_pr.env["GITHUB_SHA"] = on_pr.head


def test_a_git_the_agent_put_on_the_jobs_path_is_not_run_by_the_delivery(on_pr, tmp_path):
    ws = on_pr.job.workspace
    on_pr.job.path = f"{ws}/.venv/bin:{on_pr.job.path}"  # the job's setup put its venv on PATH
    loot = tmp_path / "escape" / "loot"
    loot.parent.mkdir()
    _yolo(on_pr)
    planted = f"#!/bin/sh\\nenv >> {loot}\\n"
    plant = (
        "- calls: [{name: run_shell_command, args: {command: "
        f"\"mkdir -p .venv/bin && printf '{planted}' > .venv/bin/git && chmod +x .venv/bin/git\""
        "}}]\n"
    )
    run = on_pr.run(plant + FIX, **{"create-pr": "true"})
    assert (ws / ".venv/bin/git").exists(), run.log  # the agent did plant it
    assert run.outputs["pr-url"] == "https://github.com/owner/repo/pull/1", run.log
    assert not loot.exists(), loot.read_text()[:2000]


def test_gh_gets_the_token_and_none_of_the_jobs_other_secrets(on_pr):
    on_pr.env.update({"GEMINI_API_KEY": GEMINI_KEY, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": OIDC_TOKEN})
    run = on_pr.run(**{"create-pr": "true", "comment": "true"})
    assert run.outputs["comment-url"], run.log
    made = calls(on_pr.gh_dir)
    assert made and all(c["token"] == TOKEN for c in made)
    leaked = {name for c in made for name in c["env"]} & {
        "GEMINI_API_KEY", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "AGENTCI_GITHUB_TOKEN", "GITHUB_TOKEN",
    }  # fmt: skip
    assert leaked == set()
