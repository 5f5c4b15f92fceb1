"""The facts the output writers share: one :class:`TaskReport` per task, one :class:`RunReport`.

The runner fills these in; patch, JUnit, result.json and summary.md are all written from
them, so every output tells the same story.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentci.events.verify_events import VerifyResult
from agentci.outcome import Status
from agentci.usage import Usage as UsageTotals


@dataclass
class TaskReport:
    """How one task ended."""

    name: str
    status: Status
    exit_code: int
    reason: str = ""
    summary: str = ""  # the model's last message
    model: str = ""
    turns: int = 0
    tool_calls: int = 0
    usage: UsageTotals = field(default_factory=UsageTotals)
    changed_files: list[str] = field(default_factory=list)
    duration_ms: int = 0
    verify: list[VerifyResult] = field(default_factory=list)  # baseline first, then attempts
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. fixed/regressed tests, guards
    output: dict[str, Any] | None = None  # the structured answer (output.schema), when valid
    context_files: list[dict[str, Any]] = field(default_factory=list)  # {path, bytes, truncated}
    history: list[dict[str, Any]] | None = None  # history.jsonl: one message each (None: none)
    resume: dict[str, Any] | None = None  # fingerprint, resumed_from, previous / all_runs totals


@dataclass
class RunReport:
    """How the whole run ended (the worst task decides)."""

    run_id: str
    recipe: str
    recipe_name: str
    status: Status
    exit_code: int
    reason: str = ""
    tasks: list[TaskReport] = field(default_factory=list)
    usage: UsageTotals = field(default_factory=UsageTotals)
    duration_ms: int = 0
    started_at: str = ""
    resumed_from: str | None = None  # agentci run --resume OUT: the earlier output folder
