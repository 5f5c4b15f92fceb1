"""``agentci batch`` at --jobs 1, 4, 8 and 16: wall time, efficiency vs ideal, CPU, peak RSS.

16 tasks of one recipe on one temp git repository (so every task gets its own git worktree).
The tasks talk to one loopback ``fake_gemini`` server through the real google-genai SDK, each
with its own model name and so its own script; every model call waits ``--latency`` seconds
(default 0.3) before its answer. A task makes three
calls: read a file, write it, answer. Everything else is real: worktrees, snapshots, the patch,
the outputs of each task and the merged ones.

Efficiency at N jobs = (wall at 1 job) / (N × wall at N jobs) for N ≤ 16 tasks — 1.0 would be
a perfect N-fold speed-up. The goal is ≥ 0.85 at 8 jobs on a 2-core machine (the work is
waiting on the model; agentci's own CPU per task must stay small). CPU and peak RSS are the
batch process's own (``wait4``), children included.

    python bench/bench_batch.py [--tasks 16] [--latency 0.3] [--jobs 1 4 8 16]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from agentci.testing.fake_gemini import FakeGemini

GIT = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b.invalid",
       "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b.invalid"}  # fmt: skip


def script(i: int) -> list[dict]:
    """The model's three answers for task ``i``."""
    path = f"src/m{i:02d}.py"
    return [
        {"function_calls": [{"name": "read_file", "args": {"file_path": path}}]},
        {"function_calls": [{"name": "write_file",
                             "args": {"file_path": path, "content": f"VALUE = {i + 1}\n"}}]},
        {"text": f"set VALUE in {path}"},
    ]  # fmt: skip


def prepare(root: Path, tasks: int) -> Path:
    repo = root / "repo"
    (repo / "src").mkdir(parents=True)
    for i in range(tasks):
        (repo / "src" / f"m{i:02d}.py").write_text("VALUE = 0\n")
    env = {**os.environ, **GIT}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def run_batch(root: Path, repo: Path, tasks: int, jobs: int, latency: float) -> dict:
    models = [f"gemini-bench-t{i:02d}" for i in range(tasks)]  # one script per task's model
    fake = FakeGemini(scripts={m: script(i) for i, m in enumerate(models)}, latency=latency)
    fake.start()
    try:
        recipe = {
            "version": 1, "name": "bench", "sandbox": "none",
            "model": {"name": "gemini-2.5-flash"},
            "tasks": [{"name": f"t{i:02d}", "prompt": f"Set VALUE in src/m{i:02d}.py to {i + 1}.",
                       "model": {"name": models[i]}} for i in range(tasks)],
        }  # fmt: skip
        path = root / f"recipe-{jobs}.yaml"
        path.write_text(yaml.safe_dump(recipe, sort_keys=False))
        out = root / f"out-{jobs}"
        env = {**os.environ, **fake.env(), "CI": "1"}
        env.pop("GITHUB_ACTIONS", None)
        cmd = [sys.executable, "-m", "agentci", "batch", str(path), "--jobs", str(jobs),
               "--out", str(out), "-q"]  # fmt: skip
        start = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=repo, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)  # fmt: skip
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        code = os.waitstatus_to_exitcode(status)
        result = json.loads((out / "result.json").read_text())
        calls = len(fake.generate_requests)
        if code != 0 or result["totals"]["statuses"] != {"success": tasks} or calls != 3 * tasks:
            raise SystemExit(
                f"jobs {jobs}: exit {code}, {result['totals']}, {calls} calls\n{stderr}"
            )
        return {"jobs": jobs, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                "rss_mb": usage.ru_maxrss / 1024}  # fmt: skip
    finally:
        fake.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=16)
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 4, 8, 16])
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="agentci-bench-batch-") as tmp:
        root = Path(tmp)
        repo = prepare(root, args.tasks)
        for jobs in args.jobs:
            rows.append(run_batch(root, repo, args.tasks, jobs, args.latency))
    base = next((r["wall"] for r in rows if r["jobs"] == 1), None)
    floor = 3 * args.latency * args.tasks
    print(f"{args.tasks} tasks × 3 model calls × {args.latency * 1000:.0f} ms "
          f"(model time alone at 1 job: {floor:.1f} s); {os.cpu_count()} CPUs")  # fmt: skip
    print("| jobs | wall s | speed-up | efficiency vs ideal | CPU s (per task) | peak RSS MB |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        n = min(r["jobs"], args.tasks)
        speed = base / r["wall"] if base else float("nan")
        eff = speed / n if base else float("nan")
        print(f"| {r['jobs']} | {r['wall']:.2f} | {speed:.2f}x | {eff:.2f} "
              f"| {r['cpu']:.1f} ({r['cpu'] / args.tasks:.2f}) | {r['rss_mb']:.0f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
