"""Scenarios measured against agentci itself or the tool it wraps: ``agentci batch``
against its ideal and the pre-commit hook against ruff (the fix runs on projects with
thousands of tests are in bench/projects.py)."""

from __future__ import annotations

import sys

from bench import bench_batch, bench_pre_commit
from bench.core import Bench, Metric, Section


def batch(b: Bench) -> Section:
    """``agentci batch`` at --jobs 1/4/8/16 (16 tasks, 3 model calls of 300 ms each); each
    point is the median of 3 runs; efficiency vs the ideal (bench/bench_batch.py)."""
    tasks, latency = b.size(16, 2), (0.05 if b.quick else 0.3)
    jobs = [1, 2] if b.quick else [1, 4, 8, 16]
    repeats = 1 if b.quick else 3
    m = bench_batch.measure(tasks, latency, jobs, repeats)
    section = Section(
        f"`agentci batch` of {tasks} tasks (3 model calls of {latency * 1000:.0f} ms each)",
        [f"{sys.executable} -m agentci batch recipe.yaml --jobs N --out DIR -q"],
        notes=[
            f"Each point the median of {repeats} runs. Ideal = the batch's fixed cost (from a "
            "batch of one task) once + ⌈tasks/jobs⌉ × one task's time at 1 job; the first "
            "column is that ideal, the ratio the efficiency (1.0 = ideal). "
            + (f"One task {m['task']:.2f} s, fixed cost {m['fixed']:.2f} s." if m["task"] else "")
        ],
    )
    for p in m["points"]:
        effs = p["efficiencies"]
        ideals = [w * e for w, e in zip(p["walls"], effs, strict=True)]
        target = (">=", 0.85) if p["jobs"] == 8 else None
        section.metrics.append(
            Metric(f"--jobs {p['jobs']}: the ideal / agentci's wall = efficiency (CPU "
                   f"{p['cpu']:.1f} s, peak RSS {p['rss_mb']:.0f} MB)", "s", ideals,
                   p["walls"] if effs else None, "agentci batch's wall", target)
        )  # fmt: skip
    return section


def pre_commit(b: Bench) -> Section:
    """The built-in fix-lint hook on a clean file vs ``ruff check`` and ``agentci --version``."""
    times = bench_pre_commit.measure(b.pairs, b.agentci)
    ms = {k: [t * 1000 for t in v] for k, v in times.items()}
    cmds = bench_pre_commit.commands(b.agentci)
    return Section(
        "The pre-commit hook on a clean file (whole processes)",
        [" ".join(c) for c in cmds.values()],
        [
            Metric("hook vs the linter it wraps", "ms", ms["hook"], ms["ruff"], "`ruff check`"),
            Metric(
                "hook vs `agentci --version`",
                "ms",
                ms["hook"],
                ms["--version"],
                "`agentci --version`",
                ("<=", 3.0),
            ),
        ],  # fmt: skip
        [
            "The issue's goal: the hook at most 150 ms as a whole process (3x `agentci "
            "--version`); the target column checks the 3x."
        ],  # fmt: skip
    )
