"""report.html's cost for a small and a huge run, measured side by side.

The writer renders report.html on every stop; for huge runs its work must stay bounded (the
log is read up to 32 MiB, the timeline and the diff are cut). This builds two runs in a temp
folder — a small one (50 turns, a 200-line patch) and a huge one (2,000 turns whose tool
outputs make a ~24 MB events.jsonl, an 800,000-line patch of ~60 MB) — and times what the
writer does for each (render, then the final redaction pass), best of ``--runs``. It prints the
times, the page sizes, and the ratios huge/small of the input sizes and of the times: the time
ratio should stay far below the input ratio.

    python bench/bench_report_html.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from agentci.outcome import Status
from agentci.reports.html_report import render_run_html
from agentci.reports.redact import Redactor
from agentci.reports.report import RunReport, TaskReport


def build(folder: Path, turns: int, output_chars: int, patch_lines: int) -> tuple[RunReport, str]:
    folder.mkdir()
    seq = 0
    with (folder / "events.jsonl").open("w") as fh:
        for turn in range(1, turns + 1):
            for event in (
                {"type": "turn_started", "turn": turn},
                {"type": "tool_call_request", "call_id": f"c{turn}", "name": "read_file",
                 "args": {"file_path": f"src/f{turn}.py"}},
                {"type": "tool_call_decision", "call_id": f"c{turn}", "name": "read_file",
                 "decision": "allow", "rule": "mode:auto_edit"},
                {"type": "tool_call_response", "call_id": f"c{turn}", "name": "read_file",
                 "ok": True, "output": "x = 1\n" * (output_chars // 6)},
                {"type": "usage", "model": "m", "prompt_tokens": 1000 + turn, "output_tokens": 50,
                 "cost_usd": 0.0004},
            ):  # fmt: skip
                seq += 1
                fh.write(json.dumps({"v": 1, "seq": seq, "run_id": "r", "task": "t", **event}))
                fh.write("\n")
    patch = "".join(f"+line {i} " + "y" * 60 + "\n" for i in range(patch_lines))
    task = TaskReport(name="t", status=Status.success, exit_code=0, turns=turns)
    run = RunReport(run_id="r", recipe="r.yaml", recipe_name="bench", status=Status.success,
                    exit_code=0, tasks=[task])  # fmt: skip
    return run, patch


def measure(folder: Path, run: RunReport, patch: str, runs: int) -> tuple[float, int]:
    redactor = Redactor.from_environ()
    best, size = float("inf"), 0
    for _ in range(runs):
        start = time.perf_counter()
        page = redactor.redact(render_run_html(folder, run, {"t": patch}, redactor))
        best = min(best, time.perf_counter() - start)
        size = len(page)
    return best, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small_dir, huge_dir = Path(tmp) / "small", Path(tmp) / "huge"
        small = build(small_dir, 50, 2_000, 200)
        huge = build(huge_dir, 2_000, 12_000, 800_000)
        sizes = [(d / "events.jsonl").stat().st_size + len(r[1]) for d, r in
                 ((small_dir, small), (huge_dir, huge))]  # fmt: skip
        t_small, page_small = measure(small_dir, *small, args.runs)
        t_huge, page_huge = measure(huge_dir, *huge, args.runs)
    print(
        f"small run: {sizes[0] / 1e6:.1f} MB in, {t_small * 1000:.0f} ms, page {page_small / 1e3:.0f} kB"
    )
    print(
        f"huge run:  {sizes[1] / 1e6:.1f} MB in, {t_huge * 1000:.0f} ms, page {page_huge / 1e3:.0f} kB"
    )
    print(f"ratio huge/small: input {sizes[1] / sizes[0]:.0f}x, time {t_huge / t_small:.1f}x")


if __name__ == "__main__":
    main()
