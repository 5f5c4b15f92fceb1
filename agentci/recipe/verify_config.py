"""The recipe's ``verify`` section: the recipe author's check of the result (docs/verify.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, PositiveInt, field_validator

from agentci.recipe.fields import Seconds, Strict


class Verify(Strict):
    """The recipe author's check of the result (not subject to the agent's policy)."""

    command: str = Field(min_length=1)
    junit: str | None = Field(
        default=None,
        description="A JUnit file the command writes, relative to the workspace "
        "(a read-only folder such as .agentci/ is made writable for it).",
    )
    runner: Literal["pytest"] | None = Field(
        default=None, description="pytest: agentci adds --junitxml itself."
    )
    attempts: PositiveInt = 3
    rerun_failures: int = Field(default=1, ge=0)
    timeout_seconds: Seconds = 600
    baseline: bool = Field(default=True, description="Run verify once before the agent starts.")
    network: bool | None = Field(
        default=None,
        description="Network for the verify command in the sandbox (default: policy.network).",
    )
    host_sockets: bool | None = Field(
        default=None,
        description="Host Unix sockets for the verify command (default: policy.host_sockets).",
    )
    skip_if_passing: bool = Field(
        default=True, description="End at once when the baseline already passes."
    )
    strategy: Literal["full", "failing_first"] | None = Field(
        default=None,
        description="failing_first (the default with runner: pytest): between attempts, run "
        "the tests that failed at the baseline and those in changed files first, the full "
        "suite only when they pass; full: the whole command every time. Other runners: full.",
    )

    @field_validator("junit")
    @classmethod
    def _junit_in_the_workspace(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = [p for p in value.replace("\\", "/").split("/") if p not in ("", ".")]
        if value.startswith("/") or ".." in parts or not parts:
            raise ValueError("junit must be a file path relative to the workspace, without '..'")
        return value
