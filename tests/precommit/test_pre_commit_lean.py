"""``agentci pre-commit`` on files that already pass loads only what that answer needs: no model
SDK, no agent loop, no delivery, no HTML report, and only the event models it emits; and it
writes no report.html or sarif.json (docs/outputs.md). The built-in hook builds no event model
at all (agentci.precommit.quick)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from precommit_project import FILES

from agentci.testing.repo import commit_repo

#: ``agentci pre-commit ARGS`` as the console script runs it, then what it had loaded.
HOOK_THEN_MODULES = """\
import json, os, sys
programs = []
def started(event, args):
    if event == "subprocess.Popen":
        programs.append(os.path.basename(args[0]))
sys.addaudithook(started)
sys.argv = ["agentci", "pre-commit", *sys.argv[1:]]
from agentci.cli import main
try:
    main()
except SystemExit as end:
    code = end.code
from agentci.events import types as ev
from typing import get_args
built = sorted(
    m.model_fields["type"].default
    for m in get_args(get_args(ev.Event)[0])
    if m.__pydantic_complete__
)
print(json.dumps({"code": code, "modules": sorted(sys.modules), "built": built,
                  "programs": sorted(set(programs))}))
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lean") / "project"
    commit_repo(root, FILES)
    return root


@pytest.fixture(
    scope="module",
    params=[
        ["other.py"],  # the project's recipe: a scripted model
        ["--recipe", "fix-lint", "--", "other.py"],  # the built-in hook: Gemini, and ruff
    ],
    ids=["scripted", "fix-lint"],
)
def clean_hook(project: Path, request: pytest.FixtureRequest) -> dict:
    """The hook run once on a file that passes; the modules and event models it loaded."""
    env = {**os.environ, "GEMINI_API_KEY": "", "GOOGLE_API_KEY": ""}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # ruff
    done = subprocess.run(
        [sys.executable, "-c", HOOK_THEN_MODULES, *request.param],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["code"] == 0, done.stderr
    return seen


#: What a file that passes never needs.
NOT_NEEDED = [
    "google.genai",  # the model's SDKs: the model is not called
    "openai",
    "agentci.loop.session",  # the agent loop and its tools
    "agentci.tools.scheduler",
    "agentci.tools.registry",  # the tools, the context they act on, the MCP servers
    "agentci.tools.base",
    "agentci.tools.mcp.servers",
    "agentci.run.delivery",  # outputs.branch / --skip-if-proposed: not asked for
    "agentci.reports.html_report",  # report.html: the hook does not write it
    "markdown_it",
    "rich",  # the live status line: stderr is not a terminal here (pre-commit's is a pipe)
]


def test_a_clean_file_loads_no_sdk_agent_loop_delivery_or_html_report(clean_hook: dict):
    assert [m for m in NOT_NEEDED if m in clean_hook["modules"]] == []


def test_a_clean_file_builds_only_the_event_models_it_emits(
    clean_hook: dict, project: Path, request: pytest.FixtureRequest
):
    log = (project / ".agentci/pre-commit-out/events.jsonl").read_text().splitlines()
    emitted = sorted({json.loads(line)["type"] for line in log})
    assert emitted == ["run_finished", "run_started", "task_finished", "task_started",
                       "verify_result"]  # fmt: skip
    # the built-in hook's clean path writes them without the models (test_pre_commit_quick.py)
    built = [] if "fix-lint" in request.node.callspec.id else emitted
    assert clean_hook["built"] == built


def test_the_hook_writes_no_report_html_or_sarif(clean_hook: dict, project: Path) -> None:
    out = project / ".agentci/pre-commit-out"
    assert (out / "result.json").is_file()
    assert [name for name in ("report.html", "sarif.json") if (out / name).exists()] == []


def test_a_clean_file_runs_no_ldconfig(clean_hook: dict) -> None:
    """The sandbox's socket filter loads libseccomp by its soname: no ``ldconfig -p``."""
    assert "ldconfig" not in clean_hook["programs"]
