"""Snapshots of a workspace with a big ignored tree: a ``node_modules/`` of many small folders.

Builds (once, under ``--root``) a committed repository of 1,000 tracked files with an ignored
``node_modules/`` of ``--files`` files (the most asked for), laid out as npm lays one out:
scopes ``@sNNN/`` of 50 packages, each package 50 small files in 6 folders (``lib/``,
``lib/util/``, ``dist/``, ``dist/esm/``, ``types/``): about 8 files a folder. A smaller size is
measured by moving whole scopes out of the repository (to ``parked/``), not by building again.

For each size in ``--sizes``, interleaved over ``--runs`` rounds (median wall and CPU: this
process plus the git processes it waited for):

* ``git add -A``               — one ``git add -A`` (it does not go into ``node_modules/``);
* ``git status --ignored -uall`` — one ``git status --porcelain --ignored -uall``: git's walk of
  the same tree, every ignored file listed (reads the folders, stats no ignored file);
* ``baseline``                 — :func:`~agentci.change.snapshot.capture_baseline`;
* ``task end``                 — after a one-file edit, one snapshot and its change;
* ``keep ignored``             — :func:`~agentci.verify.kept.keep_ignored` (with
  ``weakened_tests`` on or ``allowed_paths``: the baseline's copies of ignored files).

Then, once: the memory Python holds for the baseline and one later snapshot (``tracemalloc``,
current and peak, MB), and whether the scan was cut short. ``AGENTCI_IGNORED_SCAN_LIMIT`` is
passed through (set it to measure an older agentci past its cut). Run:
``python bench/bench_ignored_tree.py --root /work/big [--files 500000] [--sizes 100000 300000
500000] [--runs 3]``; ``--profile N`` prints a cProfile of the task end's snapshot at size N.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import statistics
import subprocess
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from agentci.change.change import change_of
from agentci.change.patch import capture_baseline
from agentci.change.snapshot import take
from agentci.verify.kept import keep_ignored

Timing = tuple[float, float]  # (wall ms, CPU ms)
#: Files a package holds, packages a scope holds: a scope is 2,500 files.
PACKAGE_FILES = 50
SCOPE_PACKAGES = 50
SCOPE_FILES = PACKAGE_FILES * SCOPE_PACKAGES
_LAYOUT = (("", 5), ("lib", 12), ("lib/util", 8), ("dist", 10), ("dist/esm", 10), ("types", 5))
ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
       "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=ENV, check=True, capture_output=True)


def make_package(folder: Path, n: int) -> None:
    """One package of :data:`PACKAGE_FILES` small files in 6 folders."""
    for sub, count in _LAYOUT:
        where = folder / sub if sub else folder
        where.mkdir(parents=True, exist_ok=True)
        for k in range(count):
            name = "package.json" if not sub and k == 0 else f"f{k}.js"
            (where / name).write_text(f"module.exports = {n * 100 + k};\n")


def make_repo(root: Path, files: int) -> Path:
    """The repository (see the module docstring), built once: a marker says it is done."""
    repo = root / "repo"
    marker = root / f".built-{files}"
    if marker.exists():
        return repo
    shutil.rmtree(root, ignore_errors=True)
    src = repo / "src"
    for i in range(1_000):
        folder = src / f"pkg{i % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i:04d}.js").write_text(f"export const V{i} = {i};\n")
    (repo / ".gitignore").write_text("node_modules/\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "tree")
    for s in range(-(-files // SCOPE_FILES)):
        for p in range(SCOPE_PACKAGES):
            make_package(repo / "node_modules" / f"@s{s:03d}" / f"p{p:02d}", s * 100 + p)
    (root / "parked").mkdir()
    marker.touch()
    return repo


def park(repo: Path, files: int) -> int:
    """Leave ``files`` ignored files (rounded to whole scopes) in ``node_modules/``; returns
    how many there are."""
    parked = repo.parent / "parked"
    want = -(-files // SCOPE_FILES)
    here = sorted((repo / "node_modules").iterdir())
    away = sorted(parked.iterdir())
    for scope in here[want:]:
        scope.rename(parked / scope.name)
    for scope in away[: max(want - len(here), 0)]:
        scope.rename(repo / "node_modules" / scope.name)
    return len(list((repo / "node_modules").iterdir())) * SCOPE_FILES


def timed(fn: Callable[[], object]) -> Timing:
    """(wall ms, CPU ms of this process and its waited-for children) of one call."""
    t0, w0 = os.times(), time.perf_counter()
    fn()
    t1, w1 = os.times(), time.perf_counter()
    cpu = (t1.user - t0.user) + (t1.system - t0.system)
    cpu += (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)
    return (w1 - w0) * 1000, cpu * 1000


def measure(repo: Path, runs: int, keep: bool = True) -> dict[str, Timing]:
    """Median (wall ms, CPU ms) of each step (see the module docstring), ``runs`` rounds."""
    samples: dict[str, list[Timing]] = {}
    target = repo / "src" / "pkg00" / "mod0000.js"
    original = target.read_text()

    def add(name: str, t: Timing) -> None:
        samples.setdefault(name, []).append(t)

    for i in range(runs):
        add("git add -A", timed(lambda: git(repo, "add", "-A")))
        add("git status --ignored -uall",
            timed(lambda: git(repo, "status", "--porcelain", "--ignored", "-uall")))  # fmt: skip
        holder: list = []
        add("baseline", timed(lambda holder=holder: holder.append(capture_baseline(repo))))
        base = holder[0]
        try:
            target.write_text(f"{original}// edit {i}\n")
            add("task end", timed(lambda base=base: change_of(base, take(base))))
            if keep:
                add("keep ignored", timed(lambda base=base: keep_ignored(base)))
        finally:
            base.cleanup()
            target.write_text(original)
    return {
        name: (statistics.median(w for w, _ in ts), statistics.median(c for _, c in ts))
        for name, ts in samples.items()
    }


def memory(repo: Path) -> tuple[float, float, int, bool]:
    """(MB held, MB peak) by Python for the baseline and one later snapshot with its change,
    the ignored files fingerprinted, and whether the scan was cut short."""
    tracemalloc.start()
    base = capture_baseline(repo)
    try:
        snap = take(base)
        change = change_of(base, snap)
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return held / 2**20, peak / 2**20, len(snap.ignored), change.ignored_scan_truncated
    finally:
        base.cleanup()


def profile(repo: Path) -> None:
    """A cProfile of one task end's snapshot (the 25 costliest functions, own time)."""
    base = capture_baseline(repo)
    try:
        prof = cProfile.Profile()
        prof.enable()
        change_of(base, take(base))
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    finally:
        base.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", type=Path, required=True, help="where the tree is built")
    parser.add_argument("--files", type=int, default=500_000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000, 500_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, help="profile at this size only")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--no-keep", action="store_true", help="leave keep_ignored out")
    args = parser.parse_args()
    repo = make_repo(args.root.resolve(), args.files)
    if args.profile:
        park(repo, args.profile)
        profile(repo)
        return
    print(f"load average before: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    print("| ignored files | step | wall ms | CPU ms | CPU / git add -A | CPU / git status -uall |")
    print("|---|---|---|---|---|---|")
    for size in args.sizes:
        files = park(repo, size)
        git(repo, "status", "--porcelain")  # the user's index stat cache, warm
        result = measure(repo, args.runs, keep=not args.no_keep)
        add_cpu = result["git add -A"][1] or 1.0
        status_cpu = result["git status --ignored -uall"][1] or 1.0
        for name, (wall, cpu) in result.items():
            print(f"| {files:,} | {name} | {wall:.0f} | {cpu:.0f} | {cpu / add_cpu:.1f}x | "
                  f"{cpu / status_cpu:.2f}x |", flush=True)  # fmt: skip
        if not args.no_memory:
            held, peak, seen, cut = memory(repo)
            print(
                f"| {files:,} | Python memory: baseline + one snapshot | held {held:.0f} MB | "
                f"peak {peak:.0f} MB | {seen:,} fingerprinted | cut short: {cut} |",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
