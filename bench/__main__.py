"""``python -m bench``: agentci's benchmark suite (issue 27), from the repository root.

Installs Gemini CLI into ``bench/.gemini-cli`` with npm when npm is there (its column is
skipped otherwise, or with ``--no-gemini``), starts one loopback ``fake_gemini`` server and runs
each scenario, agentci and the other tool in interleaved pairs after one warm-up pair. Writes
``bench/RESULTS.md`` (per metric the ratio agentci / other with median and min–max, the raw
medians, the exact commands, the machine and its load before and after) and
``bench/per_turn.png`` (per-turn time against turn number, both tools; needs the ``bench``
extra, matplotlib).

    python -m bench [--pairs 5] [--quick] [--only NAME ...] [--gemini PATH] [--no-gemini]
                    [--tree DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agentci.testing.fake_gemini import FakeGemini
from bench import other, projects, sessions, tree
from bench.bench_vs_gemini_cli import Watcher, find_agentci, find_gemini
from bench.core import Bench, Scenario, Section
from bench.results import draw_chart, render

HERE = Path(__file__).resolve().parent
GEMINI_CLI = "@google/gemini-cli@0.61.0"

SCENARIOS: dict[str, Scenario] = {
    "startup": sessions.startup,
    "one_turn": sessions.one_turn,
    "long_small": sessions.long_small,
    "long_large": sessions.long_large,
    "search": tree.search,
    "snapshots": tree.snapshots,
    "extra_task": tree.extra_task,
    "pre_commit": other.pre_commit,
    "real_project": projects.real_project,
    "many_tests": projects.many_tests,
    "batch": other.batch,
    "parallel_reads": sessions.parallel_reads,
}


def install_gemini(folder: Path) -> tuple[str | None, str]:
    """Gemini CLI in ``folder`` (installed with npm when missing): its path, or None and why."""
    exe = folder / "node_modules" / ".bin" / "gemini"
    if exe.exists():
        return str(exe), f"Gemini CLI from {folder.relative_to(HERE.parent)} ({GEMINI_CLI})"
    npm = shutil.which("npm")
    if npm is None:
        return None, "Gemini CLI column skipped: npm is not installed."
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund",
                           GEMINI_CLI], capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0 or not exe.exists():
        return None, f"Gemini CLI column skipped: npm install failed: {done.stderr[-500:]}"
    return str(exe), f"Gemini CLI installed with npm into bench/.gemini-cli ({GEMINI_CLI})"


def _version(cmd: list[str]) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return "not found"
    return (done.stdout.strip() or done.stderr.strip() or "?").splitlines()[0]


def machine(agentci: list[str], gemini: str | None) -> list[str]:
    import google.genai

    from bench.bench_grep import find_rg
    from bench.bench_pre_commit import find_ruff

    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return [
        f"{platform.machine()}, {os.cpu_count()} cores ({cpu}), {platform.system()} "
        f"{platform.release()}",
        f"Python {platform.python_version()}; {_version([*agentci, '--version'])}; "
        f"google-genai {google.genai.__version__}; Gemini CLI "
        f"{_version([gemini, '--version']) if gemini else 'not run'}; Node "
        f"{_version(['node', '--version'])}; {_version([find_rg(), '--version'])}; "
        f"{_version([find_ruff(), '--version'])}; {_version(['git', '--version'])}",
    ]


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=5, help="counted pairs per figure (5)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    ap.add_argument("--only", nargs="+", choices=list(SCENARIOS), help="these scenarios only")
    ap.add_argument("--gemini", help="a gemini executable (else bench/.gemini-cli, via npm)")
    ap.add_argument("--no-gemini", action="store_true", help="skip Gemini CLI's column")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md", help="the report")
    ap.add_argument("--tree", type=Path, help="keep the generated large tree here, for later runs")
    args = ap.parse_args(argv)
    # agentci as installed (pip compiles its bytecode): without this a run could time
    # compiling every module at each start
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.pairs < 1:
        ap.error("--pairs must be at least 1")
    if args.no_gemini:
        gemini, note = None, "Gemini CLI column skipped (--no-gemini)."
    elif args.gemini:
        gemini = find_gemini(args.gemini)
        note = f"Gemini CLI: {args.gemini}" if gemini else f"skipped: {args.gemini} not found"
    else:
        gemini, note = install_gemini(HERE / ".gemini-cli")
    print(note, flush=True)
    agentci = find_agentci()
    names = args.only or list(SCENARIOS)
    load_before = load()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    sections: list[Section] = []
    command = " ".join(argv if argv is not None else sys.argv[1:])

    def write(remaining: list[str]) -> bool:
        """RESULTS.md and the chart as they stand (after every scenario: a run stopped early
        still leaves what it measured, and says what it did not)."""
        head = [
            f"Run {started}: `python -m bench {command}` ({args.pairs} counted pairs per figure "
            "after one warm-up pair, unless a section says otherwise"
            + (", quick sizes)" if args.quick else ")"),
            "",
            *(f"- {line}" for line in facts),
            f"- load average (1 / 5 / 15 min) before: {load_before}; after: {load()}",
            f"- {note}",
            "",
            "Ratios are agentci / other, pair by pair (< 1: agentci takes less). The raw "
            "medians only give them a scale on this machine.",
        ]
        if remaining:
            head.append(
                f"\n**Not run (the run stopped or is still going):** {', '.join(remaining)}"
            )
        chart = args.out.with_name("per_turn.png")
        try:
            drawn = draw_chart(sections, chart)
        except ImportError:
            drawn = False
            head.append("No chart: matplotlib is not installed (pip install -e '.[bench]').")
        args.out.write_text(render(sections, head, chart if drawn else None))
        return drawn

    facts = machine(agentci, gemini)
    with (
        tempfile.TemporaryDirectory(prefix="agentci-bench-") as tmp,
        FakeGemini() as fake,
        Watcher(fake).running() as watcher,
    ):
        b = Bench(args.pairs, args.quick, Path(tmp), agentci, gemini, note, fake, watcher,
                  args.tree.resolve() if args.tree else None)  # fmt: skip
        for i, name in enumerate(names):
            start = time.perf_counter()
            print(f"{name} ...", end=" ", flush=True)
            try:
                sections.append(SCENARIOS[name](b))
            except (Exception, SystemExit) as exc:  # one broken scenario must not lose the rest
                sections.append(Section(name, [], notes=[f"**Failed:** {exc}"[:3000]]))
            print(f"{time.perf_counter() - start:.0f} s (load {load()})", flush=True)
            drawn = write(names[i + 1 :])
    print(f"wrote {args.out}" + (" and per_turn.png" if drawn else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
