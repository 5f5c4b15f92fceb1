"""Outsider faults: more ignored files than agentci fingerprints (1,000,000 by default; 100,000
easily has that many) and ``guards.allowed_paths``.

The baseline scan stops at the cap, so some of the user's ignored files are not in it. When the
agent deletes one ignored file that the scan did see, the final scan reaches one file further:
a file of the user's that the agent never touched looks "new", and ``restore_ignored``
(agentci/verify/kept.py) deletes it as the agent's. The ``guard_reverted`` event even names it
as a file "the agent wrote". A truncated scan must never make a file count as the agent's.

The cap is a setting (``AGENTCI_IGNORED_SCAN_LIMIT``, docs/outputs.md), so the test holds the
same shape at 105 files and a cap of 100."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentci.testing.case import shell_call, write_call, write_case
from agentci.testing.cli import Run, agentci

pytestmark = pytest.mark.timeout(120)

LIMIT = 100


def test_a_truncated_ignored_scan_never_deletes_the_users_files(tmp_path: Path) -> None:
    script = [
        shell_call("rm node_modules/a/f0"),
        write_call("src/a.py", "fixed\n"),
        {"text": "done"},
    ]
    case = write_case(
        tmp_path,
        script,
        {"policy": {"mode": "yolo"}, "guards": {"allowed_paths": ["src/**"]}},
        files={".gitignore": "node_modules/\n", "src/a.py": "broken\n"},
    )
    nm = case.repo / "node_modules"
    (nm / "a").mkdir(parents=True)
    (nm / "b").mkdir()
    for i in range(5):
        (nm / "a" / f"f{i}").write_text("a")
    users = [nm / "b" / f"f{i:06d}" for i in range(LIMIT)]
    for path in users:
        path.write_text("b")

    done = agentci("run", str(case.recipe), "--out", str(case.out), cwd=case.repo,
                   env={"AGENTCI_IGNORED_SCAN_LIMIT": str(LIMIT)})  # fmt: skip
    run = Run(done.returncode, done.stdout, done.stderr, case.out)

    lost = [p.name for p in users if not p.exists()]
    assert not lost, (
        f"status {run.result['status']}: agentci deleted {len(lost)} ignored file(s) of the user "
        f"that the agent never touched: {lost[:5]}"
    )
    assert sorted(os.listdir(nm / "a")) == [f"f{i}" for i in range(5)]
    assert run.result["status"] == "success", run.stderr[-800:]
    assert run.result["ignored_files_written"] == []
    assert [
        e.message for e in run.events if getattr(e, "kind", "") == "ignored_scan_truncated"
    ] == [
        "the workspace has more ignored files than agentci fingerprints (100, "
        "AGENTCI_IGNORED_SCAN_LIMIT sets it): writes to those past them are not noticed, and "
        "none of them is deleted"
    ]
