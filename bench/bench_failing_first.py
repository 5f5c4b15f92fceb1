"""``verify.strategy: failing_first`` vs ``full`` on a large suite: wall time and verify share.

A temp git repository with ``--tests`` tests (``--modules`` modules; each test does
``--work-ms`` of work, a sleep, so the numbers do not depend on how many cores are free) of
which one module's tests fail: they check ``VALUE == 1`` and ``gen/value.py`` says 0. The model
is scripted (``agentci run`` in a subprocess, real pytest, ``sandbox: none``) and fixes it in
two ways:

* ``first try``: it sets ``VALUE = 1`` at once;
* ``second try``: it sets ``VALUE = 2`` first (still failing), is sent back, then sets 1.

Each scenario runs once with ``strategy: full`` and once with ``failing_first``, side by side,
and prints the run's wall time, the time its verify runs took (the ``duration_ms`` of every
``verify_result`` event), the verify share of the wall time, which runs happened, and the
failing_first / full ratio. Both must end ``success`` with the same per-test counts, or the
benchmark stops.

    python bench/bench_failing_first.py [--tests 3000] [--modules 30] [--work-ms 2]
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

GIT = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b.invalid",
       "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b.invalid"}  # fmt: skip


def prepare(root: Path, tests: int, modules: int, work_ms: float) -> Path:
    """The repository: ``modules`` test modules sharing ``tests`` tests; module 07 fails."""
    repo = root / "repo"
    (repo / "gen").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "gen" / "__init__.py").write_text("")
    (repo / "gen" / "value.py").write_text("VALUE = 0\n")
    (repo / ".gitignore").write_text("__pycache__/\n")
    per = tests // modules
    for m in range(modules):
        check = "VALUE == 1" if m == 7 else "True"
        body = "".join(
            f"\n\ndef test_{t}():\n    time.sleep({work_ms / 1000!r})\n    assert {check}\n"
            for t in range(per)
        )
        (repo / "tests" / f"test_m{m:02d}.py").write_text(
            "import time\n\nfrom gen.value import VALUE\n" + body
        )
    env = {**os.environ, **GIT}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def _set(value: int, old: int = 0) -> dict:
    args = {"file_path": "gen/value.py", "old_string": f"VALUE = {old}", "new_string": f"VALUE = {value}"}  # fmt: skip
    return {"calls": [{"name": "replace", "args": args}]}


SCENARIOS = {
    "first try": [_set(1), {"text": "Set VALUE to 1."}],
    "second try": [_set(2), {"text": "Set VALUE to 2."}, _set(1, 2), {"text": "Now 1."}],
}


def run_once(root: Path, repo: Path, name: str, strategy: str) -> dict:
    """One ``agentci run`` on a fresh clone; its wall time, verify time and runs."""
    work = root / f"{name.replace(' ', '-')}-{strategy}"
    subprocess.run(["git", "clone", "-q", str(repo), str(work / "repo")], check=True)
    script = work / "script.yaml"
    script.write_text(yaml.safe_dump(SCENARIOS[name]))
    recipe = work / "recipe.yaml"
    recipe.write_text(yaml.safe_dump({
        "version": 1, "name": "bench", "model": {"name": f"scripted:{script}"},
        "prompt": "Make the tests pass.", "sandbox": "none",
        "verify": {"command": f"{sys.executable} -m pytest -q tests",
                   "runner": "pytest", "attempts": 3, "strategy": strategy},
    }, sort_keys=False))  # fmt: skip
    out = work / "out"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "agentci", "run", str(recipe), "--out", str(out), "-q"],
        cwd=work / "repo", env=env, capture_output=True, text=True,
    )  # fmt: skip
    wall = time.perf_counter() - started
    result = json.loads((out / "result.json").read_text())
    if done.returncode != 0 or result["status"] != "success":
        sys.exit(f"{name}/{strategy}: exit {done.returncode}, {result['reason']}\n{done.stderr}")
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    verify = [e for e in events if e["type"] == "verify_result"]
    return {
        "wall": wall,
        "verify": sum(e["duration_ms"] for e in verify) / 1000,
        "runs": [
            (e["attempt"], e.get("scope", "full"), e["counts"].get("total", 0)) for e in verify
        ],
        "counts": result["tasks"][0]["extra"]["verify"]["counts"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tests", type=int, default=3000)
    ap.add_argument("--modules", type=int, default=30)
    ap.add_argument("--work-ms", type=float, default=2.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="agentci-bench-ff-") as tmp:
        root = Path(tmp)
        repo = prepare(root, args.tests, args.modules, args.work_ms)
        print(f"{args.tests} tests in {args.modules} modules, {args.work_ms:g} ms each; "
              f"{args.tests // args.modules} fail at the baseline")  # fmt: skip
        print(f"{'scenario':<11} {'strategy':<14} {'wall s':>7} {'verify s':>9} {'share':>6}  runs")
        for name in SCENARIOS:
            got = {s: run_once(root, repo, name, s) for s in ("full", "failing_first")}
            if got["full"]["counts"] != got["failing_first"]["counts"]:
                sys.exit(f"{name}: the verdicts differ: {got}")
            for strategy, r in got.items():
                runs = ", ".join(f"{a}:{s}:{n}" for a, s, n in r["runs"])
                print(f"{name:<11} {strategy:<14} {r['wall']:7.1f} {r['verify']:9.1f} "
                      f"{r['verify'] / r['wall']:6.0%}  {runs}")  # fmt: skip
            ratio = got["failing_first"]["wall"] / got["full"]["wall"]
            vratio = got["failing_first"]["verify"] / got["full"]["verify"]
            print(f"{name:<11} failing_first / full: wall {ratio:.2f}, verify time {vratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
