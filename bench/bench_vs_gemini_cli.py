"""agentci vs Gemini CLI: one tool session against the same fake server, ratios from one run.

Starts one loopback fake_gemini server and a small temporary git repo, then drives, several
times each and interleaved, (a) ``agentci run`` on a generated recipe (``model.name:
gemini-2.5-flash``) and (b) Gemini CLI headless (``gemini -p ... -m gemini-2.5-flash --yolo``).
Both get the same scripted session: the model lists ``src``, reads a few files one turn at a
time (``list_directory`` / ``read_file``: both agents have these tools under these names), then
answers. Reports medians of:

* wall time of a run (process start to exit);
* time to the first model request (start-up, config, first request built);
* time between model requests (per-turn overhead: stream the answer, run the tool, build and
  send the next request);
* time from the last model request to exit (shutdown, outputs);
* ``--version`` start-up;

and the ratios agentci / Gemini CLI. Ratios are measured in one run; absolute times are not claims.

Request times come from watching the fake's public ``requests`` list from a thread (about 1 ms
resolution); the fake itself records no timestamps. A run whose requests do not match the
script (extra or missing model calls, another model, a tool call denied or failed) stops the
benchmark with a message.

Gemini CLI is not a dependency: install it outside the repository, e.g.
``npm install --prefix /tmp/gemini-cli @google/gemini-cli``, and pass
``--gemini /tmp/gemini-cli/node_modules/.bin/gemini`` (or set ``AGENTCI_BENCH_GEMINI``, or put
``gemini`` on PATH). Without it the benchmark says so and exits 0 (skipped).

    python bench/bench_vs_gemini_cli.py [--gemini PATH] [--runs 5] [--reads 6]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentci.testing.fake_gemini import FakeGemini

MODEL = "gemini-2.5-flash"
PROMPT = "List the files in src, read them one by one, then summarise what they do."
RUN_TIMEOUT = 180.0
VERSION_TIMEOUT = 60.0


# ------------------------------------------------------------------ processes


@dataclass
class Proc:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    #: peak resident set of the process and its waited-for children (``wait4``), in MB
    rss_mb: float = 0.0
    #: user + system CPU seconds of the process and its waited-for children
    cpu: float = 0.0


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the process group this script started for ``proc`` (and only that group)."""
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


#: GNU time reports the peak memory of the process it starts; a process this script forks
#: itself would count this script's own pages (copied at the fork, kept across exec)
TIME = shutil.which("time", path="/usr/bin:/bin")


def run(cmd: list[str], *, env: dict[str, str], cwd: Path, timeout: float) -> Proc:
    """Run ``cmd`` in its own process group, reaped with ``wait4`` for its CPU time, its peak
    memory from GNU time when there is one; on timeout kill that group and raise."""
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile("r") as peak,
    ):
        full = [TIME, "-f", "%M", "-o", peak.name, *cmd] if TIME else cmd
        start = time.perf_counter()
        proc = subprocess.Popen(
            full, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True,
        )  # fmt: skip
        timer = threading.Timer(timeout, kill_group, (proc,))
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            kill_group(proc)
            proc.wait()
            raise
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code == -signal.SIGKILL and seconds >= timeout:
            raise SystemExit(f"timed out after {timeout:g}s: {' '.join(cmd)}")
        out.seek(0)
        err.seek(0)
        kb = peak.read().strip().splitlines()
        return Proc(
            code,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
            seconds,
            rss_mb=(int(kb[-1]) if kb and kb[-1].isdigit() else usage.ru_maxrss) / 1024,
            cpu=usage.ru_utime + usage.ru_stime,
        )


def find_gemini(option: str | None) -> str | None:
    """--gemini, else $AGENTCI_BENCH_GEMINI, else ``gemini`` on PATH; None when not there."""
    if option:
        return shutil.which(option)  # an explicit path that is missing: no silent fallback
    return shutil.which(os.environ.get("AGENTCI_BENCH_GEMINI") or "gemini")


def find_agentci() -> list[str]:
    beside = Path(sys.executable).with_name("agentci")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("agentci")
    return [found] if found else [sys.executable, "-m", "agentci"]


# ------------------------------------------------------------------ the session


def make_repo(root: Path, files: int) -> Path:
    src = root / "src"
    src.mkdir(parents=True)
    for i in range(files):
        body = "".join(f"def f{i}_{j}(x):\n    return x + {j}\n\n" for j in range(40))
        (src / f"m{i}.py").write_text(f'"""Module {i}."""\n\n' + body)
    (root / "README.md").write_text("A small project.\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "init"]):
        subprocess.run(git + cmd, cwd=root, check=True, timeout=60, capture_output=True)
    return root


def script(reads: int) -> list[dict]:
    turns: list[dict] = [
        {"function_calls": [{"name": "list_directory", "args": {"dir_path": "src"}}]}
    ]
    for i in range(reads):
        turns.append(
            {
                "text": f"Reading m{i}.py.",
                "function_calls": [{"name": "read_file", "args": {"file_path": f"src/m{i}.py"}}],
            }
        )
    turns.append({"text": "Each module defines forty small functions that add a constant."})
    return turns


def write_recipe(path: Path, repo: Path, out: Path, turns: int) -> Path:
    recipe = {
        "version": 1,
        "name": "bench-vs-gemini-cli",
        "model": {"name": MODEL},
        "prompt": PROMPT,
        "workspace": {"path": str(repo)},
        "allow_no_changes": True,
        "budget": {"max_turns": turns + 5},
        "outputs": {"dir": str(out)},
    }
    path.write_text(json.dumps(recipe, indent=2))  # JSON is YAML
    return path


def gemini_home(home: Path) -> Path:
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    }
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2))
    return home


def base_env(fake: FakeGemini, home: Path) -> dict[str, str]:
    """A small, explicit environment: no real keys or cloud settings leak into either agent."""
    env = {k: os.environ[k] for k in ("PATH", "LANG", "TMPDIR") if k in os.environ}
    env.update(fake.env())
    env.update(
        HOME=str(home),
        GEMINI_CLI_TRUST_WORKSPACE="true",
        GEMINI_CLI_NO_RELAUNCH="true",
        NO_COLOR="1",
    )
    return env


# ------------------------------------------------------------------ request times


class Watcher:
    """Stamps each request the fake records, by polling its public ``requests`` list."""

    def __init__(self, fake: FakeGemini, interval: float = 0.001) -> None:
        self._fake = fake
        self._interval = interval
        self._stamps: list[float] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            n = len(self._fake.requests)
            now = time.perf_counter()
            with self._lock:
                while len(self._stamps) < n:
                    self._stamps.append(now)
            time.sleep(self._interval)

    def stamps(self, since: int) -> list[float]:
        with self._lock:
            return self._stamps[since:]

    @contextmanager
    def running(self) -> Iterator[Watcher]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join(timeout=5)


@dataclass
class Sample:
    wall: float
    first: float
    gaps: list[float]
    tail: float
    request_bytes: list[int] = field(default_factory=list)
    rss_mb: float = 0.0


def call_problems(turns: list[dict], requests: list[Any]) -> list[str]:
    """What went wrong with the tool calls of a scripted run: each request after a turn of
    function calls must carry one result per call, none of them an error (a call the policy
    denied, a tool that failed): a benchmark of denials measures nothing."""
    problems = []
    for k, (turn, request) in enumerate(zip(turns, requests[1:], strict=False), start=1):
        calls = turn.get("function_calls") or []
        if not calls:
            continue
        contents = request.body.get("contents") or [{}]
        results = [p["functionResponse"] for p in contents[-1].get("parts", [])
                   if "functionResponse" in p]  # fmt: skip
        if len(results) != len(calls):
            problems.append(f"request {k + 1}: {len(results)} tool results for {len(calls)} calls")
        for r in results:
            error = (r.get("response") or {}).get("error")
            if error is not None:
                problems.append(f"request {k + 1}: {r.get('name')} failed: {str(error)[:300]}")
    return problems


def session_run(
    name: str,
    cmd: list[str],
    *,
    env: dict[str, str],
    repo: Path,
    fake: FakeGemini,
    watcher: Watcher,
    turns: list[dict],
    timeout: float = RUN_TIMEOUT,
) -> Sample:
    """Run one scripted session; every model request must be for :data:`MODEL`, there
    must be exactly one per turn of ``turns``, and every tool call must succeed
    (:func:`call_problems`), or the benchmark stops and says why."""
    before = len(fake.requests)
    if fake.turns_left:
        raise SystemExit(f"{name}: the fake still holds {fake.turns_left} turns of an earlier run")
    fake.add(*turns)
    start = time.perf_counter()
    proc = run(cmd, env=env, cwd=repo, timeout=timeout)
    end = start + proc.seconds
    time.sleep(0.01)  # let the watcher see the last request
    requests = fake.requests[before:]
    stamps = watcher.stamps(before)
    generate = [(r, t) for r, t in zip(requests, stamps, strict=False) if r.turn is not None]
    problems = []
    if proc.returncode != 0:
        problems.append(f"exit code {proc.returncode}")
    if len(generate) != len(turns) or fake.turns_left:
        problems.append(f"{len(generate)} model requests for a script of {len(turns)} turns")
    if any(r.model != MODEL for r, _ in generate):
        problems.append("a request for another model: " + ", ".join({r.model for r, _ in generate}))
    if len(stamps) != len(requests):
        problems.append("the watcher missed requests")
    problems += call_problems(turns, [r for r, _ in generate])
    if problems:
        tail = (proc.stderr or proc.stdout)[-3000:]
        raise SystemExit(
            f"{name}: the run does not match the script: {'; '.join(problems)}\n{tail}"
        )
    times = [t for _, t in generate]
    return Sample(
        wall=proc.seconds,
        first=times[0] - start,
        gaps=[b - a for a, b in zip(times, times[1:], strict=False)],
        tail=end - times[-1],
        request_bytes=[r.size for r, _ in generate],  # the bytes each body arrived as
        rss_mb=proc.rss_mb,
    )


def version_time(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    proc = run(cmd + ["--version"], env=env, cwd=cwd, timeout=VERSION_TIMEOUT)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} --version failed ({proc.returncode}): {proc.stderr}")
    return proc.seconds, proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "?"


# ------------------------------------------------------------------ report


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def report(rows: list[tuple[str, float, float]], meta: dict[str, str]) -> None:
    for k, v in meta.items():
        print(f"{k + ':':16} {v}")
    print()
    print(f"{'median':30} {'agentci':>11} {'Gemini CLI':>11} {'agentci/Gemini CLI':>19}")
    for label, a, g in rows:
        print(f"{label:30} {ms(a):>11} {ms(g):>11} {a / g:18.2f}x")
    print()
    print("Ratios only: both agents ran in this process's one run, against the same fake server.")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gemini", help="the gemini executable (else $AGENTCI_BENCH_GEMINI, PATH)")
    ap.add_argument("--runs", type=int, default=5, help="measured runs of each agent")
    ap.add_argument("--reads", type=int, default=6, help="read_file turns in the session")
    ap.add_argument("--versions", type=int, default=5, help="--version runs of each agent")
    args = ap.parse_args()
    if args.runs < 1 or args.reads < 1 or args.versions < 1:
        ap.error("--runs, --reads and --versions must be at least 1")

    gemini = find_gemini(args.gemini)
    if gemini is None:
        where = args.gemini or os.environ.get("AGENTCI_BENCH_GEMINI") or "gemini on PATH"
        print(
            f"skipped: Gemini CLI not found ({where}). Install it outside the repository, e.g.\n"
            "  npm install --prefix /tmp/gemini-cli @google/gemini-cli\n"
            "and pass --gemini /tmp/gemini-cli/node_modules/.bin/gemini"
        )
        return 0
    agentci = find_agentci()
    turns = script(args.reads)

    with tempfile.TemporaryDirectory(prefix="bench-vs-gemini-") as tmp_name:
        tmp = Path(tmp_name)
        repo = make_repo(tmp / "repo", args.reads)
        with FakeGemini() as fake, Watcher(fake).running() as watcher:
            probe_env = base_env(fake, gemini_home(tmp / "home-version"))
            try:
                _, gemini_version = version_time([gemini], probe_env, tmp)
            except (SystemExit, OSError) as exc:
                print(f"skipped: {gemini} does not run: {exc}")
                return 0
            _, agentci_version = version_time(agentci, probe_env, tmp)

            samples: dict[str, list[Sample]] = {"agentci": [], "gemini": []}
            for i in range(args.runs + 1):  # run 0 warms caches and is not counted
                for name in ("agentci", "gemini"):
                    home = gemini_home(tmp / f"home-{name}-{i}")
                    env = base_env(fake, home)
                    if name == "agentci":
                        recipe = write_recipe(home / "recipe.yaml", repo, home / "out", len(turns))
                        cmd = agentci + ["run", str(recipe)]
                    else:
                        cmd = [gemini, "-p", PROMPT, "-m", MODEL, "--yolo"]
                    sample = session_run(
                        name, cmd, env=env, repo=repo, fake=fake, watcher=watcher, turns=turns
                    )
                    if i:
                        samples[name].append(sample)

            starts: dict[str, list[float]] = {"agentci": [], "gemini": []}
            for _ in range(args.versions):
                starts["agentci"].append(version_time(agentci, probe_env, tmp)[0])
                starts["gemini"].append(version_time([gemini], probe_env, tmp)[0])

    def med(name: str, pick) -> float:
        return statistics.median(v for s in samples[name] for v in pick(s))

    rows = [
        ("wall time of a run", med("agentci", lambda s: [s.wall]), med("gemini", lambda s: [s.wall])),
        ("to first model request", med("agentci", lambda s: [s.first]), med("gemini", lambda s: [s.first])),
        ("between model requests", med("agentci", lambda s: s.gaps), med("gemini", lambda s: s.gaps)),
        ("last model request to exit", med("agentci", lambda s: [s.tail]), med("gemini", lambda s: [s.tail])),
        ("--version", statistics.median(starts["agentci"]), statistics.median(starts["gemini"])),
    ]  # fmt: skip
    a_bytes = med("agentci", lambda s: s.request_bytes)
    g_bytes = med("gemini", lambda s: s.request_bytes)
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}",
        "agentci": agentci_version,
        "Gemini CLI": f"{gemini_version} ({gemini})",
        "session": f"{len(turns)} model turns (list_directory, {args.reads} x read_file, answer),"
        f" {args.runs} runs each (+1 warm-up), interleaved",
        "request body": f"median {a_bytes / 1000:.1f} kB (agentci) vs {g_bytes / 1000:.1f} kB "
        f"(Gemini CLI): {a_bytes / g_bytes:.2f}x",
    }
    report(rows, meta)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
