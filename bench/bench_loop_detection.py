"""Cost of the loop detectors: early vs late in a long session, as ratios.

* Tool-call cycles: microseconds per observed call over calls 1-100 vs calls 9,901-10,000 of
  one session whose calls never repeat (the worst case: every cycle length is checked).
* Content: microseconds per streamed kilobyte of prose over the first 10 kB vs the last
  10 kB of a 1 MB answer that never repeats itself (streamed in 40-character chunks).
* Judge transcript: milliseconds to build the judge's request after 30 vs 3,000 messages
  (it reads only the last 20 messages, each part capped).

Each ratio should stay close to 1: no detector does work that grows with the history.

    python bench/bench_loop_detection.py [--calls 10000] [--kb 1000]
"""

from __future__ import annotations

import argparse
import random
import string
import time

from agentci.context.content_loops import ContentLoops
from agentci.context.loop_judge import transcript
from agentci.context.tool_cycles import ToolCycles
from agentci.providers.base import Message, TextPart, ToolCallPart, ToolResultPart


def bench_calls(n: int) -> tuple[float, float]:
    detector = ToolCycles()
    calls = [
        ToolCallPart(id=str(i), name="read_file", args={"file_path": f"src/m{i}.py"})
        for i in range(n)
    ]
    times = []
    for c in calls:
        t = time.perf_counter()
        assert detector.observe(c) is None
        times.append(time.perf_counter() - t)
    return sum(times[:100]) / 100 * 1e6, sum(times[-100:]) / 100 * 1e6


def prose(kb: int) -> str:
    rng = random.Random(1)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(5000)]
    text = []
    size = 0
    while size < kb * 1024:
        sentence = " ".join(rng.choices(words, k=rng.randint(6, 14))).capitalize() + ". "
        text.append(sentence)
        size += len(sentence)
    return "".join(text)


def bench_content(kb: int) -> tuple[float, float]:
    text = prose(kb)
    detector = ContentLoops()
    pieces = [text[i : i + 40] for i in range(0, len(text), 40)]
    per_piece = []
    for p in pieces:
        t = time.perf_counter()
        assert detector.feed(p) is None
        per_piece.append(time.perf_counter() - t)
    span = 10 * 1024 // 40
    return sum(per_piece[:span]) / 10 * 1e6, sum(per_piece[-span:]) / 10 * 1e6


def history(messages: int) -> list[Message]:
    out = [Message("user", [TextPart("Fix the tests.")])]
    for i in range(messages // 2):
        out.append(Message("model", [ToolCallPart(str(i), "read_file", {"file_path": f"m{i}.py"})]))
        out.append(Message("user", [ToolResultPart(str(i), "read_file", "x = 1\n" * 2000)]))
    return out


def bench_transcript(short: int, long: int, rounds: int = 200) -> tuple[float, float]:
    result = []
    for n in (short, long):
        h = history(n)
        t = time.perf_counter()
        for _ in range(rounds):
            transcript(h[-20:])
        result.append((time.perf_counter() - t) / rounds * 1e3)
    return result[0], result[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--kb", type=int, default=1_000)
    args = parser.parse_args()
    early, late = bench_calls(args.calls)
    print("| detector | early | late | late / early |")
    print("|---|---|---|---|")
    print(
        f"| tool-call cycles (µs per call, calls 1-100 vs last 100 of {args.calls:,}) "
        f"| {early:.2f} | {late:.2f} | **{late / early:.2f}x** |"
    )
    early, late = bench_content(args.kb)
    print(
        f"| content (µs per kB streamed, first vs last 10 kB of {args.kb:,} kB) "
        f"| {early:.1f} | {late:.1f} | **{late / early:.2f}x** |"
    )
    early, late = bench_transcript(30, 3000)
    print(
        f"| judge transcript (ms per request, 30 vs 3,000 messages) "
        f"| {early:.3f} | {late:.3f} | **{late / early:.2f}x** |"
    )


if __name__ == "__main__":
    main()
