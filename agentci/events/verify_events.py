"""Verify events: the verify command's result, with the tests and failure locations it saw."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentci.events.envelope import EventBase


class VerifyTest(BaseModel):
    """One test as verify saw it."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # built on first use

    id: str
    outcome: Literal["passed", "failed", "error", "skipped"]
    message: str = ""


class VerifyLocation(BaseModel):
    """A failure the verify command reported at a place of the workspace: a failed test's
    traceback line, a linter's diagnostic (agentci.verify.locations)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # built on first use

    file: str
    line: int
    message: str
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    rule: str = ""
    tool: str = "verify"
    level: Literal["error", "warning"] = "error"


class VerifyResult(EventBase):
    """The verify command ran (phase ``baseline`` or ``attempt``)."""

    type: Literal["verify_result"] = "verify_result"
    phase: Literal["baseline", "attempt"]
    scope: Literal["full", "failing_first"] = Field(
        default="full",
        description="full: the verify command as it is; failing_first: only the tests that "
        "failed before and those of the changed files ran (verify.strategy), so this run "
        "does not decide the task unless it failed.",
    )
    attempt: int = 0
    command: str
    exit_code: int | None
    passed: bool
    counts: dict[str, int] = Field(default_factory=dict)
    tests: list[VerifyTest] = Field(default_factory=list)
    changes: dict[str, list[str]] = Field(default_factory=dict)
    output_tail: str = ""
    duration_ms: int = 0
    locations: list[VerifyLocation] = Field(
        default_factory=list, description="Where a failed run's failures are (at most 1000)."
    )
