"""More ignored files than agentci fingerprints: a passing verify proves nothing about the patch.

The agent makes verify pass by changing an ignored file that lies past the ignored-file scan
limit (``AGENTCI_IGNORED_SCAN_LIMIT``; 1,000,000 by default, 10 here for the same shape), and
makes a meaningless edit the patch carries. agentci never saw the ignored change, so it could
not set it aside while verify ran: the task must not end ``success``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentci.testing.case import shell_call, write_case
from agentci.testing.cli import Run, agentci

pytestmark = pytest.mark.timeout(180)

LIMIT = 10
CALC = "from vendor.zdep import K\n\n\ndef add(a, b):\n    return a + b + K\n"
CHECK = "python3 -c 'from calc import add; assert add(2, 3) == 5'"


def test_a_passing_verify_past_the_ignored_scan_limit_is_not_success(tmp_path: Path) -> None:
    script = [
        shell_call("echo 'K = 0' > vendor/zdep.py; echo '# touched' >> calc.py"),
        {"text": "done"},
    ]
    recipe = {"policy": {"mode": "yolo"}, "verify": {"command": CHECK, "attempts": 2}}
    files = {".gitignore": "vendor/\n", "calc.py": CALC}
    case = write_case(tmp_path, script, recipe, files=files)
    vendor = case.repo / "vendor"
    vendor.mkdir()
    (vendor / "__init__.py").write_text("")
    for i in range(2 * LIMIT):
        (vendor / f"a{i:03d}.txt").write_text("")
    (vendor / "zdep.py").write_text("K = 1\n")  # sorted after the limit

    done = agentci("run", str(case.recipe), "--out", str(case.out), cwd=case.repo,
                   env={"AGENTCI_IGNORED_SCAN_LIMIT": str(LIMIT)})  # fmt: skip
    run = Run(done.returncode, done.stdout, done.stderr, case.out)

    assert [e.passed for e in run.events if e.type == "verify_result"] == [False, True]
    assert (done.returncode, run.result["status"]) == (1, "verify_failed"), run.stderr[-800:]
    assert run.result["tasks"][0]["reason"] == (
        "verify could not judge the patch alone: the workspace has more ignored files than "
        "agentci fingerprints (10; AGENTCI_IGNORED_SCAN_LIMIT sets it), so a change the agent "
        "made to one past them would be neither seen nor set aside while verify ran"
    )
