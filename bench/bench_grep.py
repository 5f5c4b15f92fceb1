"""``grep_search`` over a large tree: one tool call vs ``rg`` run by hand on the same tree.

Builds a temporary git repository of ``--files`` source files (300 folders, ~1.5 KB each,
plus an ignored ``build/`` folder), then times, in turn, one ``grep_search`` call through the
tool (its engine: ripgrep, or ``--engine re2`` for the fallback walk) and one
``rg -n PATTERN`` subprocess in the tree, for two patterns (a rare literal, a regex with a
class). Prints the median milliseconds of each and the median of the per-pair ratios
(tool / rg). Goal: ratio <= 1.5.

    python bench/bench_grep.py [--files 30000] [--calls 7] [--engine default|re2]

The same script runs against an older agentci (``PYTHONPATH=/path/to/old/checkout``): it
only uses ``GrepSearch`` and ``ToolContext``, which every version has.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from agentci.tools.base import ToolContext
from agentci.tools.search import GrepSearch

PATTERNS = ["needle_marker_7f3a", r"def handle_\w+_event\("]
BODY = '''"""Module {i}."""

import os


class Widget{i}:
    def __init__(self, size):
        self.size = size

    def grow(self, by):
        return Widget{i}(self.size + by)


def handle_{kind}_event(event):
    value = event.get("value", 0)
    if value > {i}:
        return value - {i}
    return value


def helper_{i}(items):
    return [x * 2 for x in items if x % 3 == {r}]
'''


def make_tree(root: Path, files: int) -> None:
    """``files`` Python files in 300 folders, a few holding the rare literal, and 1,000
    ignored files under ``build/``."""
    folders = 300
    for i in range(files):
        d = root / "src" / f"pkg{i % folders:03}"
        d.mkdir(parents=True, exist_ok=True)
        text = BODY.format(i=i, kind=("click", "key", "tick")[i % 3], r=i % 3)
        if i % 5000 == 17:
            text += "\nneedle_marker_7f3a = True\n"
        (d / f"mod{i}.py").write_text(text)
    (root / "build").mkdir()
    for i in range(1000):
        (root / "build" / f"gen{i}.py").write_text("needle_marker_7f3a = 1\n")
    (root / ".gitignore").write_text("build/\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)


def find_rg() -> str:
    for cand in (Path(sysconfig.get_path("scripts")) / "rg", shutil.which("rg")):
        if cand and Path(cand).is_file():
            return str(cand)
    sys.exit("no rg found (pip install ripgrep)")


def engine_for(name: str):  # type: ignore[no-untyped-def]
    if name == "re2":
        from agentci.tools.walk import Re2Walk

        return Re2Walk()
    return None  # the tool's default


async def tool_call(ctx: ToolContext, pattern: str) -> tuple[float, str]:
    tool = GrepSearch()
    start = time.perf_counter()
    result = await tool.run(GrepSearch.Args(pattern=pattern), ctx)
    return time.perf_counter() - start, result.output


def rg_call(rg: str, root: Path, pattern: str) -> float:
    start = time.perf_counter()
    subprocess.run(  # stdin closed: an rg whose stdin is a pipe searches stdin instead
        [rg, "-n", pattern], cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, check=False
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=30_000)
    parser.add_argument("--calls", type=int, default=7)
    parser.add_argument("--engine", choices=["default", "re2"], default="default")
    args = parser.parse_args()
    rg = find_rg()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        make_tree(root, args.files)
        ctx = ToolContext(workspace=root)
        engine = engine_for(args.engine)
        if engine is not None:
            ctx.search = engine
        try:
            from agentci.tools.pick_engine import default_engine

            name = (engine or default_engine()).name
        except ImportError:
            name = "git ls-files + Python re (before the engine)"
        print(f"{args.files} files (+1000 ignored), engine: {name}, rg: {rg}")
        for pattern in PATTERNS:
            asyncio.run(tool_call(ctx, pattern))  # warm the page cache and the engine
            rg_call(rg, root, pattern)
            tool_s, rg_s, ratios = [], [], []
            hits = ""
            for _ in range(args.calls):
                t, hits = asyncio.run(tool_call(ctx, pattern))
                r = rg_call(rg, root, pattern)
                tool_s.append(t)
                rg_s.append(r)
                ratios.append(t / r)
            lines = hits.count("\n") + 1
            print(
                f"{pattern!r:28} tool {statistics.median(tool_s) * 1000:8.1f} ms   "
                f"rg {statistics.median(rg_s) * 1000:7.1f} ms   "
                f"ratio {statistics.median(ratios):5.2f} "
                f"(min {min(ratios):.2f}, max {max(ratios):.2f})   {lines} output lines"
            )


if __name__ == "__main__":
    main()
