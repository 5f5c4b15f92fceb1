"""Snapshots, kept ignored files and redaction on a large tree: agentci vs one ``git add -A``.

Builds a committed repository of ``--files`` small files (default 30,000, in 300 folders), an
ignored ``build/`` of 2,000 files and an ignored ``.venv``-like folder of ``--venv`` files
(default 5,000), then measures, interleaved over ``--runs`` rounds (median, wall and CPU: the
CPU time of this process plus the git processes it waited for, which a busy machine changes
less than the wall time):

* ``git add -A``     — one ``git add -A`` in the repository (the reference);
* ``baseline``       — :func:`~agentci.change.snapshot.capture_baseline` (the task's start);
* ``task end``       — one snapshot after a one-file edit and the :class:`Change` from it;
* ``keep ignored``   — :func:`~agentci.verify.kept.keep_ignored` (weakened_tests / allowed_paths:
  the baseline's copies of every ignored file);
* ``redact 8x63kB``  — :meth:`Redactor.redact` of eight 63 kB outputs (agentci's own source),
  and the same with the full pattern (:meth:`Redactor.redact_full`, no prefilter).

Each function is importable (``measure(...)`` returns the medians) so a driver can call it.
Run: ``python bench/bench_snapshot.py [--files 30000] [--venv 5000] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agentci.change.change import change_of
from agentci.change.patch import capture_baseline
from agentci.change.snapshot import take
from agentci.reports.redact import Redactor
from agentci.verify.kept import keep_ignored

sys.path.insert(0, str(Path(__file__).parent))
from bench_patch import make_tree  # noqa: E402

Timing = tuple[float, float]  # (wall ms, cpu ms)


def make_repo(root: Path, files: int, venv: int) -> Path:
    """The generated repository (see the module docstring)."""
    repo = make_tree(root, files)
    (repo / ".gitignore").write_text("build/\n.venv/\n")
    for i in range(venv):
        folder = repo / ".venv" / "lib" / f"pkg{i % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{i:05d}.py").write_text(f"X_{i} = {i}\n" * 10)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, capture_output=True)
    return repo


def timed(fn: Callable[[], object]) -> Timing:
    """(wall ms, CPU ms of this process and its waited-for children) of one call."""
    t0, w0 = os.times(), time.perf_counter()
    fn()
    t1, w1 = os.times(), time.perf_counter()
    cpu = (t1.user - t0.user) + (t1.system - t0.system)
    cpu += (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)
    return (w1 - w0) * 1000, cpu * 1000


def outputs(count: int = 8, size: int = 63_000) -> list[str]:
    """``count`` outputs of ``size`` characters of agentci's own source (read_file-like)."""
    src = "".join(p.read_text() for p in sorted(Path(__file__).parents[1].glob("agentci/**/*.py")))
    return [src[i * size : (i + 1) * size] for i in range(count)]


def measure(repo: Path, runs: int = 5) -> dict[str, Timing]:
    """Median (wall ms, CPU ms) of each step on ``repo``, interleaved over ``runs`` rounds."""
    redactor = Redactor(["AIzaSyBenchKey000000000000000000000000", "ghs_BenchToken0000000000000"])
    texts = outputs()
    samples: dict[str, list[Timing]] = {}

    def add(name: str, t: Timing) -> None:
        samples.setdefault(name, []).append(t)

    target = repo / "pkg000" / "mod00000.py"
    full = getattr(redactor, "redact_full", redactor.redact)  # older agentci: no prefilter
    for i in range(runs):
        add("git add -A", timed(lambda: subprocess.run(["git", "add", "-A"], cwd=repo,
                                                       check=True, capture_output=True)))  # fmt: skip
        holder: list = []
        add("baseline", timed(lambda holder=holder: holder.append(capture_baseline(repo))))
        base = holder[0]
        try:
            target.write_text(f"edit {i}\n")
            add("task end", timed(lambda base=base: change_of(base, take(base))))
            add("keep ignored", timed(lambda base=base: keep_ignored(base)))
        finally:
            base.cleanup()
        add("redact 8x63kB", timed(lambda: [redactor.redact(t) for t in texts]))
        add("redact 8x63kB (full pattern)", timed(lambda: [full(t) for t in texts]))
    return {
        name: (statistics.median(w for w, _ in ts), statistics.median(c for _, c in ts))
        for name, ts in samples.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=30_000)
    parser.add_argument("--venv", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repo", type=Path, help="a repository made by an earlier run (kept)")
    args = parser.parse_args()
    if args.repo is not None:
        if not args.repo.exists():
            make_repo(args.repo.parent, args.files, args.venv)
        result = measure(args.repo, args.runs)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            result = measure(make_repo(Path(tmp), args.files, args.venv), args.runs)
    ref_wall, ref_cpu = result["git add -A"]
    print(f"load average after the runs: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    print("| step | wall ms | CPU ms | wall / git add -A | CPU / git add -A |")
    print("|---|---|---|---|---|")
    for name, (wall, cpu) in result.items():
        print(f"| {name} | {wall:.0f} | {cpu:.0f} | {wall / ref_wall:.2f}x | "
              f"{cpu / ref_cpu if ref_cpu else 0:.2f}x |")  # fmt: skip


if __name__ == "__main__":
    main()
