"""Outsider (rel2 A2): a file too large for patch.diff was lost with its worktree.

With ``isolation: worktree`` (or ``copy``) a file over the patch's size cap (10 MiB) is listed
in ``patch_omitted``, not inlined; the worktree was removed at the end all the same (exit 0,
``kept_workspace`` None): the agent's file was nowhere. A workspace whose patch leaves out any
of the agent's work is now kept, and result.json and a ``workspace_kept`` warning say where.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentci.testing.case import shell_call, write_case
from agentci.testing.cli import Run, agentci

pytestmark = pytest.mark.timeout(180)

SIZE = 11 * 1024 * 1024  # over the 10 MiB patch.diff inlines


def test_outsider_a_worktree_whose_patch_leaves_out_a_file_is_kept(tmp_path: Path) -> None:
    script = [shell_call(f"yes 'row of data' | head -c {SIZE} > data.csv"), {"text": "done"}]
    config = {"workspace": {"isolation": "worktree"}, "policy": {"mode": "yolo"}, "sandbox": "none"}
    case = write_case(tmp_path, script, config)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    done = agentci("run", str(case.recipe), "--out", str(case.out), cwd=case.repo,
                   env={"TMPDIR": str(tmp)})  # fmt: skip
    run = Run(done.returncode, done.stdout, done.stderr, case.out)
    assert run.code == 0, run.stderr[-800:]
    assert [o["path"] for o in run.result["patch_omitted"]] == ["data.csv"]
    kept = Path(run.result["tasks"][0]["extra"]["kept_workspace"])
    assert kept.is_relative_to(tmp)
    assert (kept / "data.csv").stat().st_size == SIZE
    [warning] = [e.message for e in run.events if getattr(e, "kind", "") == "workspace_kept"]
    assert warning.startswith(f"the patch leaves out data.csv: the worktree is kept at {kept}")
