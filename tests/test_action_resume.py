"""The Action's ``resume-from`` input: the earlier run's artifact is downloaded outside the
workspace and agentci goes on from it with ``--resume`` (docs/github-action.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from action_harness import ROOT
from test_action import FIX, Job, _bin_dir

from agentci.testing.repo import GIT_AUTHOR


@pytest.fixture
def job(tmp_path: Path) -> Iterator[Job]:
    """A job whose checkout has the model's replies committed: a fresh checkout of the same
    commit is clean, as resuming an in-place workspace needs."""
    with _bin_dir() as path:
        job = Job(tmp_path, path)
        (job.workspace / ".github/agentci/replies.yaml").write_text(FIX)
        subprocess.run(["git", "add", "-A"], cwd=job.workspace, check=True)
        subprocess.run(["git", "commit", "-qm", "replies"], cwd=job.workspace, check=True,
                       env=GIT_AUTHOR)  # fmt: skip
        yield job


def test_resume_from_goes_on_from_the_earlier_runs_artifact(job: Job, tmp_path: Path):
    first = job.run(FIX, inputs={"extra-args": "--max-turns 1"})
    assert first.outputs["status"] == "budget_exhausted", first.log
    upload = first.step("Upload the outputs").with_
    artifact = tmp_path / "artifact"  # what upload-artifact stored
    shutil.copytree(job.workspace / upload["path"], artifact)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=job.workspace, check=True)

    second = job.run(FIX, inputs={"resume-from": upload["name"]},
                     artifacts={upload["name"]: artifact})  # fmt: skip

    assert not second.failed, second.log
    assert second.outputs["status"] == "success"
    download = second.step("Download the earlier run").with_
    assert (download["name"], download["run-id"], download["github-token"]) == (
        upload["name"],
        "",
        "",
    )
    assert Path(download["path"]) == job.runner_temp / "agentci-resume"  # outside the workspace
    result = json.loads((job.workspace / second.outputs["result"]).read_text())
    assert result["resumed_from"] == str(job.runner_temp / "agentci-resume")
    assert (result["turns"], result["all_runs"]["turns"]) == (1, 2)
    assert second.outputs["changed-files"] == "calc.py"


def test_an_artifact_of_another_run_is_downloaded_with_the_token(job: Job):
    run = job.run(FIX, inputs={"resume-from": "agentci-fix", "resume-run-id": "123",
                               "github-token": "ghs_token"})  # fmt: skip
    download = run.step("Download the earlier run")
    assert (download.with_["run-id"], download.with_["github-token"]) == ("123", "ghs_token")
    assert download.outcome == "failure"  # no such artifact: agentci does not run
    assert run.failed and run.step("Run agentci").outcome == "skipped"


def test_the_docs_resume_snippet_runs_as_written(job: Job, tmp_path: Path):
    text = (ROOT / "docs/github-action.md").read_text()
    section = text[text.index("## Going on from an earlier run") :]
    block = section[section.index("```yaml\n") + 8 :]
    [step] = yaml.safe_load(block[: block.index("```")])
    inputs = {k: str(v) for k, v in step["with"].items()}
    first = job.run(FIX, inputs={"recipe": inputs["recipe"], "extra-args": "--max-turns 1"})
    assert first.outputs["status"] == "budget_exhausted", first.log
    upload = first.step("Upload the outputs").with_
    assert upload["name"] == inputs["resume-from"]  # the default name, agentci-<job>
    shutil.copytree(job.workspace / upload["path"], tmp_path / "artifact")
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=job.workspace, check=True)

    second = job.run(FIX, inputs=inputs, artifacts={upload["name"]: tmp_path / "artifact"})

    assert second.outputs["status"] == "success", second.log
