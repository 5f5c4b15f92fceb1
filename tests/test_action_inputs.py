"""The Action's inputs beyond a recipe: a prompt alone, the model's key, Vertex AI (with the
credentials file google-github-actions/auth drops in the workspace hidden from the agent), and
the summary as text."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from action_harness import ROOT
from test_action import FIX, Job, _bin_dir

KEY = "AIzaInputCanaryKey00000000000000000000"
CREDS_TOKEN = "gha-oidc-request-token-canary-1234567890"


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    with _bin_dir() as path:
        yield path


class EnvJob(Job):
    """A job whose agentci records the environment it was started with (env.txt)."""

    def __init__(self, base: Path, bin_dir: Path) -> None:
        super().__init__(base, bin_dir)
        self.env_file = self.runner_temp / "agentci-env.json"
        agentci = self.runner_temp / "agentci-venv" / "bin" / "agentci"
        real = Path(sys.executable).parent / "agentci"
        agentci.write_text(
            f"#!/bin/sh\n'{sys.executable}' -I -c 'import json, os, sys; "
            f"json.dump(dict(os.environ), open(sys.argv[1], \"w\"))' '{self.env_file}'\n"
            f'exec "{real}" "$@"\n'
        )

    def agentci_env(self) -> dict[str, str]:
        return json.loads(self.env_file.read_text())


@pytest.fixture
def job(tmp_path: Path, bin_dir: Path) -> EnvJob:
    return EnvJob(tmp_path, bin_dir)


def _scripted(job: Job, replies: str) -> str:
    path = job.runner_temp / "replies.yaml"
    path.write_text(replies)
    return f"--model scripted:{path} --mode auto_edit"


def test_a_prompt_alone_runs_the_built_in_recipe(job: EnvJob):
    run = job.run(
        FIX, inputs={"recipe": "", "prompt": "Make add add.", "extra-args": _scripted(job, FIX)}
    )
    assert not run.failed, run.log
    assert run.outputs["status"] == "success"
    assert run.outputs["changed-files"] == "calc.py"
    events = (job.workspace / ".agentci/out/events.jsonl").read_text()
    assert "Make add add." in events


def test_neither_recipe_nor_prompt_is_an_error_before_agentci_runs(job: EnvJob):
    run = job.run(FIX, inputs={"recipe": ""})
    assert run.failed
    assert "give the action a recipe or a prompt" in run.step("Run agentci").stdout
    assert not (job.workspace / ".agentci/out").exists()


def test_the_summary_output_is_the_text_and_summary_file_the_path(job: EnvJob):
    run = job.run(FIX)
    assert not run.failed, run.log
    text = (job.workspace / ".agentci/out/summary.md").read_text()
    assert run.outputs["summary-file"] == ".agentci/out/summary.md"
    assert run.outputs["summary"] == text.rstrip("\n")
    assert "fix-calc" in run.outputs["summary"]


def test_the_api_key_input_reaches_agentci_as_gemini_api_key(job: EnvJob):
    run = job.run(FIX, inputs={"gemini-api-key": KEY})
    assert not run.failed, run.log
    env = job.agentci_env()
    assert env["GEMINI_API_KEY"] == KEY
    assert not any(KEY in v for k, v in env.items() if k != "GEMINI_API_KEY")


def test_the_api_key_input_is_given_to_the_run_step_alone():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    holders = [s.get("id") for s in action["runs"]["steps"] if "inputs.gemini-api-key" in str(s)]
    assert holders == ["run"]


def test_without_the_key_input_the_jobs_key_is_left_as_it_is(job: EnvJob):
    job.run(FIX, extra_env={"GEMINI_API_KEY": "from-the-job"})
    assert job.agentci_env()["GEMINI_API_KEY"] == "from-the-job"
    assert "GOOGLE_GENAI_USE_VERTEXAI" not in job.agentci_env()


def test_vertex_ai_inputs_set_the_google_variables_of_the_run(job: EnvJob):
    job.run(
        FIX,
        inputs={"use-vertex-ai": "true", "gcp-project": "proj-1", "gcp-location": "europe-west4"},
    )
    env = job.agentci_env()
    assert env["GOOGLE_GENAI_USE_VERTEXAI"] == "true"
    assert (env["GOOGLE_CLOUD_PROJECT"], env["GOOGLE_CLOUD_LOCATION"]) == ("proj-1", "europe-west4")


LOOK_FOR_CREDENTIALS = (
    """\
- calls: [{name: read_file, args: {file_path: gha-creds-0a1b2c3d4e5f.json}}]
- calls: [{name: run_shell_command, args: {command: "cat gha-creds-*.json /tmp/*/gha-creds-*.json; ls -la /tmp"}}]
"""
    + FIX
)


def test_the_auth_actions_credentials_file_is_moved_out_of_the_agents_reach(job: EnvJob):
    recipe = job.workspace / ".github/agentci/fix.yaml"
    recipe.write_text(recipe.read_text().replace("mode: auto_edit", "mode: yolo"))
    creds = job.workspace / "gha-creds-0a1b2c3d4e5f.json"
    creds.write_text(json.dumps({"type": "external_account", "credential_source": {
        "headers": {"Authorization": f"Bearer {CREDS_TOKEN}"}}}))  # fmt: skip
    env = {
        "GOOGLE_APPLICATION_CREDENTIALS": str(creds),
        "GOOGLE_GHA_CREDS_PATH": str(creds),
        "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE": str(creds),
    }
    run = job.run(LOOK_FOR_CREDENTIALS, extra_env=env, inputs={"use-vertex-ai": "true"})
    assert run.outputs["status"] == "success", run.log
    assert not creds.exists()
    moved = Path(job.agentci_env()["GOOGLE_APPLICATION_CREDENTIALS"])
    assert moved.name == creds.name and CREDS_TOKEN in moved.read_text()
    assert not moved.is_relative_to(job.workspace)
    assert moved.parent.stat().st_mode & 0o077 == 0  # only the job's user
    for var in env:
        assert f"{var}={moved}" in run.github_env.splitlines()  # later steps find it
    out = job.workspace / ".agentci/out"
    assert '"tool_call_response"' in (out / "events.jsonl").read_text()
    for name in ("events.jsonl", "patch.diff", "summary.md", "result.json"):
        assert CREDS_TOKEN not in (out / name).read_text(), name
    assert "gha-creds" not in (out / "patch.diff").read_text()
    assert f"moved {creds.name} out of the workspace" in run.step("Run agentci").stdout


UNAVAILABLE = [{"error": {"code": 429, "quota": "daily"}}]  # a spent quota: not retried


def test_exit_75_fails_the_step_by_default(job: EnvJob):
    from agentci.testing.fake_gemini import FakeGemini

    with FakeGemini(UNAVAILABLE) as fake:
        run = job.run(FIX, inputs={"extra-args": "--model gemini-2.5-flash"},
                      extra_env=fake.env())  # fmt: skip
    assert run.failed and run.exit_code == 75, run.log
    assert (run.outputs["status"], run.outputs["exit-code"]) == ("provider_unavailable", "75")


def test_tempfail_as_warning_turns_exit_75_into_a_warning(job: EnvJob):
    from agentci.testing.fake_gemini import FakeGemini

    with FakeGemini(UNAVAILABLE) as fake:
        run = job.run(
            FIX,
            inputs={"extra-args": "--model gemini-2.5-flash", "tempfail-as-warning": "true"},
            extra_env=fake.env(),
        )
    assert not run.failed, run.log
    assert (run.outputs["status"], run.outputs["exit-code"]) == ("provider_unavailable", "75")
    last = run.step("Exit with agentci's code")
    assert last.stdout.startswith("::warning title=agentci::the model API was unavailable")
    result = json.loads((job.workspace / ".agentci/out/result.json").read_text())
    assert result["retryable"] is True


def test_tempfail_as_warning_leaves_other_failures_failing(job: EnvJob):
    from agentci.testing.fake_gemini import FakeGemini

    with FakeGemini([{"error": {"code": 401}}]) as fake:
        run = job.run(
            FIX,
            inputs={"extra-args": "--model gemini-2.5-flash", "tempfail-as-warning": "true"},
            extra_env=fake.env(),
        )
    assert run.failed and run.exit_code == 6, run.log
    assert "::warning" not in run.step("Exit with agentci's code").stdout
