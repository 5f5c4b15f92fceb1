"""``bench/RESULTS.md`` and the per-turn chart from the sections the scenarios return."""

from __future__ import annotations

import statistics
from pathlib import Path

from bench.core import Metric, Section


def _num(value: float, unit: str) -> str:
    if value != value:  # NaN
        return "n/a"
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
    return f"{value:,.{digits}f} {unit}".strip()


def metric_row(m: Metric) -> str:
    ours = _num(statistics.median(m.ours), m.unit) if m.ours else "n/a"
    if m.other is None:
        return f"| {m.name} | {ours} | skipped | {m.other_name} | skipped | | |"
    other = _num(statistics.median(m.other), m.unit) if m.other else "n/a"
    ratios = m.ratios()
    ratio = (f"**{statistics.median(ratios):.2f}** ({min(ratios):.2f}–{max(ratios):.2f})"
             if ratios else "n/a")  # fmt: skip
    target = (
        f"{m.target[0].replace('<=', '≤').replace('>=', '≥')} {m.target[1]:g}" if m.target else ""
    )
    return f"| {m.name} | {ours} | {other} | {m.other_name} | {ratio} | {target} | {m.verdict()} |"


def render(sections: list[Section], head: list[str], chart: Path | None) -> str:
    lines = ["# Benchmark results (`python -m bench`)", "", *head, ""]
    lines += ["## Against the issue's targets", "",
              "| scenario | metric | ratio median | target | |", "|---|---|---|---|---|"]  # fmt: skip
    for s in sections:
        for m in s.metrics:
            if m.target and m.ratios():
                med = statistics.median(m.ratios())
                lines.append(f"| {s.title} | {m.name} | {med:.2f} | "
                             f"{m.target[0].replace('<=', '≤').replace('>=', '≥')} "
                             f"{m.target[1]:g} | {m.verdict()} |")  # fmt: skip
    for s in sections:
        lines += ["", f"## {s.title}", ""]
        lines += ["| metric | agentci (median) | other (median) | other | agentci / other: "
                  "median (min–max) | target | |", "|---|---|---|---|---|---|---|"]  # fmt: skip
        lines += [metric_row(m) for m in s.metrics]
        lines += ["", "Commands:", "", "```sh", *s.commands, "```"]
        if s.notes:
            lines += [""] + [f"- {n}" for n in s.notes]
        if s.series and chart is not None:
            lines += ["", f"Per-turn time by turn number: [{chart.name}]({chart.name})."]
    return "\n".join(lines) + "\n"


def draw_chart(sections: list[Section], path: Path) -> bool:
    """One panel per section with per-turn series; False when there is none."""
    with_series = [s for s in sections if s.series]
    if not with_series:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(with_series), 1, figsize=(9, 3.5 * len(with_series)),
                             squeeze=False)  # fmt: skip
    for ax, s in zip(axes[:, 0], with_series, strict=True):
        for label, values in s.series.items():
            ax.plot(range(2, len(values) + 2), values, label=label, linewidth=1)
        ax.set_title(s.title)
        ax.set_xlabel("turn (model request number)")
        ax.set_ylabel("ms since the previous request (median of pairs)")
        ax.set_yscale("log")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return True
