"""Scenarios that run the same scripted session through ``agentci run`` and Gemini CLI.

Both agents talk to one loopback ``fake_gemini`` server, in interleaved pairs after one
warm-up pair (see :mod:`bench.bench_vs_gemini_cli` for the environment each one gets and how
request times are taken).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bench.bench_vs_gemini_cli import (
    MODEL,
    PROMPT,
    Sample,
    base_env,
    gemini_home,
    run,
    session_run,
    version_time,
    write_recipe,
)
from bench.core import Bench, Metric, Section, median

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
GEMINI_NOTE = (
    "Gemini CLI runs with `model.disableLoopDetection: true`: its model-judged loop check "
    "(from turn 30 on) calls another model, which the scripted fake cannot answer; agentci's "
    "own model-judged check is off by default."
)


def commit_repo(root: Path, files: dict[str, str]) -> Path:
    """A committed git repository holding ``files`` (path: text)."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(GIT + cmd, cwd=root, check=True, timeout=300, capture_output=True)
    return root


def text_of(size: int, seed: int) -> str:
    """About ``size`` bytes of distinct lines."""
    line = f"line of file {seed}: " + "abcdefghij" * 6 + "\n"
    return line * max(1, size // len(line))


def paired(
    b: Bench, key: str, repo: Path, turns: list[dict], timeout: float = 900.0
) -> dict[str, list[Sample]]:
    """Run the session ``turns`` on ``repo`` with each agent, ``b.pairs`` counted pairs after a
    warm-up pair; Gemini CLI is left out when it is not there."""
    agents = ["agentci"] + (["gemini"] if b.gemini else [])
    samples: dict[str, list[Sample]] = {a: [] for a in agents}
    for i in range(b.pairs + 1):
        for name in agents:
            home = gemini_home(b.tmp / f"home-{key}-{name}-{i}")
            settings = home / ".gemini" / "settings.json"
            data = json.loads(settings.read_text())
            data["model"] = {"disableLoopDetection": True}
            settings.write_text(json.dumps(data))
            env = base_env(b.fake, home)
            if name == "agentci":
                recipe = write_recipe(home / "recipe.yaml", repo, home / "out", len(turns))
                cmd = b.agentci + ["run", str(recipe)]
            else:
                assert b.gemini is not None
                cmd = [b.gemini, "-p", PROMPT, "-m", MODEL, "--yolo"]
            sample = session_run(
                name, cmd, env=env, repo=repo, fake=b.fake, watcher=b.watcher, turns=turns,
                timeout=timeout,
            )  # fmt: skip
            if i:
                samples[name].append(sample)
            subprocess.run(GIT + ["checkout", "-q", "--", "."], cwd=repo, check=True)
            subprocess.run(GIT + ["clean", "-qfdx"], cwd=repo, check=True)
    return samples


def metric(
    name: str,
    unit: str,
    samples: dict[str, list[Sample]],
    pick,  # type: ignore[no-untyped-def]
    target: tuple[str, float] | None = None,
) -> Metric:
    ours = [pick(s) for s in samples["agentci"]]
    other = [pick(s) for s in samples["gemini"]] if "gemini" in samples else None
    return Metric(name, unit, ours, other, "Gemini CLI", target)


def command_lines(b: Bench) -> list[str]:
    lines = [f"{' '.join(b.agentci)} run recipe.yaml  # generated recipe, model {MODEL}"]
    if b.gemini:
        lines.append(f'{b.gemini} -p "{PROMPT}" -m {MODEL} --yolo')
    return lines


def startup(b: Bench) -> Section:
    """``--version`` of both, and ``agentci validate`` (Gemini CLI has none: against its
    ``--version``, the nearest start-up without a model call)."""
    root = b.folder("startup")
    repo = commit_repo(root / "repo", {"README.md": "hi\n"})
    recipe = write_recipe(root / "recipe.yaml", repo, root / "out", 3)
    env = base_env(b.fake, gemini_home(root / "home"))
    ours_v: list[float] = []
    ours_val: list[float] = []
    other: list[float] = []
    for i in range(b.pairs + 1):
        v = version_time(b.agentci, env, root)[0]
        proc = run(b.agentci + ["validate", str(recipe)], env=env, cwd=root, timeout=120)
        if proc.returncode != 0:
            raise SystemExit(f"agentci validate failed: {proc.stderr[-2000:]}")
        g = version_time([b.gemini], env, root)[0] if b.gemini else None
        if i:
            ours_v.append(v * 1000)
            ours_val.append(proc.seconds * 1000)
            if g is not None:
                other.append(g * 1000)
    others = other if b.gemini else None
    return Section(
        "Start-up: `--version` and `validate`",
        [f"{' '.join(b.agentci)} --version", f"{' '.join(b.agentci)} validate recipe.yaml"]
        + ([f"{b.gemini} --version"] if b.gemini else []),
        [
            Metric("`--version`", "ms", ours_v, others, "Gemini CLI `--version`"),
            Metric("`agentci validate`", "ms", ours_val, others, "Gemini CLI `--version`"),
        ],
    )


def one_turn(b: Bench) -> Section:
    """One tool turn (read a file) and the answer: process start to exit."""
    repo = commit_repo(b.folder("one-turn") / "repo", {"src/a.py": text_of(2000, 0)})
    turns = [
        {"function_calls": [{"name": "read_file", "args": {"file_path": "src/a.py"}}]},
        {"text": "It defines nothing; it is text."},
    ]
    s = paired(b, "one-turn", repo, turns)
    return Section(
        "One tool turn (read_file, then the answer)",
        command_lines(b),
        [
            metric("wall time of a run", "ms", s, lambda x: x.wall * 1000, ("<=", 0.5)),
            metric("to first model request", "ms", s, lambda x: x.first * 1000),
            metric("last answer to exit", "ms", s, lambda x: x.tail * 1000, ("<=", 1.0)),
            metric("peak RSS", "MB", s, lambda x: x.rss_mb),
        ],
        [GEMINI_NOTE],
    )


def _long(b: Bench, key: str, size: int, title: str) -> Section:
    n = b.size(200, 6)
    files = {f"src/f{i:03d}.txt": text_of(size, i) for i in range(n)}
    repo = commit_repo(b.folder(key) / "repo", files)
    turns: list[dict] = [
        {"function_calls": [{"name": "read_file", "args": {"file_path": name}}]} for name in files
    ]
    turns.append({"text": "Read them all."})
    s = paired(b, key, repo, turns)
    early = slice(1, 21)  # the turns after the first request, 2-21
    section = Section(
        title,
        command_lines(b),
        [
            metric("wall time of a run", "ms", s, lambda x: x.wall * 1000),
            metric(
                "per turn, turns 2-21 (median)", "ms", s, lambda x: median(x.gaps[early]) * 1000
            ),
            metric(
                "per turn, last 20 turns (median)", "ms", s, lambda x: median(x.gaps[-20:]) * 1000
            ),
            metric(
                f"request bytes at turn {n}",
                "kB",
                s,
                lambda x: x.request_bytes[n - 1] / 1000,
                ("<=", 0.5),
            ),
            metric("peak RSS", "MB", s, lambda x: x.rss_mb),
        ],  # fmt: skip
        [
            f"{n} turns, each a read_file of a different file of about {size:,} bytes, then "
            "the answer; the default context window of both agents.",
            GEMINI_NOTE,
        ],
    )
    for agent, label in (("agentci", "agentci"), ("gemini", "Gemini CLI")):
        if agent in s:
            per_turn = [median([x.gaps[t] for x in s[agent]]) * 1000 for t in range(n)]
            section.series[label] = per_turn
    return section


def long_small(b: Bench) -> Section:
    """200 turns with small outputs."""
    return _long(b, "long-small", 300, "200 turns, small outputs (300 B)")


def long_large(b: Bench) -> Section:
    """200 turns with 18 kB outputs."""
    return _long(b, "long-large", 18_000, "200 turns, 18 kB outputs")


#: name: (files to create {path: size}, the 8 calls of the one turn)
READS: dict[str, tuple[dict[str, int], list[dict]]] = {
    "read_file, 8 small files": (
        {f"src/s{i}.py": 1_000 for i in range(8)},
        [{"name": "read_file", "args": {"file_path": f"src/s{i}.py"}} for i in range(8)],
    ),
    "read_file, 8 files of 63 kB": (
        {f"src/l{i}.txt": 63_000 for i in range(8)},
        [{"name": "read_file", "args": {"file_path": f"src/l{i}.txt"}} for i in range(8)],
    ),
    "grep_search x 8": (
        {f"src/s{i}.py": 1_000 for i in range(8)},
        [{"name": "grep_search", "args": {"pattern": f"file {i}:"}} for i in range(8)],
    ),
    "run_shell_command `cat` x 8": (
        {f"src/s{i}.py": 1_000 for i in range(8)},
        [{"name": "run_shell_command", "args": {"command": f"cat src/s{i}.py"}} for i in range(8)],
    ),  # fmt: skip
    "run_shell_command `sleep 0.5` x 8": (
        {"README.md": 10},
        [{"name": "run_shell_command", "args": {"command": "sleep 0.5"}} for _ in range(8)],
    ),
    "run_shell_command `sleep 0.5` x 1": (
        {"README.md": 10},
        [{"name": "run_shell_command", "args": {"command": "sleep 0.5"}}],
    ),
}


def parallel_reads(b: Bench) -> Section:
    """8 read-only calls in one turn: the time from the request that asked for them to the
    request that carries their results."""
    section = Section(
        "8 read-only calls in one turn (time from the calls' request to the results' request)",
        command_lines(b),
    )
    one_sleep: list[float] = []
    for name, (files, calls) in READS.items():
        key = "reads-" + "".join(c for c in name if c.isalnum())
        repo = commit_repo(b.folder(key) / "repo", {p: text_of(n, i) for i, (p, n) in
                                                    enumerate(files.items())})  # fmt: skip
        turns = [{"function_calls": calls}, {"text": "Done."}]
        s = paired(b, key, repo, turns)
        target = ("<=", 1.0) if "63 kB" in name else None
        section.metrics.append(metric(name, "ms", s, lambda x: x.gaps[0] * 1000, target))
        if name.endswith("x 1"):
            one_sleep = [x.gaps[0] * 1000 for x in s["agentci"]]
    eight = next(m for m in section.metrics if m.name.endswith("`sleep 0.5` x 8"))
    section.metrics.append(
        Metric("agentci: 8 `sleep 0.5` vs 1", "ms", eight.ours, one_sleep,
               "agentci, one `sleep 0.5`", ("<=", 1.2))
    )  # fmt: skip
    section.notes.append(GEMINI_NOTE)
    return section
