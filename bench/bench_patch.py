"""Patch computation on a large tree: agentci's snapshots vs plain git on the same tree.

Builds a committed git repository of ``--files`` small files (default 30,000, in 300 folders)
plus an ignored ``build/`` of 2,000 files, changes ``--changed`` of them and adds one new file,
then measures, interleaved over ``--runs`` rounds (median):

* ``baseline``   — :func:`capture_baseline` (before the agent);
* ``change``     — one snapshot and the :class:`Change` (files, line count): what the guards and
  the status read;
* ``patch``      — the same plus the patch text;
* ``git diff``   — plain ``git diff HEAD`` in the repository (tracked files only, no snapshot);
* ``git status`` — ``git status --porcelain`` (tracked + untracked, the usual "what changed").

Reported as ratios to ``git diff`` and ``git status``. Run:
``python bench/bench_patch.py [--files 30000] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from agentci.change.change import change_of, patch_text
from agentci.change.patch import capture_baseline
from agentci.change.snapshot import take

ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
       "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=ENV, check=True, capture_output=True)


def make_tree(root: Path, files: int) -> Path:
    repo = root / "repo"
    for i in range(files):
        folder = repo / f"pkg{i % 300:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i:05d}.py").write_text(f"VALUE_{i} = {i}\n" * 20)
    (repo / ".gitignore").write_text("build/\n")
    (repo / "build").mkdir()
    for i in range(2000):
        (repo / "build" / f"o{i}.o").write_text("x\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "tree")
    return repo


def timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=30_000)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-patch-"))
    try:
        repo = make_tree(root, args.files)
        git(repo, "status", "--porcelain")  # warm the user's index stat cache
        samples: dict[str, list[float]] = {k: [] for k in
                                           ("baseline", "change", "patch", "git diff", "git status")}  # fmt: skip
        for _ in range(args.runs):
            base = None

            def capture() -> None:
                nonlocal base
                base = capture_baseline(repo)

            samples["baseline"].append(timed(capture))
            assert base is not None
            for i in range(args.changed):
                path = repo / f"pkg{i % 300:03d}" / f"mod{i:05d}.py"
                path.write_text(path.read_text() + f"# run edit {time.time()}\n")
            (repo / "new_file.py").write_text("NEW = 1\n")
            samples["change"].append(timed(lambda b=base: change_of(b, take(b))))
            samples["patch"].append(timed(lambda b=base: patch_text(b, change_of(b, take(b)))))
            samples["git diff"].append(timed(lambda: git(repo, "diff", "HEAD")))
            samples["git status"].append(timed(lambda: git(repo, "status", "--porcelain")))
            change = change_of(base, take(base))
            assert len(change.files) == args.changed + 1, change.files
            base.cleanup()
            git(repo, "checkout", "-q", "--", ".")
            (repo / "new_file.py").unlink()
        med = {k: statistics.median(v) for k, v in samples.items()}
        print(f"tree: {args.files} files (+2000 ignored), {args.changed} changed + 1 new, "
              f"median of {args.runs} runs")  # fmt: skip
        print(f"{'measure':<12} {'ms':>9} {'/ git diff':>11} {'/ git status':>13}")
        for name, ms in med.items():
            print(f"{name:<12} {ms:>9.1f} {ms / med['git diff']:>10.2f}x "
                  f"{ms / med['git status']:>12.2f}x")  # fmt: skip
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
