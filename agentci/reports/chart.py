"""The tokens-and-cost-per-turn chart of report.html, as numbers for an inline SVG.

One stacked bar per turn (input tokens below, output and thinking tokens above, on the left
scale) and a line of the turn's cost (on the right scale, when a price is known). Everything is
computed here; the template only draws rectangles, a polyline and labels. The chart has a fixed
``viewBox`` and scales with the page; with many turns the bars get thinner, never more numerous
than :data:`MAX_BARS` (beyond that, consecutive turns share a bar).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

WIDTH, HEIGHT = 720, 220
LEFT, RIGHT, TOP, BOTTOM = 56, 64, 16, 28
MAX_BARS = 200


@dataclass
class Bar:
    label: str  # "turn 3" or "turns 3–5"
    x: float
    width: float
    input_y: float
    input_h: float
    output_y: float
    output_h: float
    tip: str  # the tooltip


@dataclass
class Chart:
    bars: list[Bar] = field(default_factory=list)
    cost_points: str = ""  # the polyline's points, "" when no cost is known
    max_tokens: int = 0
    max_cost: float | None = None
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right_x: int = WIDTH - RIGHT
    top: int = TOP
    base_y: int = HEIGHT - BOTTOM
    first_label: str = ""
    last_label: str = ""


def _groups(rows: Sequence[tuple[int, int, int, float | None]]) -> list[list[tuple]]:
    size = -(-len(rows) // MAX_BARS)  # ceil
    return [list(rows[i : i + size]) for i in range(0, len(rows), size)]


def build_chart(rows: Sequence[tuple[int, int, int, float | None]]) -> Chart | None:
    """The chart of ``(turn, input, output, cost)`` rows (see timeline.turn_usage), or None
    when there was no model call."""
    if not rows:
        return None
    groups = []
    for group in _groups(rows):
        first, last = group[0][0], group[-1][0]
        costs = [r[3] for r in group if r[3] is not None]
        groups.append(
            (
                f"turn {first}" if first == last else f"turns {first}–{last}",
                sum(r[1] for r in group),
                sum(r[2] for r in group),
                sum(costs) if costs else None,
            )
        )
    chart = Chart()
    plot_w = chart.right_x - chart.left
    plot_h = chart.base_y - chart.top
    chart.max_tokens = max(max(g[1] + g[2] for g in groups), 1)
    known = [g[3] for g in groups if g[3] is not None]
    chart.max_cost = max(known) if known else None
    slot = plot_w / len(groups)
    width = min(max(slot * 0.7, 1.0), 48.0)
    points = []
    for i, (label, inp, out, cost) in enumerate(groups):
        x = chart.left + i * slot + (slot - width) / 2
        input_h = plot_h * inp / chart.max_tokens
        output_h = plot_h * out / chart.max_tokens
        price = "no known price" if cost is None else f"${cost:.4f}"
        chart.bars.append(
            Bar(
                label=label,
                x=round(x, 2),
                width=round(width, 2),
                input_y=round(chart.base_y - input_h, 2),
                input_h=round(input_h, 2),
                output_y=round(chart.base_y - input_h - output_h, 2),
                output_h=round(output_h, 2),
                tip=f"{label}: {inp:,} input + {out:,} output tokens, {price}",
            )  # fmt: skip
        )
        if cost is not None and chart.max_cost:
            y = chart.base_y - plot_h * cost / chart.max_cost
            points.append(f"{x + width / 2:.2f},{y:.2f}")
    chart.cost_points = " ".join(points)
    chart.first_label, chart.last_label = groups[0][0], groups[-1][0]
    return chart
