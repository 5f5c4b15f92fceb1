"""No Python the Action starts on the host imports anything from the workspace.

After the first model call every file in the workspace is the agent's; a ``json.py`` it wrote
must not run in the Outputs step (model key in the environment, ``$GITHUB_ENV`` writable), an
``agentci/__init__.py`` must not run in the delivery step (write token). And on
``pull_request_target`` the workspace is the pull request's code from the start: the step that
refuses it must not import the pull request's own ``agentci`` package.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from action_harness import hostile_modules, seed_hostile_modules
from test_action import FIX, _bin_dir
from test_action_delivery import PR_EVENT, Delivery


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    """A folder outside /tmp (and outside the sandbox's writable places) for programs on the
    job's PATH and for the markers."""
    with _bin_dir() as path:
        yield path


def _seeded(tmp_path: Path, bin_dir: Path, event_name: str) -> tuple[Delivery, Path]:
    d = Delivery(tmp_path, bin_dir, event_name, PR_EVENT)
    markers = bin_dir / "imported"
    seed_hostile_modules(d.job.workspace, markers)
    ws = d.job.workspace
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    subprocess.run(["git", "commit", "-qm", "planted"], cwd=ws, check=True)
    d.head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws, capture_output=True, text=True,
                            check=True).stdout.strip()  # fmt: skip
    d.env["GITHUB_SHA"] = d.head
    return d, markers


def test_the_seeded_modules_do_record_a_host_import(tmp_path: Path, bin_dir: Path):
    d, markers = _seeded(tmp_path, bin_dir, "pull_request")
    python = d.job.runner_temp / "agentci-venv" / "bin" / "python"
    seeded = {"json", "secrets", "pathlib", "click", "agentci"}
    # What the interpreter imports while it starts (site, .pth files of the venv) comes before
    # the current folder is on sys.path, and differs between Python versions: asked first.
    started = subprocess.run(
        [str(python), "-c", "import sys; print(' '.join(sys.modules))"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    subprocess.run([str(python), "-c", "import " + ", ".join(sorted(seeded))],
                   cwd=d.job.workspace, check=True)  # fmt: skip
    recorded = {p.name.split("-")[0] for p in markers.iterdir()}
    assert recorded == seeded - set(started)
    assert {"secrets", "click", "agentci"} <= recorded  # never imported while Python starts


def test_no_step_of_the_action_imports_a_module_from_the_workspace(tmp_path: Path, bin_dir: Path):
    d, markers = _seeded(tmp_path, bin_dir, "pull_request")
    run = d.run(FIX, **{"create-pr": "true", "comment": "true"})
    assert not run.failed, run.log
    assert run.outputs["status"] == "success"
    assert run.outputs["pr-url"] and run.outputs["comment-url"]
    assert sorted(p.name for p in markers.iterdir()) == []


def test_the_pull_request_target_refusal_does_not_import_the_pull_requests_agentci(
    tmp_path: Path, bin_dir: Path
):
    d, markers = _seeded(tmp_path, bin_dir, "pull_request_target")
    d.env["GITHUB_SHA"] = "1" * 40  # the base commit; the checkout holds the pull request's
    run = d.run(FIX, **{"create-pr": "true"})
    check = run.step("Refuse untrusted code")
    assert check.outcome == "failure"
    assert "refusing to run on pull_request_target" in check.stdout
    assert sorted(p.name for p in markers.iterdir()) == []


def test_modules_the_agent_writes_are_not_imported_by_the_steps_after_the_run(
    tmp_path: Path, bin_dir: Path
):
    d = Delivery(tmp_path, bin_dir, "pull_request", PR_EVENT)
    markers = bin_dir / "imported"
    writes = [
        {"name": "write_file", "args": {"file_path": name, "content": text}}
        for name, text in hostile_modules(markers).items()
    ]
    replies = "- " + json.dumps({"calls": writes}) + "\n" + FIX
    run = d.run(replies, **{"create-pr": "true", "comment": "true"})
    assert run.outputs["status"] == "success", run.log
    assert "json.py" in run.outputs["changed-files"].splitlines()
    assert run.outputs["pr-url"] and run.outputs["comment-url"]
    assert sorted(p.name for p in markers.iterdir()) == []
