"""The pre-commit hook's own overhead: ``agentci pre-commit FILE`` on a file that already
passes (the recipe's verify runs once, no model call) vs that verify command run by hand, and
``agentci --version``, interleaved, in a temporary git repository.

    python bench/bench_pre_commit.py [--runs 7]

Prints the median wall time of each and the hook's overhead over the bare verify command
(difference and ratio, pair by pair).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "precommit"))

from precommit_project import FILES  # noqa: E402

AGENTCI = [sys.executable, "-m", "agentci"]


def _repo(base: Path) -> Path:
    repo = base / "project"
    for name, text in FILES.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b.invalid"}  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "i"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def _time(cmd: list[str], cwd: Path, expect: int = 0) -> float:
    # As installed (pip compiles to bytecode): PYTHONDONTWRITEBYTECODE would time compiling.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, stdin=subprocess.DEVNULL)
    took = time.perf_counter() - start
    if done.returncode != expect:
        raise SystemExit(f"{cmd} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = _repo(Path(tmp))
        commands = {
            "verify alone (python ci/lint.py other.py)": [sys.executable, "ci/lint.py", "other.py"],
            "agentci --version": [*AGENTCI, "--version"],
            "agentci pre-commit other.py": [*AGENTCI, "pre-commit", "other.py"],
        }
        for cmd in commands.values():  # warm-up
            _time(cmd, repo)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(ns.runs):
            for name, cmd in commands.items():
                times[name].append(_time(cmd, repo))
    verify, _, hook = times.values()
    print(f"{ns.runs} interleaved runs, median wall time:")
    for name, values in times.items():
        print(f"  {name:45s} {statistics.median(values) * 1000:8.0f} ms")
    over = [h - v for h, v in zip(hook, verify, strict=True)]
    ratio = [h / v for h, v in zip(hook, verify, strict=True)]
    print(f"hook overhead over verify alone: {statistics.median(over) * 1000:.0f} ms "
          f"(hook/verify {statistics.median(ratio):.1f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
