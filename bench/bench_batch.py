"""``agentci batch`` at --jobs 1, 4, 8 and 16: wall time, efficiency vs ideal, CPU, peak RSS.

16 tasks of one recipe on one temp git repository (so every task gets its own git worktree).
The tasks talk to one loopback ``fake_gemini`` server through the real google-genai SDK, each
with its own model name and so its own script; every model call waits ``--latency`` seconds
(default 0.3) before its answer. A task makes three
calls: read a file, write it, answer. Everything else is real: worktrees, snapshots, the patch,
the outputs of each task and the merged ones.

Two efficiencies at N jobs: the plain one, (wall at 1 job) / (N × wall at N jobs), and the one
vs the ideal that counts the batch's fixed cost (process start, the SDK's import, the merged
outputs — measured with a batch of one task) once: ideal = fixed + ⌈tasks/N⌉ × (one task's
time at 1 job). The goal is ≥ 0.85 at 8 jobs on a 2-core machine (the work is waiting on the
model; agentci's own CPU per task must stay small). CPU and peak RSS are the batch process's own
(``wait4``), its children included.

Each point is the median of ``--repeats`` runs (3), taken in turn, so one noisy run does not
decide it; the load average is read before and after the runs.

    python bench/bench_batch.py [--tasks 16] [--latency 0.3] [--jobs 1 4 8 16] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from agentci.testing.fake_gemini import FakeGemini

GIT = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b.invalid",
       "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b.invalid"}  # fmt: skip


#: Runs ``argv[2:]`` and writes its exit code, wall time, CPU and peak RSS to ``argv[1]``
#: (JSON). A child's ``ru_maxrss`` starts from its parent's size at the fork (Linux keeps the
#: high-water mark across ``exec``), so the batch is started from this small process, not from
#: the bench's own (over 2 GB after the long sessions).
LAUNCHER = """
import json, os, subprocess, sys, time
start = time.monotonic()
pid = subprocess.Popen(sys.argv[2:]).pid
_, status, usage = os.wait4(pid, 0)
figures = [os.waitstatus_to_exitcode(status), time.monotonic() - start,
           usage.ru_utime + usage.ru_stime, usage.ru_maxrss]
open(sys.argv[1], "w").write(json.dumps(figures))
"""


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
            "workspace": {"isolation": "worktree"},  # also the batch of one task
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
        figures = root / f"figures-{jobs}.json"
        proc = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(figures), *cmd], cwd=repo,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
        stderr = proc.communicate()[1].decode()
        code, wall, cpu, rss_kb = json.loads(figures.read_text())
        result = json.loads((out / "result.json").read_text())
        calls = len(fake.generate_requests)
        failed = [r["functionResponse"] for q in fake.generate_requests
                  for r in (q.contents[-1:] or [{}])[0].get("parts", [])
                  if "error" in r.get("functionResponse", {}).get("response", {})]  # fmt: skip
        if (code != 0 or result["totals"]["statuses"] != {"success": tasks}
                or calls != 3 * tasks or failed):  # fmt: skip
            raise SystemExit(
                f"jobs {jobs}: exit {code}, {result['totals']}, {calls} calls, "
                f"failed tool calls: {failed[:3]}\n{stderr}"
            )
        return {"jobs": jobs, "wall": wall, "cpu": cpu, "rss_mb": rss_kb / 1024}
    finally:
        fake.stop()


def measure(tasks: int, latency: float, jobs: list[int], repeats: int) -> dict:
    """Each point (the batch of one task, then each ``jobs``) run ``repeats`` times, in turn;
    returns every run's figures and, per point, the run of median wall time."""
    runs: dict[str, list[dict]] = {"one": [], **{str(j): [] for j in jobs}}
    with tempfile.TemporaryDirectory(prefix="agentci-bench-batch-") as tmp:
        root = Path(tmp)
        repo = prepare(root, tasks)
        for r in range(repeats):
            one_dir = root / f"one-{r}"
            one_dir.mkdir()
            runs["one"].append(run_batch(one_dir, repo, 1, 1, latency))
            for j in jobs:
                point = root / f"r{r}"
                point.mkdir(exist_ok=True)
                runs[str(j)].append(run_batch(point, repo, tasks, j, latency))
    med = {k: sorted(v, key=lambda x: x["wall"])[len(v) // 2] for k, v in runs.items()}
    base = med.get("1", {}).get("wall")
    # the batch's fixed cost (start-up, imports, merged outputs) and one task's time, from the
    # batch of 1 task and the batch of all tasks at 1 job
    task = (base - med["one"]["wall"]) / (tasks - 1) if base and tasks > 1 else None
    fixed = med["one"]["wall"] - task if task is not None else None
    points = []
    for j in jobs:
        n = min(j, tasks)
        ideal = fixed + -(-tasks // n) * task if task is not None and fixed is not None else None
        effs = [ideal / x["wall"] for x in runs[str(j)]] if ideal else []
        points.append({**med[str(j)], "speed": base / med[str(j)]["wall"] if base else None,
                       "n": n, "efficiency": sorted(effs)[len(effs) // 2] if effs else None,
                       "efficiencies": effs, "walls": [x["wall"] for x in runs[str(j)]]})  # fmt: skip
    return {"task": task, "fixed": fixed, "one": med["one"], "points": points}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=16)
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 4, 8, 16])
    ap.add_argument("--repeats", type=int, default=3, help="runs of each point (the median)")
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    m = measure(args.tasks, args.latency, args.jobs, args.repeats)
    print(f"{args.tasks} tasks × 3 model calls × {args.latency * 1000:.0f} ms; {os.cpu_count()} CPUs; "
          f"each point the median of {args.repeats} runs; load average (1 min) before "
          f"{load_before:.1f}, after {os.getloadavg()[0]:.1f}")  # fmt: skip
    task, fixed = m["task"], m["fixed"]
    if task is not None and fixed is not None:
        print(f"one task: {task:.2f} s (model time {3 * args.latency:.2f} s); fixed cost of a "
              f"batch (start-up, SDK import, merge): {fixed:.2f} s")  # fmt: skip
    print(
        "| jobs | wall s (min-max) | speed-up | efficiency (speed-up / jobs) | efficiency vs ideal "
        "(fixed cost once + ⌈tasks/jobs⌉ task times; min-max) | CPU s (per task) | peak RSS MB |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in m["points"]:
        speed, effs = r["speed"], r["efficiencies"]
        eff = f"{r['efficiency']:.2f} ({min(effs):.2f}-{max(effs):.2f})" if effs else "n/a"
        print(f"| {r['jobs']} | {r['wall']:.2f} ({min(r['walls']):.2f}-{max(r['walls']):.2f}) "
              f"| {speed:.2f}x | {speed / r['n']:.2f} | {eff} "
              f"| {r['cpu']:.1f} ({r['cpu'] / args.tasks:.2f}) | {r['rss_mb']:.0f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
