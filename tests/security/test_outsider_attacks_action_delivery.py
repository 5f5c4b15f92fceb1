"""The Action's delivery step reads the run's output folder, ``<workspace>/.agentci/out``.
The workspace is the pull request's checkout: it can commit ``.agentci`` as a symbolic link to
a folder of its own. ``agentci run`` then refuses to write its outputs through the link (exit
2), but the run step still succeeds, and the delivery step follows the link: it reads a
forged result.json, a summary.md that is a link to ``/proc/self/environ`` (the delivery's own
environment holds the GitHub token) and a forged patch.diff, and posts or pushes them with the
token. The host never follows a link in the workspace (docs/policy.md, host-side readers).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gh_stub import state  # noqa: E402
from test_action import _bin_dir  # noqa: E402
from test_action_delivery import PR_EVENT, TOKEN, Delivery  # noqa: E402


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    with _bin_dir() as path:
        yield path


def _forge(ws: Path, summary_link: str | None, patch: str = "") -> None:
    forged = ws / "forged" / "out"
    forged.mkdir(parents=True)
    result = {"version": 1, "status": "success", "exit_code": 0, "recipe_name": "fix-calc",
              "tasks": [{"name": "fix-calc", "status": "success", "exit_code": 0,
                         "summary": "Fixed add."}]}  # fmt: skip
    (forged / "result.json").write_text(json.dumps(result))
    if summary_link:
        (forged / "summary.md").symlink_to(summary_link)
    else:
        (forged / "summary.md").write_text("forged summary\n")
    if patch:
        (forged / "patch.diff").write_text(patch)
    (ws / ".agentci").symlink_to("forged")
    for args in (["add", "-A"], ["commit", "-qm", "pr"]):
        subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True,
                       env={**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
                            "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"})  # fmt: skip


def test_a_linked_output_folder_cannot_post_the_delivery_token(tmp_path, bin_dir):
    on_pr = Delivery(tmp_path, bin_dir, "pull_request", PR_EVENT)
    _forge(on_pr.job.workspace, "/proc/self/environ")
    on_pr.head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=on_pr.job.workspace,
                                capture_output=True, text=True).stdout.strip()  # fmt: skip
    on_pr.env["GITHUB_SHA"] = on_pr.head
    on_pr.run(comment="true")
    posted = json.dumps(state(on_pr.gh_dir))
    assert TOKEN not in posted, "the delivery's GitHub token was posted as the comment"


FORGED_PATCH = "\n".join(
    [
        "diff --git a/tests/test_calc.py b/tests/test_calc.py",
        "--- a/tests/test_calc.py",
        "+++ b/tests/test_calc.py",
        "@@ -2,4 +2,4 @@ from calc import add",
        " ",
        " ",
        " def test_add():",
        "-    assert add(2, 3) == 5",
        "+    assert True  # FORGED",
        "",
    ]
)


def test_a_linked_output_folder_cannot_push_a_forged_patch(tmp_path, bin_dir):
    on_pr = Delivery(tmp_path, bin_dir, "pull_request", PR_EVENT)
    _forge(on_pr.job.workspace, None, FORGED_PATCH)
    on_pr.head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=on_pr.job.workspace,
                                capture_output=True, text=True).stdout.strip()  # fmt: skip
    on_pr.env["GITHUB_SHA"] = on_pr.head
    on_pr.run(**{"create-pr": "true"})
    # what the pushed commit changes on top of the pull request's commit
    pushed = subprocess.run(["git", "log", "-p", "--branches", "--not", on_pr.head],
                            cwd=on_pr.remote, capture_output=True, text=True).stdout  # fmt: skip
    assert "FORGED" not in pushed, "a patch agentci never made was pushed with the token"
    assert state(on_pr.gh_dir)["prs"] == []


def test_a_linked_output_folder_is_not_uploaded_as_the_artifact(tmp_path, bin_dir):
    """actions/upload-artifact follows links: a committed ``.agentci -> /host/folder`` makes
    the Action upload that host folder (e.g. ``/tmp``, where the Action moved the cloud
    credentials file) as the run's artifact, which the pull request's author downloads."""
    host = tmp_path / "escape" / "host"
    (host / "out").mkdir(parents=True)
    (host / "out" / "gha-creds-x.json").write_text("HOST-SECRET\n")
    on_pr = Delivery(tmp_path, bin_dir, "pull_request", PR_EVENT)
    ws = on_pr.job.workspace
    (ws / ".agentci").symlink_to(host)
    run = on_pr.run()
    upload = next((s for s in run.steps if s.name.startswith("Upload the outputs")), None)
    if upload is None or upload.outcome == "skipped":
        return
    target = (ws / upload.with_["path"]).resolve()
    assert target.is_relative_to(ws.resolve()), (
        f"the artifact is {target}, a folder outside the workspace"
    )
