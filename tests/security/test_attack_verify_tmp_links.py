"""The verify runs of a task share one temp folder of agentci's, which the sandbox lets each
run write (pytest's report goes there). A run is the agent's code from the first attempt on, so
what it leaves there must not steer a later run: a link it plants at a name agentci would use
next (the private report folder of ``attempt2``, the failing-first selection's folder) must
never make agentci write, or bind into the sandbox, the host folder it points to."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from agentci.policy.sandbox import bwrap_problem, make_sandbox
from agentci.recipe.verify_config import Verify
from agentci.testing.repo import commit_repo
from agentci.verify.run import run_verify
from agentci.verify.selection import Selection

PATH_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def test_a_link_at_the_next_runs_report_folder_binds_no_host_folder(tmp_path: Path) -> None:
    """``verify.junit`` in a folder read-only in the sandbox gets a private folder of agentci's
    for each run; attempt 1 (the agent's code) links the name attempt 2's would have to a host
    folder, and attempt 2 writes where its report goes."""
    if bwrap_problem() is not None:
        pytest.skip(f"needs bubblewrap: {bwrap_problem()}")
    repo = tmp_path / "repo"
    commit_repo(repo, {"README.md": "hi\n", ".agentci/recipe.yaml": "name: x\n"})
    escape = tmp_path / "escape"
    escape.mkdir()
    tmp = tmp_path / "verify-tmp"
    tmp.mkdir()
    box, _ = make_sandbox("bwrap", workspace=repo, network=False, env=PATH_ENV)
    assert box is not None
    plant = f"ln -s {escape} {tmp}/report-attempt2"
    write = "mkdir -p .agentci/reports && echo planted > .agentci/reports/marker"
    try:
        for label, command in (("attempt1", plant), ("attempt2", write)):
            spec = Verify.model_validate({"command": command, "junit": ".agentci/reports/v.xml"})
            asyncio.run(run_verify(spec, workspace=repo, env=PATH_ENV, tmp_dir=tmp, label=label,
                                   sandbox=box))  # fmt: skip
    finally:
        box.cleanup()
    assert sorted(p.name for p in escape.rglob("*")) == []
    assert not (repo / ".agentci/reports").exists()


def test_a_run_cannot_swap_its_own_report_folder_for_a_link(tmp_path: Path) -> None:
    """An outsider's attack: the run finds its private report folder's host path in
    /proc/self/mountinfo, moves it aside and leaves a link to a host folder the sandbox cannot
    see; agentci must not read the report through it."""
    if bwrap_problem() is not None:
        pytest.skip(f"needs bubblewrap: {bwrap_problem()}")
    repo = tmp_path / "repo"
    commit_repo(repo, {"README.md": "hi\n", ".agentci/recipe.yaml": "name: x\n"})
    hidden = tmp_path / "hidden"  # below the host's /tmp: a tmpfs in the sandbox
    (hidden / "reports").mkdir(parents=True)
    (hidden / "reports/v.xml").write_text(
        '<testsuite><testcase classname="host" name="only_on_the_host"/></testsuite>\n'
    )
    tmp = tmp_path / "verify-tmp"
    tmp.mkdir()
    swap = (
        "p=$(awk '$5 ~ /[.]agentci$/ {print $4}' /proc/self/mountinfo | tail -1); "
        f'echo "folder: $p"; mv "$p" "$p.moved" && ln -s {hidden} "$p"; true'
    )
    spec = Verify.model_validate({"command": swap, "junit": ".agentci/reports/v.xml"})
    box, _ = make_sandbox("bwrap", workspace=repo, network=False, env=PATH_ENV)
    assert box is not None
    try:
        run = asyncio.run(run_verify(spec, workspace=repo, env=PATH_ENV, tmp_dir=tmp,
                                     label="attempt1", sandbox=box))  # fmt: skip
    finally:
        box.cleanup()
    assert "folder: /" in run.output  # the attack found the folder's host path
    assert run.tests == {} and "wrote no JUnit report" in run.junit_problem


def test_a_link_at_the_selection_folder_writes_no_host_folder(tmp_path: Path) -> None:
    """The failing-first plugin and its selection are written for each run; a run before left
    the folder's name as a link to a host folder."""
    escape = tmp_path / "escape"
    escape.mkdir()
    tmp = tmp_path / "verify-tmp"
    tmp.mkdir()
    (tmp / "select").symlink_to(escape)
    env = Selection(ids=["tests.test_a::test_b"]).env(PATH_ENV, tmp)
    assert sorted(p.name for p in escape.iterdir()) == []
    [folder] = env["PYTHONPATH"].split(os.pathsep)
    assert Path(folder).parent == tmp and not Path(folder).is_symlink()
    assert (Path(folder) / "_agentci_select.py").is_file()
