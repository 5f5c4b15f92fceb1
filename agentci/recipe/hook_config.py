"""The recipe's ``hooks`` section: commands run at the stages of the loop (docs/hooks.md)."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from agentci.recipe.fields import Seconds, Strict


class Hook(Strict):
    """A recipe author's command run around matching tool calls (docs/hooks.md)."""

    matcher: str = Field(
        min_length=1,
        description="'*' (every tool) or a regular expression fully matched against the tool "
        "name: 'run_shell_command', 'write_file|replace'.",
    )
    command: str = Field(
        min_length=1,
        description="Run with bash in the workspace; a relative path as first word "
        "(./ci/check.sh) is resolved against the recipe's folder.",
    )
    timeout_seconds: Seconds = Field(
        default=30, description="A hook that runs longer is killed and the call denied."
    )

    @field_validator("matcher")
    @classmethod
    def _valid_matcher(cls, value: str) -> str:
        if value != "*":
            try:
                re.compile(value)
            except re.error as err:
                raise ValueError(f"not '*' nor a valid regular expression: {err}") from None
        return value


class StageHook(Strict):
    """A recipe author's command run at a stage of the loop that is not a tool call
    (docs/hooks.md): no ``matcher``."""

    command: str = Field(
        min_length=1,
        description="Run with bash in a private copy of the recipe's folder; a relative path "
        "as first word (./ci/check.sh) is resolved against the recipe's folder.",
    )
    timeout_seconds: Seconds = Field(
        default=30,
        description="A hook that runs longer is killed: for after_agent the task stops "
        "(blocked); for the other stages a warning.",
    )


class Hooks(Strict):
    """Commands run at the stages of the loop; see docs/hooks.md for the protocol."""

    session_start: list[StageHook] = Field(
        default_factory=list,
        description="Run once before the task's first model call; may add context.",
    )
    before_model: list[StageHook] = Field(
        default_factory=list,
        description="Run before each model call; may add context to that request only.",
    )
    before_tool: list[Hook] = Field(
        default_factory=list,
        description="Run after validation, before the policy; may deny or rewrite arguments.",
    )
    after_tool: list[Hook] = Field(
        default_factory=list, description="Run after the tool; may add a note or stop the run."
    )
    after_agent: list[StageHook] = Field(
        default_factory=list,
        description="Run when the model answers without tool calls; may accept, block (the "
        "reason goes back to the model) or stop.",
    )
    pre_compress: list[StageHook] = Field(
        default_factory=list, description="Run before the history is compressed; observes."
    )
    session_end: list[StageHook] = Field(
        default_factory=list,
        description="Run once when a task whose session started ends, however it ends.",
    )
    max_continuations: int = Field(
        default=3,
        ge=0,
        le=100,
        description="How many times in a row after_agent hooks may block an answer; one more "
        "block ends the task blocked (exit 5).",
    )

    @property
    def any(self) -> bool:
        """True when the recipe has at least one hook."""
        return any(getattr(self, stage) for stage in STAGES)


#: The hook stages, in the order a task meets them.
STAGES = (
    "session_start",
    "before_model",
    "before_tool",
    "after_tool",
    "after_agent",
    "pre_compress",
    "session_end",
)
