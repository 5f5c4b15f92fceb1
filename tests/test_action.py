"""The GitHub Action and the example workflows are valid for GitHub (offline schemas)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parents[1]


def _check(schema: str, *files: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    return subprocess.run(
        [exe, "--builtin-schema", schema, *map(str, files)], capture_output=True, text=True
    )


def test_action_yml_matches_the_github_actions_schema():
    done = _check("vendor.github-actions", ROOT / "action.yml")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("workflow", sorted((ROOT / "examples" / "workflows").glob("*.yml")))
def test_example_workflows_match_the_workflow_schema(workflow):
    done = _check("vendor.github-workflows", workflow)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_action_exits_with_agentcis_code_and_exposes_the_status():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert set(action["outputs"]) == {"status", "exit-code", "patch", "result"}
    last = action["runs"]["steps"][-1]
    assert last["if"] == "always()"
    assert "agentci-exit-code" in last["run"]
