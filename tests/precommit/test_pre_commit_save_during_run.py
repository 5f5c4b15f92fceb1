"""A file the developer saves while ``agentci pre-commit`` runs (the editor stays open) is
reverted by the allowed_paths guard as if the agent had changed it; the save is kept, not lost:
copied to ``.agentci/reverted/…/`` first, and the warning says where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from precommit_project import FILES, RECIPE

from agentci.testing.cli import agentci
from agentci.testing.repo import commit_repo, git

SAVED = "y = 2\n# the developer's save, made while the hook ran\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    (tmp_path / "save.txt").write_text(SAVED)
    save = tmp_path / "save.sh"  # outside the workspace, as a hook's program must be
    save.write_text(f"cp {tmp_path / 'save.txt'} {repo / 'other.py'}\n")
    # a hook after the baseline stands in for the developer's editor saving other.py
    hook = f"hooks:\n  session_start: [{{command: 'sh {save}'}}]\n"
    return commit_repo(repo, {**FILES, ".agentci/pre-commit.yaml": RECIPE + hook})


def test_a_save_during_the_run_is_kept_before_the_guard_reverts_it(project: Path) -> None:
    done = agentci("pre-commit", "app.py", cwd=project)
    assert (project / "other.py").read_text() == "y = 2\n"  # reverted, as the agent's
    (copy,) = (project / ".agentci" / "reverted").glob("*/other.py")
    assert copy.read_text() == SAVED
    events = (project / ".agentci/pre-commit-out/events.jsonl").read_text().splitlines()
    warnings = [e["message"] for e in map(json.loads, events) if e["type"] == "warning"]
    folder = copy.parent.relative_to(project).as_posix()
    assert warnings == [
        "guard allowed_paths reverted 1 file(s), not in the patch: other.py "
        f"(as they were before the revert: {folder}/)"
    ]
    assert git(project, "status", "--porcelain") == " M app.py\n"  # the copies are not listed
    assert done.returncode == 1, done.stderr
