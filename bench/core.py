"""What every scenario of ``python -m bench`` shares: the figures it reports and the run state.

A :class:`Metric` holds one figure measured in pairs (agentci, then the tool compared with,
interleaved): the ratio is taken pair by pair, so a machine whose speed drifts during the run
still gives a fair ratio; the report quotes its median and min–max and the raw medians.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agentci.testing.fake_gemini import FakeGemini
from bench.bench_vs_gemini_cli import Watcher


@dataclass
class Metric:
    """One figure: agentci's samples and, pair by pair, the other tool's (None: not run)."""

    name: str
    unit: str  # "ms", "kB", "MB", "s", "" (a plain number)
    ours: list[float]
    other: list[float] | None
    other_name: str
    #: the issue's target for the ratio: ("<=", 0.5) or (">=", 0.85); None: no target
    target: tuple[str, float] | None = None

    def ratios(self) -> list[float]:
        if not self.other:
            return []
        return [a / b for a, b in zip(self.ours, self.other, strict=False) if b]

    def verdict(self) -> str:
        """``met`` / ``missed`` against the target (on the median ratio), else empty."""
        ratios = self.ratios()
        if self.target is None or not ratios:
            return ""
        op, limit = self.target
        med = statistics.median(ratios)
        ok = med <= limit if op == "<=" else med >= limit
        return "met" if ok else "missed"


@dataclass
class Section:
    """What one scenario reports."""

    title: str
    commands: list[str]
    metrics: list[Metric] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: per-turn milliseconds by turn number, per tool (for the chart); empty: no chart
    series: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class Bench:
    """The state every scenario gets: sizes, the tools, the fake server, a temp folder."""

    pairs: int
    quick: bool
    tmp: Path
    agentci: list[str]
    gemini: str | None  # None: Gemini CLI's column is skipped
    gemini_note: str
    fake: FakeGemini
    watcher: Watcher
    tree_dir: Path | None = None  # --tree: where the large tree is kept across runs

    def size(self, full: int, quick: int) -> int:
        return quick if self.quick else full

    def folder(self, name: str) -> Path:
        path = self.tmp / name
        path.mkdir(parents=True, exist_ok=True)
        return path


Scenario = Callable[[Bench], Section]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
