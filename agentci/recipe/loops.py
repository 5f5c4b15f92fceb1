"""The recipe's ``loop_detection`` section (docs/loop-detection.md)."""

from __future__ import annotations

import re

from pydantic import Field, PositiveInt, field_validator

from agentci.recipe.fields import Strict

#: Model names the judge may use: a Gemini (or Gemma) model, asked through the task's provider.
JUDGE_MODEL = re.compile(r"^(models/)?(gemini|gemma|learnlm)-[\w.-]+$")


class ModelCheck(Strict):
    """The model-judged check: every few turns, a model reads the recent history and says
    whether the session is stuck (off by default; its tokens count toward every budget)."""

    enabled: bool = False
    model: str | None = Field(
        default=None,
        description="The model that judges (default: the task's model); a cheaper one such as "
        "gemini-2.5-flash-lite is usually enough. Asked through the task's provider.",
    )
    after_turns: PositiveInt = Field(default=30, description="The first check, at this turn.")
    every_turns: PositiveInt = Field(default=10, description="Then every this many turns.")
    min_confidence: float = Field(
        default=0.9, ge=0, le=1, description="A verdict this confident counts as a loop."
    )

    @field_validator("model")
    @classmethod
    def _gemini(cls, value: str | None) -> str | None:
        if value is not None and not JUDGE_MODEL.match(value):
            raise ValueError(
                f"{value!r} is not a model the judge can use: name a Gemini model "
                "(gemini-2.5-flash-lite, …), asked through the task's provider"
            )
        return value


class LoopDetection(Strict):
    """Which loop detectors run; a detection nudges the model once, the next ends the task
    ``loop_detected`` (exit 4)."""

    tool_calls: bool = Field(
        default=True, description="The last 5·k tool calls repeat one cycle of k = 1..5 calls."
    )
    content: bool = Field(
        default=True, description="The streamed answer repeats the same text (prose only)."
    )
    no_progress: bool = Field(
        default=True,
        description="Two verify attempts in a row with the same failures end the task "
        "verify_failed (reason no_progress) without spending the remaining attempts.",
    )
    model_check: ModelCheck = Field(default_factory=ModelCheck)
