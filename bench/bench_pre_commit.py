"""The pre-commit hook on a clean file vs the linter it wraps: ``agentci pre-commit --recipe
fix-lint -- clean.py`` (the built-in ``agentci-fix-lint`` hook; its verify, ``ruff check``,
passes, so it ends without a model call) vs that ``ruff check`` command run by hand, and
``agentci --version``, interleaved, in a temporary git repository, as whole processes.

    python bench/bench_pre_commit.py [--runs 7]

Prints the median wall time of each and the hook's ratio to ruff and to ``--version`` (pair
by pair). The issue's goal is a hook of at most 150 ms, 3x ``agentci --version``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENTCI = [sys.executable, "-m", "agentci"]
CLEAN = '"""A module ruff has nothing to say about."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n'


def find_ruff() -> str:
    """ruff beside this Python (the test extra installs it), else on PATH."""
    beside = Path(sys.executable).with_name("ruff")
    found = str(beside) if beside.exists() else shutil.which("ruff")
    if not found:
        raise SystemExit("no ruff found (pip install ruff)")
    return found


def project(base: Path) -> Path:
    repo = base / "project"
    repo.mkdir(parents=True)
    (repo / "clean.py").write_text(CLEAN)
    (repo / ".gitignore").write_text(".agentci/\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b.invalid"}  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "i"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def commands(agentci: list[str]) -> dict[str, list[str]]:
    ruff = find_ruff()
    return {
        "ruff": [ruff, "check", "--no-cache", "--force-exclude", "--output-format=concise",
                 "clean.py"],
        "--version": [*agentci, "--version"],
        "hook": [*agentci, "pre-commit", "--recipe", "fix-lint", "--", "clean.py"],
    }  # fmt: skip


def _time(cmd: list[str], cwd: Path) -> float:
    # As installed (pip compiles to bytecode): PYTHONDONTWRITEBYTECODE would time compiling.
    # ruff beside this Python on PATH (the hook's recipe runs `ruff check`); a key in the
    # environment as the hook wants one (no model is called: the file is clean).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PATH"] = f"{Path(find_ruff()).parent}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("GEMINI_API_KEY", "not-used")
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, stdin=subprocess.DEVNULL)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{cmd} exited {done.returncode}: {done.stderr.decode()[-800:]}")
    return took


def measure(runs: int, agentci: list[str] = AGENTCI) -> dict[str, list[float]]:
    """Seconds of each command, ``runs`` interleaved rounds after one warm-up round."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = project(Path(tmp))
        cmds = commands(agentci)
        times: dict[str, list[float]] = {name: [] for name in cmds}
        for i in range(runs + 1):
            for name, cmd in cmds.items():
                took = _time(cmd, repo)
                if i:
                    times[name].append(took)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    ns = parser.parse_args()
    times = measure(ns.runs)
    print(f"{ns.runs} interleaved runs (after one warm-up), median wall time:")
    for name, cmd in commands(AGENTCI).items():
        print(f"  {' '.join(cmd):80s} {statistics.median(times[name]) * 1000:8.0f} ms")
    for other in ("ruff", "--version"):
        ratio = [h / v for h, v in zip(times["hook"], times[other], strict=True)]
        print(f"hook / {other}: {statistics.median(ratio):.1f}x "
              f"({min(ratio):.1f}-{max(ratio):.1f})")  # fmt: skip


if __name__ == "__main__":
    main()
