"""The recipe's ``guards`` section: checks on the change when the model finishes
(docs/verify.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, PositiveInt, field_validator

from agentci.recipe.fields import Strict


class Guards(Strict):
    """Checks on the change when the model finishes."""

    allowed_paths: list[str] | None = None
    max_changed_files: PositiveInt | None = None
    max_changed_lines: PositiveInt | None = None
    forbid_test_edits: list[str] | None = Field(
        default=None, description="Globs the agent may not modify (e.g. tests/**)."
    )
    weakened_tests: Literal["on", "report", "off"] | None = Field(
        default=None,
        description="Tests skipped, removed, emptied or deselected by the change: 'on' fails "
        "the task, 'report' lists them, 'off' does not look. Default: 'on' when verify reports "
        "per-test results (runner: pytest or junit:), else 'off' (docs/verify.md).",
    )

    @field_validator("weakened_tests", mode="before")
    @classmethod
    def _yaml_on_off(cls, value: object) -> object:
        """YAML reads a bare ``on`` / ``off`` as true / false: take them as meant."""
        if value is True:
            return "on"
        if value is False:
            return "off"
        return value
