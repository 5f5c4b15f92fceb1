"""Outsider attack on ``--record FILE``: the cassette is written where FILE leads.

docs/offline-models.md: ``agentci run RECIPE --record session.jsonl`` (in the checkout, so the
cassette is in the workspace, to be committed as a regression test). agentci writes the header
and appends each model call to that path, following a symbolic link: a repository that commits
``session.jsonl`` as a link to a host path (or a model whose allowed commands make one) has
agentci write model-chosen text outside the workspace.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from attack_case import make_attack, shell, tool

from agentci.policy.sandbox import bwrap_problem
from agentci.testing.repo import git


def test_record_does_not_write_through_a_link_the_repository_commits(tmp_path: Path) -> None:
    target = tmp_path / "escape" / "written"
    case = make_attack(
        tmp_path, [{"text": "PAYLOAD-chosen-by-the-model"}], {"allow_no_changes": True}
    )
    os.symlink(target, case.repo / "session.jsonl")
    git(case.repo, "add", "session.jsonl")
    git(case.repo, "commit", "-q", "-m", "the cassette")
    case.run("-q", "--record", "session.jsonl")
    assert not target.exists()


CONFTEST = """
import os
os.remove("session.jsonl")
os.symlink({target!r}, "session.jsonl")
"""


@pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")
def test_record_does_not_write_through_a_link_the_model_makes_mid_run(tmp_path: Path) -> None:
    target = tmp_path / "escape" / "written"
    script = [
        tool("write_file", file_path="conftest.py", content=CONFTEST.format(target=str(target))),
        shell("pytest -q"),
        {"text": "PAYLOAD-chosen-by-the-model"},
    ]
    rules = [{"tool": "run_shell_command", "command": "pytest", "decision": "allow"}]
    case = make_attack(tmp_path, script, {"policy": {"rules": rules}})
    case.run("-q", "--record", "session.jsonl")
    assert (case.repo / "session.jsonl").is_symlink()  # the model's command made the link
    assert not target.exists()
