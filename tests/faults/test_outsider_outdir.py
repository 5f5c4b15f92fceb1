"""Outsider faults on the output folder: one run's rotation must never delete the folder another
run is writing into at that moment (its ``.prev``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentci.testing.case import write_call, write_case

pytestmark = pytest.mark.timeout(180)

# A second agentci process that owns an output folder for as long as it runs, as a real run
# does (prepare_out_dir takes the folder's lock and writes the marker), and has begun writing.
HOLD = (
    "import sys; from pathlib import Path\n"
    "from agentci.reports.outdir import prepare_out_dir\n"
    "out = prepare_out_dir(Path(sys.argv[1]))\n"
    "(out / 'events.jsonl').write_text('{\"busy\": true}\\n')\n"
    "print('held', flush=True); sys.stdin.read()\n"
)


def test_rotation_does_not_delete_the_prev_folder_a_running_run_writes_into(tmp_path: Path) -> None:
    case = write_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    out, prev = case.out, case.out.with_name(case.out.name + ".prev")
    first = case.run()  # an earlier run: `out` now carries agentci's marker
    assert first.code == 0, first.stderr
    (case.repo / "a.txt").unlink()

    other = subprocess.Popen([sys.executable, "-c", HOLD, str(prev)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, cwd=tmp_path)  # fmt: skip
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        before = os.stat(prev / "events.jsonl")
        run = case.run()  # wants to move `out` aside to `out.prev`, which the other run owns
        still = prev / "events.jsonl"
        assert still.exists() and os.path.samestat(before, os.stat(still)), (
            f"run on {out} (exit {run.code}) deleted {prev}, the folder a running agentci owns "
            f"and writes into; {run.stderr[-500:]}"
        )
        assert run.code == 2 or not (out.with_name(out.name + ".prev") / "result.json").exists()
        assert run.code == 2 and f"{prev} is in use by another agentci run" in run.stderr, (
            run.stderr
        )
    finally:
        other.communicate("", timeout=30)
