"""The GitHub Action: valid for GitHub (offline schemas), and its steps as the runner runs them.

The steps of action.yml run with bash in a GitHub-like environment (see action_harness.py)
against a scripted model: a real recipe, a real git workspace, real verify with pytest.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from action_harness import ROOT, ActionRun, run_action
from tool_harness import init_repo

WORKFLOWS = sorted((ROOT / "examples" / "workflows").glob("*.yml"))


def _check(schema: str, *files: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    return subprocess.run(
        [exe, "--builtin-schema", schema, *map(str, files)], capture_output=True, text=True
    )


def test_action_yml_matches_the_github_actions_schema():
    done = _check("vendor.github-actions", ROOT / "action.yml")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_example_workflows_match_the_workflow_schema(workflow):
    done = _check("vendor.github-workflows", workflow)
    assert done.returncode == 0, done.stdout + done.stderr


# ---- the example workflows work unchanged on ubuntu-latest ------------------------------


def _agentci_steps(workflow: Path) -> list[dict]:
    jobs = yaml.safe_load(workflow.read_text())["jobs"].values()
    return [s for job in jobs for s in job["steps"] if "agentci" in s.get("uses", "")]


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_example_workflows_install_the_project_and_its_test_tools(workflow):
    jobs = yaml.safe_load(workflow.read_text())["jobs"].values()
    for job in jobs:
        uses = [s.get("uses", "") for s in job["steps"]]
        assert any(u.startswith("actions/setup-python@") for u in uses), (
            "the project needs its own Python: ubuntu-latest's system pip refuses installs"
        )
    for step in _agentci_steps(workflow):
        assert "pip install" in step["with"]["setup"]


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_example_workflows_do_not_leave_the_token_in_the_checkout(workflow):
    jobs = yaml.safe_load(workflow.read_text())["jobs"].values()
    for job in jobs:
        checkout = next(
            s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")
        )
        assert checkout["with"]["persist-credentials"] is False


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_example_workflows_name_only_inputs_the_action_has(workflow):
    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    for step in _agentci_steps(workflow):
        assert set(step["with"]) <= inputs


# ---- the steps, run ------------------------------------------------------------------------

PROJECT = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}

RECIPE = """\
version: 1
name: fix-calc
model: {name: "scripted:replies.yaml"}
prompt: Fix the failing test.
workspace: {path: .}
verify: {command: python -m pytest -q, runner: pytest, attempts: 1}
policy: {mode: auto_edit}
"""

FIX = """\
- calls: [{name: replace, args: {file_path: calc.py, old_string: "a - b", new_string: "a + b"}}]
- text: Fixed add.
"""

NOTHING = """\
- text: I looked and changed nothing.
"""


def _source_id() -> str:
    """The fingerprint action.yml's install step gives agentci's source (to reuse a venv)."""
    names = sorted(
        [
            "pyproject.toml",
            *(str(p.relative_to(ROOT)) for p in (ROOT / "agentci").rglob("*.py")),
        ]
    )
    lines = "".join(f"{hashlib.sha256((ROOT / n).read_bytes()).hexdigest()}  {n}\n" for n in names)
    return hashlib.sha256(lines.encode()).hexdigest()[:32]


def _wrapper(path: Path, target: str) -> None:
    path.write_text(f'#!/bin/sh\nexec "{target}" "$@"\n')
    path.chmod(0o755)


class Job:
    """A checked-out repository, a job PATH with the project's Python (outside /tmp: inside
    the sandbox /tmp is private, and a runner's tools are not under /tmp either), and a runner
    temp folder where agentci's virtualenv is already installed, as a second use of the
    action in one job finds it."""

    def __init__(self, base: Path, bin_dir: Path) -> None:
        self.workspace = init_repo(base / "ws", {**PROJECT, ".github/agentci/fix.yaml": RECIPE})
        job_bin = bin_dir / "job-bin"
        job_bin.mkdir()
        _wrapper(job_bin / "python", sys.executable)  # the job's Python (has pytest)
        self.runner_temp = base / "runner-temp"
        venv = self.runner_temp / "agentci-venv"
        (venv / "bin").mkdir(parents=True)
        _wrapper(venv / "bin" / "python", sys.executable)
        _wrapper(venv / "bin" / "agentci", str(Path(sys.executable).parent / "agentci"))
        (venv / ".agentci-source").write_text(_source_id() + "\n")
        self.path = f"{job_bin}:/usr/local/bin:/usr/bin:/bin"

    def run(self, replies: str, **kw: Any) -> ActionRun:
        (self.workspace / ".github/agentci/replies.yaml").write_text(replies)
        inputs = {"recipe": ".github/agentci/fix.yaml", **kw.pop("inputs", {})}
        path = kw.pop("path", self.path)
        return run_action(
            self.workspace, self.runner_temp, inputs, path=path, python=sys.executable, **kw
        )


@contextlib.contextmanager
def _bin_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="agentci-test-path-", dir="/var/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    """A folder outside /tmp for programs on the job's PATH."""
    with _bin_dir() as path:
        yield path


@pytest.fixture
def job(tmp_path: Path, bin_dir: Path) -> Job:
    return Job(tmp_path, bin_dir)


@pytest.fixture(scope="module")
def success(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Job, ActionRun]]:
    """One successful run with the default inputs, shared by the tests that only look."""
    with _bin_dir() as path:
        job = Job(tmp_path_factory.mktemp("success"), path)
        yield job, job.run(FIX)


def test_a_successful_run_sets_every_output_and_exits_0(success):
    job, run = success
    assert not run.failed, run.log
    assert run.outputs == {
        "status": "success",
        "exit-code": "0",
        "patch": ".agentci/out/patch.diff",
        "result": ".agentci/out/result.json",
        "junit": ".agentci/out/junit.xml",
        "summary-file": ".agentci/out/summary.md",
        "has-changes": "true",
        "changed-files": "calc.py",
        "sandboxed": "true",
        "sandbox-fix": "",  # this machine's bubblewrap works as it is
        "summary": (job.workspace / ".agentci/out/summary.md").read_text().rstrip("\n"),
        "sarif": ".agentci/out/sarif.json",  # the baseline's failing test had a place
        "branch": "",
        "pr-url": "",
        "comment-url": "",
        "output": "",
    }
    for name in ("patch", "result", "junit", "summary-file"):
        assert (job.workspace / run.outputs[name]).is_file()
    assert "a + b" in (job.workspace / run.outputs["patch"]).read_text()


def test_the_action_reuses_agentcis_virtualenv_when_the_source_is_the_same(success):
    _, run = success
    assert "reusing" in run.step("Install agentci").stdout, run.log


def test_the_jobs_python_and_environment_are_left_alone(success):
    _, run = success
    assert run.github_env == ""
    assert run.github_path == ""
    python = run.step("Python for agentci")
    assert python.with_["update-environment"] == "false"
    assert python.with_["python-version"] == "3.12"


def test_agentcis_summary_reaches_the_job_summary(success):
    _, run = success
    assert "fix-calc" in run.summary
    assert "success" in run.summary
    assert "unsandboxed" not in run.summary


def test_the_outputs_are_uploaded_with_hidden_files_under_the_jobs_name(success):
    _, run = success
    upload = run.step("Upload the outputs")
    assert upload.outcome == "success"
    assert upload.with_ == {
        "name": "agentci-fix",
        "path": ".agentci/out",
        "include-hidden-files": "true",
        "if-no-files-found": "warn",
    }


# A recipe that does not exist ends agentci at once (exit 2): enough for the steps around it.
QUICK = {"recipe": "missing.yaml"}


def _earlier_outputs(job: Job, out: str = ".agentci/out") -> None:
    """The output folder an earlier agentci run of the job left (with agentci's marker)."""
    (job.workspace / out).mkdir(parents=True)
    (job.workspace / out / ".agentci-out").write_text("agentci output folder\n")


def test_matrix_legs_and_other_out_dirs_get_their_own_artifact_name(job):
    _earlier_outputs(job, ".agentci/lint")
    run = job.run(FIX, inputs={**QUICK, "out-dir": ".agentci/lint"}, strategy=(2, 3))
    assert run.exit_code == 2
    assert run.step("Upload the outputs").with_["name"] == "agentci-fix-2-agentci-lint"


def test_an_artifact_name_given_is_used_as_it_is(job):
    _earlier_outputs(job)
    run = job.run(FIX, inputs={**QUICK, "artifact-name": "review-patch"})
    assert run.step("Upload the outputs").with_["name"] == "review-patch"


def test_no_artifact_when_agentci_made_no_output_folder(job):
    run = job.run(FIX, inputs=QUICK)
    assert run.exit_code == 2
    assert run.step("Upload the outputs").outcome == "skipped"
    assert run.step("Outputs").outputs["out-dir-ok"] == "false"
    assert "::warning title=agentci::no artifact: .agentci/out is not an agentci output folder" in run.step("Artifact name").stdout  # fmt: skip


def test_no_upload_and_no_pip_cache_when_they_are_turned_off(job):
    run = job.run(FIX, inputs={**QUICK, "upload-artifact": "false", "cache": "false"})
    assert run.step("Upload the outputs").outcome == "skipped"
    assert run.step("Cache pip downloads").outcome == "skipped"


def test_pip_downloads_are_cached_under_a_key_of_agentcis_dependencies(success):
    _, run = success
    cache = run.step("Cache pip downloads")
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    assert cache.with_ == {
        "path": f"{success[0].runner_temp}/agentci-pip-cache",
        "key": f"agentci-pip-Linux-3.12-{digest}",
    }


def test_a_failed_run_fails_the_step_with_agentcis_code_and_still_uploads(job):
    run = job.run(NOTHING)
    assert run.failed
    assert run.exit_code == 1
    assert run.outputs["status"] == "verify_failed"
    assert run.outputs["exit-code"] == "1"
    assert run.outputs["has-changes"] == "false"
    assert run.outputs["changed-files"] == ""
    assert run.step("Upload the outputs").outcome == "success"


def test_setup_runs_in_the_jobs_environment_before_agentci(job):
    # The project's tests need a generated module that only the setup commands make.
    (job.workspace / "tests/test_calc.py").write_text(
        "from calc import add\nfrom generated import BASE\n\n\n"
        "def test_add():\n    assert add(BASE, 3) == 5\n"
    )
    run = job.run(
        FIX,
        inputs={"setup": "echo 'BASE = 2' > generated.py\ncommand -v python > setup-python.txt"},
    )
    assert run.outputs["status"] == "success", run.log
    assert (job.workspace / "setup-python.txt").read_text().startswith(str(job.path.split(":")[0]))
    assert run.outputs["changed-files"] == "calc.py"  # setup's file is not the agent's change


def test_a_failing_setup_fails_the_step_before_any_model_call(job):
    run = job.run(FIX, inputs={"setup": "echo cannot install >&2\nexit 3"})
    assert run.failed
    assert run.step("Set up the project").outcome == "failure"
    assert "cannot install" in run.step("Set up the project").stderr
    assert run.step("Run agentci").outcome == "skipped"
    assert not (job.workspace / ".agentci/out").exists()
    assert run.exit_code == 1
    assert "agentci did not run" in run.step("Exit with").stdout


def test_params_and_extra_args_reach_agentci(job):
    recipe = job.workspace / ".github/agentci/fix.yaml"
    recipe.write_text(
        RECIPE.replace("python -m pytest -q,", '"python -m pytest -q {{ tests }}",')
        + "parameters: {tests: {type: string}}\n"
    )
    run = job.run(
        FIX, inputs={"params": "tests=tests/test_calc.py\n", "extra-args": "--max-turns 1"}
    )
    # One turn allowed: the fix is made, the model's closing reply would be turn 2.
    assert run.outputs["status"] == "budget_exhausted", run.log
    assert run.exit_code == 3
    events = (job.workspace / ".agentci/out/events.jsonl").read_text()
    assert '"command":"python -m pytest -q tests/test_calc.py"' in events


def test_the_structured_answer_is_the_output_output(job):
    recipe = job.workspace / ".github/agentci/fix.yaml"
    schema = "{type: object, properties: {cause: {type: string}}, required: [cause]}"
    recipe.write_text(
        RECIPE.replace("policy: {mode: auto_edit}", "policy: {mode: read_only}").replace(
            "verify: {command: python -m pytest -q, runner: pytest, attempts: 1}\n", ""
        )
        + f"allow_no_changes: true\noutput: {{schema: {schema}}}\n"
    )
    answer = '- calls: [{name: submit_result, args: {cause: "add subtracts"}}]\n'
    run = job.run(answer)
    assert not run.failed, run.log
    assert run.outputs["status"] == "no_changes"
    assert json.loads(run.outputs["output"]) == {"cause": "add subtracts"}


def _path_without_bwrap(bin_dir: Path, job_path: str) -> tuple[str, Path]:
    """A PATH like the job's whose /usr/bin has no bwrap, and a folder in front of it."""
    usr_bin = bin_dir / "usr-bin"
    usr_bin.mkdir()
    for exe in Path("/usr/bin").iterdir():
        if exe.name != "bwrap":
            (usr_bin / exe.name).symlink_to(exe)
    front = bin_dir / "front"
    front.mkdir()
    return f"{front}:{job_path.split(':')[0]}:{usr_bin}", front


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("bwrap"), reason="needs root and bwrap")
def test_bubblewrap_is_installed_with_apt_get_when_missing(job, tmp_path: Path, bin_dir: Path):
    path, front = _path_without_bwrap(bin_dir, job.path)
    log = tmp_path / "apt.log"
    # apt-get as on a runner: installing bubblewrap puts bwrap on the PATH.
    (front / "apt-get").write_text(
        f'#!/bin/sh\necho "$@" >> {log}\n'
        f'[ "$1" = install ] && ln -sf {shutil.which("bwrap")} {front}/bwrap\nexit 0\n'
    )
    (front / "apt-get").chmod(0o755)
    run = job.run(FIX, path=path)
    assert log.read_text().splitlines() == ["update -qq", "install -y -qq bubblewrap"]
    assert run.outputs["sandboxed"] == "true", run.log
    assert run.outputs["status"] == "success"


def test_no_bubblewrap_install_when_it_is_turned_off(job, tmp_path: Path, bin_dir: Path):
    path, front = _path_without_bwrap(bin_dir, job.path)
    log = tmp_path / "apt.log"
    (front / "apt-get").write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    (front / "apt-get").chmod(0o755)
    run = job.run(FIX, path=path, inputs={"install-bubblewrap": "false"})
    assert not log.exists()
    assert run.outputs["sandboxed"] == "false"
    assert "bubblewrap (bwrap) is not installed" in run.summary


def test_a_second_use_in_one_job_never_ends_with_the_first_uses_code(job):
    first = job.run(FIX, inputs={"setup": "exit 0"})
    assert first.exit_code == 0, first.log
    run = job.run(FIX, inputs={"setup": "exit 3", "out-dir": ".agentci/second"})
    assert run.step("Run agentci").outcome == "skipped"
    assert run.exit_code == 1
