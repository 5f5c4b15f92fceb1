"""The Action's host-side steps (``deliver``, ``outputs``) take only an output folder agentci
wrote: none when agentci's exit code says it wrote nothing, none that is a link, passes
through one or lacks agentci's marker, and no file in it through a link: the host never follows a link in the workspace.

The checkout is the pull request's: it can commit ``.agentci`` as a link, or links in the
output folder, so every case here is a committed file, and the token is the canary.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from action_harness import parse_output_file
from test_action import _bin_dir
from test_action_delivery import TOKEN
from test_action_delivery_faults import Deliver


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    with _bin_dir() as path:
        yield path


@pytest.fixture
def deliver(tmp_path: Path, bin_dir: Path) -> Deliver:
    return Deliver(tmp_path, bin_dir)


def _errors(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [ln for ln in done.stdout.splitlines() if ln.startswith("::error ")]


def _link_the_output_folder(d: Deliver) -> None:
    """``.agentci -> forged``: the marked output folder reached through a committed link."""
    (d.ws / ".agentci").rename(d.ws / "forged")
    (d.ws / ".agentci").symlink_to("forged")


def test_nothing_is_delivered_when_agentci_exited_with_invalid_input(deliver: Deliver):
    done = deliver.run("ok", "--create-pr", "true", "--comment", "true", "--exit-code", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agentci exited with 2 and wrote no outputs; nothing to deliver" in done.stdout
    assert deliver.gh_calls() == []


def test_nothing_is_delivered_when_agentci_did_not_run(deliver: Deliver):
    done = deliver.run("ok", "--comment", "true", "--exit-code", "")
    assert done.returncode == 0, done.stdout + done.stderr
    assert deliver.gh_calls() == []


def test_an_output_folder_reached_through_a_link_is_refused(deliver: Deliver):
    _link_the_output_folder(deliver)
    done = deliver.run("ok", "--create-pr", "true", "--comment", "true")
    assert done.returncode == 1, done.stdout + done.stderr
    [error] = _errors(done)
    assert "not delivering: .agentci/out is missing, or a folder on its path is a symbolic link" in error  # fmt: skip
    assert deliver.gh_calls() == []


def test_an_output_folder_that_is_a_link_is_refused(deliver: Deliver):
    (deliver.ws / ".agentci/out").rename(deliver.ws / "forged")
    (deliver.ws / ".agentci/out").symlink_to("../forged")
    done = deliver.run("ok", "--comment", "true")
    [error] = _errors(done)
    assert "not delivering: .agentci/out is a symbolic link; agentci does not follow it" in error
    assert deliver.gh_calls() == []


def test_an_output_folder_without_agentcis_marker_is_refused(deliver: Deliver):
    (deliver.ws / ".agentci/out/.agentci-out").unlink()
    done = deliver.run("ok", "--comment", "true")
    [error] = _errors(done)
    assert "not delivering: .agentci/out is not an agentci output folder (it has no .agentci-out)" in error  # fmt: skip
    assert deliver.gh_calls() == []


def test_a_summary_that_is_a_link_to_the_environment_is_never_read(deliver: Deliver):
    summary = deliver.ws / ".agentci/out/summary.md"
    summary.unlink()
    summary.symlink_to("/proc/self/environ")
    done = deliver.run("ok", "--comment", "true")
    [error] = _errors(done)
    assert "agentci left no result in .agentci/out" in error
    assert deliver.gh_calls() == []
    assert TOKEN not in done.stdout + done.stderr


def test_a_patch_that_is_a_link_is_not_proposed(deliver: Deliver, tmp_path: Path):
    patch = deliver.ws / ".agentci/out/patch.diff"
    elsewhere = tmp_path / "elsewhere.diff"
    patch.rename(elsewhere)
    patch.symlink_to(elsewhere)
    done = deliver.run("ok", "--create-pr", "true")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fix-calc: success, no change to propose" in done.stdout
    assert deliver.gh_calls() == []


def test_an_absolute_output_folder_outside_the_workspace_is_delivered(deliver: Deliver, tmp_path: Path):  # fmt: skip
    outside = tmp_path / "runner-temp" / "out"
    shutil.move(deliver.ws / ".agentci/out", outside)
    done = deliver.run("ok", "--create-pr", "true", "--out", str(outside))
    assert done.returncode == 0, done.stdout + done.stderr
    assert deliver.outputs()["pr-url"] == "https://github.com/owner/repo/pull/1"


def _outputs(d: Deliver, out: str = ".agentci/out") -> tuple[dict[str, str], str]:
    target = d.output.with_name("outputs-step")
    target.write_text("")
    done = subprocess.run(
        [sys.executable, "-I", "-m", "agentci.delivery", "outputs", "--workspace", str(d.ws),
         "--out", out, "--exit-code", "0"],
        cwd=d.stubs, env={**d.env, "GITHUB_OUTPUT": str(target)},
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return parse_output_file(target.read_text()), done.stdout


def test_the_outputs_step_reads_agentcis_output_folder(deliver: Deliver):
    outputs, _ = _outputs(deliver)
    assert outputs["out-dir-ok"] == "true"
    assert outputs["summary"] == "## fix-calc: success"
    assert outputs["has-changes"] == "true"
    assert outputs["patch"] == ".agentci/out/patch.diff"


def test_the_outputs_step_reads_nothing_through_a_linked_output_folder(deliver: Deliver):
    _link_the_output_folder(deliver)
    result = deliver.ws / "forged/out/result.json"
    result.write_text(json.dumps({"status": "success", "changed_files": ["calc.py"]}))
    outputs, stdout = _outputs(deliver)
    assert outputs["out-dir-ok"] == "false"
    assert (outputs["status"], outputs["summary"], outputs["changed-files"]) == ("unknown", "", "")
    assert (outputs["has-changes"], outputs["patch"], outputs["result"]) == ("false", "", "")
    assert "::warning title=agentci delivery::the outputs are not read and not uploaded" in stdout


def test_the_outputs_step_reads_no_file_that_is_a_link(deliver: Deliver):
    summary = deliver.ws / ".agentci/out/summary.md"
    summary.unlink()
    summary.symlink_to("/proc/self/environ")
    outputs, _ = _outputs(deliver)
    assert outputs["out-dir-ok"] == "true"
    assert outputs["summary"] == ""
    assert TOKEN not in json.dumps(outputs)
    assert os.path.islink(summary)


DEEP = "[" * 100_000 + "]" * 100_000


def test_a_result_nested_too_deep_is_a_clean_error_not_a_delivery(deliver: Deliver):
    (deliver.ws / ".agentci/out/result.json").write_text('{"status": ' + DEEP + "}")
    done = deliver.run("ok", "--comment", "true")
    [error] = _errors(done)
    assert ".agentci/out/result.json is not agentci's result: nested more than 200 levels" in error
    assert "Traceback" not in done.stderr
    assert deliver.gh_calls() == []


def test_the_outputs_step_skips_json_nested_too_deep(deliver: Deliver):
    out = deliver.ws / ".agentci/out"
    (out / "events.jsonl").write_text('{"type": "error", "message": ' + DEEP + "}\n")
    (out / "result.json").write_text('{"status": ' + DEEP + "}")
    outputs, _ = _outputs(deliver)
    assert (outputs["out-dir-ok"], outputs["status"]) == ("true", "unknown")
    assert outputs["summary"] == "## fix-calc: success"
