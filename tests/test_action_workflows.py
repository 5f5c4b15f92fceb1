"""Every ``run:`` step of every example workflow, of ``agentci init``'s workflow and of
action.yml, run the way the hosted runner runs it (workflow_harness.py), against a scripted
model, a real bare repository standing in for GitHub and a stub ``gh``. And each workflow is
valid for GitHub (check-jsonschema's workflow schema), and installs nothing with apt-get
before ``apt-get update``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from action_harness import ROOT
from gh_stub import calls, state
from test_action import _bin_dir
from workflow_harness import SECRET_KEY, GitHub, JobResult, load

EXAMPLES = sorted((ROOT / "examples" / "workflows").glob("*.yml"))

PROJECT = {
    "pyproject.toml": '[project]\nname = "calc"\nversion = "0"\n',
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    ".gitignore": ".agentci/\n",
}


def _recipe(name: str, replies: str, *, verify: bool = True, branch: bool = False) -> str:
    text = (
        f"version: 1\nname: {name}\n"
        f'model: {{name: "scripted:{name}.replies.yaml"}}\n'
        "prompt: Do the job.\nworkspace: {path: .}\npolicy: {mode: auto_edit}\n"
    )
    if verify:
        text += "verify: {command: python -m pytest -q, runner: pytest, attempts: 1}\n"
    else:
        text += "allow_no_changes: false\n"
    if branch:
        text += 'outputs: {branch: {name: "agentci/{{ recipe }}-{{ task }}"}}\n'
    return text


FIX = """\
- calls: [{name: replace, args: {file_path: calc.py, old_string: "a - b", new_string: "a + b"}}]
- text: Fixed add.
"""
BUMP = """\
- calls: [{name: write_file, args: {file_path: requirements.txt, content: "requests==2.32.3\\n"}}]
- text: Bumped requests.
"""

RECIPES = {
    ".github/agentci/fix-failing-tests.yaml": _recipe("fix-failing-tests", FIX),
    ".github/agentci/fix-failing-tests.replies.yaml": FIX,
    ".github/agentci/fix-lint.yaml": _recipe("fix-lint", FIX, branch=True),
    ".github/agentci/fix-lint.replies.yaml": FIX,
    ".github/agentci/dependency-bump.yaml": _recipe(
        "dependency-bump", BUMP, verify=False, branch=True
    ),  # fmt: skip
    ".github/agentci/dependency-bump.replies.yaml": BUMP,
}


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    with _bin_dir() as path:
        yield path


@pytest.fixture
def github(tmp_path: Path, bin_dir: Path) -> GitHub:
    return GitHub(tmp_path, bin_dir, {**PROJECT, **RECIPES})


def _ok(job: JobResult) -> JobResult:
    assert not job.failed, job.log
    return job


def _matrix(github: GitHub, flow: dict, plan: JobResult, job_id: str) -> list[JobResult]:
    """Every leg of ``job_id``'s matrix (``fromJSON(needs.plan.outputs.matrix)``)."""
    legs = json.loads(plan.outputs["matrix"])["include"]
    return [
        github.run_job(
            flow, job_id, matrix=leg, strategy=(i, len(legs)), needs={"plan": plan.outputs}
        )  # fmt: skip
        for i, leg in enumerate(legs)
    ]


# ---- valid for GitHub ------------------------------------------------------------------


def _check(schema: str, *files: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    return subprocess.run(
        [exe, "--builtin-schema", schema, *map(str, files)], capture_output=True, text=True
    )


def _init_workflow(base: Path) -> Path:
    repo = base / "init-repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "agentci"), "init", str(repo),
         "--model", "scripted:fix-tests.replies.yaml"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return repo


def _all_workflows(tmp_path: Path) -> list[Path]:
    return [*EXAMPLES, _init_workflow(tmp_path) / ".github/workflows/agentci-fix-tests.yml"]


def test_every_workflow_matches_githubs_workflow_schema(tmp_path: Path):
    done = _check("vendor.github-workflows", *_all_workflows(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    done = _check("vendor.github-actions", ROOT / "action.yml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_apt_get_install_comes_after_an_apt_get_update(tmp_path: Path):
    scripts = [ROOT / "action.yml", *_all_workflows(tmp_path)]
    sources = [p.read_text() for p in scripts]
    sources.append((ROOT / "agentci/delivery/sandbox_setup.py").read_text())
    for text in sources:
        for m in re.finditer(r"apt-get\W+install", text):
            assert re.search(r"apt-get\W+update", text[: m.start()]), text[: m.start()][-300:]


# ---- run as the runner runs them --------------------------------------------------------


def test_fix_failing_tests_fixes_and_reports(github: GitHub):
    flow = load(ROOT / "examples/workflows/fix-failing-tests.yml")
    job = _ok(github.run_job(flow, "fix"))
    report = job.step("Report")
    assert "agentci ended with success (exit 0)" in report.log
    assert "changed:\ncalc.py" in report.log
    assert "+    return a + b" in (job.workspace / ".agentci/out/patch.diff").read_text()


def test_fix_and_propose_opens_a_pr_onto_the_pull_requests_branch_and_comments(github: GitHub):
    github.event_name = "pull_request"
    github.event = {
        "action": "labeled",
        "label": {"name": "agentci-fix"},
        "pull_request": {
            "number": 7,
            "head": {"ref": "feature", "repo": {"full_name": "owner/repo"}},
        },
        "repository": {"default_branch": "main"},
    }
    flow = load(ROOT / "examples/workflows/fix-and-propose.yml")
    job = _ok(github.run_job(flow, "fix"))
    [pr] = state(github.gh_dir)["prs"]
    assert (pr["head"], pr["base"]) == ("agentci/fix-failing-tests-fix-failing-tests", "feature")
    [comment] = state(github.gh_dir)["comments"]
    assert comment["issue"] == 7
    sarif = job.step("Upload verify's findings")
    assert sarif.outcome == "success" and sarif.with_["sarif_file"].endswith("sarif.json")


def test_fix_and_propose_does_nothing_without_its_label(github: GitHub):
    github.event_name = "pull_request"
    github.event = {"label": {"name": "bug"}, "pull_request": {"number": 7}}
    flow = load(ROOT / "examples/workflows/fix-and-propose.yml")
    job = github.run_job(flow, "fix")
    assert job.steps == [] and calls(github.gh_dir) == []


def test_nightly_maintenance_lists_the_changed_files(github: GitHub):
    flow = load(ROOT / "examples/workflows/nightly-maintenance.yml")
    job = _ok(github.run_job(flow, "lint-fix"))
    assert job.step("Changed files").log.strip() == "calc.py"


def test_the_fan_out_plans_runs_every_shard_and_merges(github: GitHub):
    flow = load(ROOT / "examples/workflows/batch-matrix.yml")
    plan = _ok(github.run_job(flow, "plan"))
    legs = [_ok(leg) for leg in _matrix(github, flow, plan, "run")]
    assert legs and all(
        "bubblewrap works" in leg.step("Make agentci's sandbox").log for leg in legs
    )
    merge = _ok(github.run_job(flow, "merge"))
    result = json.loads((merge.workspace / "merged/result.json").read_text())
    assert result["status"] == "success"
    assert "fix-failing-tests" in merge.summary


def test_nightly_proposals_pushes_each_new_branch_and_opens_its_pull_request(github: GitHub):
    flow = load(ROOT / "examples/workflows/nightly-proposals.yml")
    plan = _ok(github.run_job(flow, "plan"))
    legs = [_ok(leg) for leg in _matrix(github, flow, plan, "maintain")]
    assert len(legs) == 2
    branches = subprocess.run(["git", "branch", "--format=%(refname:short)"], cwd=github.remote,
                              capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    assert sorted(branches) == [
        "agentci/dependency-bump-dependency-bump",
        "agentci/fix-lint-fix-lint",
        "feature",
        "main",
    ]
    prs = state(github.gh_dir)["prs"]
    assert sorted(p["head"] for p in prs) == sorted(b for b in branches if "/" in b)


def test_nightly_proposals_skips_a_change_already_proposed(github: GitHub):
    flow = load(ROOT / "examples/workflows/nightly-proposals.yml")
    plan = _ok(github.run_job(flow, "plan"))
    first = [_ok(leg) for leg in _matrix(github, flow, plan, "maintain")]
    again = [_ok(leg) for leg in _matrix(github, flow, plan, "maintain")]
    assert len(first) == len(again) == 2
    assert len(state(github.gh_dir)["prs"]) == 2  # no second pull request


def test_agentci_inits_workflow_runs_the_starter_recipe(tmp_path: Path):
    repo = _init_workflow(tmp_path)
    recipe = (repo / ".github/agentci/fix-tests.yaml").read_text()
    github2 = GitHub(tmp_path / "gh2", tmp_path / "gh2-bin", {
        **PROJECT,
        ".github/agentci/fix-tests.yaml": recipe,
        ".github/agentci/fix-tests.replies.yaml": FIX,
    })  # fmt: skip
    flow = load(repo / ".github/workflows/agentci-fix-tests.yml")
    job = _ok(github2.run_job(flow, "agentci"))
    assert job.step("OWNER/agentci").outputs["status"] == "success", job.log
    assert yaml.safe_load(recipe)["model"]["name"] == "scripted:fix-tests.replies.yaml"


def _docs_snippet(heading: str, doc: str = "docs/github-action.md") -> list[dict]:
    """The steps of the first yaml block under ``heading`` in ``doc``."""
    text = (ROOT / doc).read_text()
    section = text[text.index(heading) :]
    block = section[section.index("```yaml\n") + 8 :]
    return yaml.safe_load(block[: block.index("```")])


def test_the_docs_prompt_snippet_runs_with_the_key_input_and_prints_the_summary(
    github: GitHub,
):
    from agentci.testing.fake_gemini import FakeGemini

    steps = _docs_snippet("## A prompt instead of a recipe")
    flow = {"jobs": {"ask": {"steps": [
        {"uses": "actions/checkout@v4", "with": {"persist-credentials": False}},
        {"uses": "actions/setup-python@v5", "with": {"python-version": "3.12"}},
        *steps,
    ]}}}  # fmt: skip
    answer = "add subtracts: `a - b` should be `a + b`."
    with FakeGemini([{"text": answer}]) as fake:
        github.extra_env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url}
        job = _ok(github.run_job(flow, "ask"))
        [request] = fake.generate_requests
    assert request.headers.get("x-goog-api-key") == SECRET_KEY  # the gemini-api-key input
    assert "Explain why the tests in tests/test_calc.py fail" in json.dumps(request.body)
    assert answer in job.steps[-1].log  # the summary output, printed by the next step


def test_the_docs_exit_75_snippet_warns_and_starts_the_workflow_again(github: GitHub):
    from agentci.testing.fake_gemini import FakeGemini

    steps = _docs_snippet("## Exit 75: the model API was unavailable")
    flow = {"name": "agentci-nightly", "jobs": {"fix": {"steps": [
        {"uses": "actions/checkout@v4", "with": {"persist-credentials": False}},
        {"uses": "actions/setup-python@v5", "with": {"python-version": "3.12"}},
        *steps,
    ]}}}  # fmt: skip
    steps[0]["with"]["extra-args"] = "--model gemini-2.5-flash"  # not the recipe's scripted one
    quota = [{"error": {"code": 429, "quota": "daily"}}]
    with FakeGemini(quota) as fake:
        github.extra_env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url}
        job = github.run_job(flow, "fix")
    assert not job.failed, job.log  # a warning, not a failed job
    agentci = job.step("OWNER/agentci")
    assert agentci.outputs["exit-code"] == "75", job.log
    assert "::warning title=agentci::the model API was unavailable" in agentci.log
    assert state(github.gh_dir)["dispatches"] == [{"workflow": "agentci-nightly", "ref": "main"}]


LEDGER_RECIPE = """\
version: 1
name: fix-failing-tests
model: {name: gemini-2.5-flash, retry: {initial_delay_seconds: 0, max_delay_seconds: 0}}
prompt: Fix the failing tests.
workspace: {path: .}
policy: {mode: auto_edit}
budget: {daily_usd: 0.01}
"""
# gemini-2.5-flash: $0.0003 + $0.00875 = $0.00905 of the day's $0.01: no room for a second call
COSTLY = {"text": "I could not fix it.", "usage": {"prompt": 1000, "output": 3500}}


def test_the_docs_ledger_snippet_carries_a_failed_runs_spending_to_the_next_run(
    tmp_path: Path, bin_dir: Path
):
    from agentci.testing.fake_gemini import FakeGemini

    recipe = {".github/agentci/fix-failing-tests.yaml": LEDGER_RECIPE}
    github = GitHub(tmp_path, bin_dir, {**PROJECT, **recipe})
    steps = _docs_snippet("**The daily ledger.**", "docs/exit-codes.md")
    flow = {"name": "agentci nightly", "jobs": {"fix": {"steps": [
        {"uses": "actions/checkout@v4", "with": {"persist-credentials": False}},
        {"uses": "actions/setup-python@v5", "with": {"python-version": "3.12"}},
        *steps,
    ]}}}  # fmt: skip
    with FakeGemini([COSTLY, COSTLY]) as fake:
        github.extra_env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url}
        first = github.run_job(flow, "fix")
        github.run_id += 1  # the next workflow run, the same day
        second = github.run_job(flow, "fix")
        calls = len(fake.generate_requests)
    # the first run spent its call and failed (no change, exit 1): its ledger was saved all the same
    assert first.step("OWNER/agentci").outputs["exit-code"] == "1", first.log
    assert first.failed
    assert second.step("actions/cache/restore").outputs["cache-hit"] == "false"
    assert (
        second.step("actions/cache/restore").outputs["cache-matched-key"].endswith("-1001-1-fix-0")
    )  # the first run's entry, found by the day's prefix
    assert second.step("OWNER/agentci").outputs["exit-code"] == "3", second.log
    result = json.loads((second.workspace / ".agentci/out/result.json").read_text())
    assert (result["status"], result["usage"]["model_calls"]) == ("budget_exhausted", 0)
    assert calls == 1
