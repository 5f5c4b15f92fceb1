"""The recipe's ``policy`` section: what the agent may do without a human (docs/policy.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agentci.recipe.fields import Strict


class Rule(Strict):
    """One policy rule; deny beats allow, no match falls back to the mode."""

    tool: str | list[str] = "*"
    command: str | None = Field(default=None, description="Command prefix (run_shell_command).")
    path: str | list[str] | None = Field(default=None, description="Path globs (file tools).")
    decision: Literal["allow", "deny"]
    reason: str = ""


class Policy(Strict):
    """What the agent may do without a human: the mode's defaults plus rules."""

    mode: Literal["read_only", "auto_edit", "yolo"] = "auto_edit"
    rules: list[Rule] = Field(default_factory=list)
    network: bool = Field(default=False, description="TCP/UDP and DNS for the agent's commands.")
    host_sockets: bool = Field(
        default=False,
        description="Let the agent's commands reach the host's Unix sockets (docker.sock, …).",
    )
    env_passthrough: list[str] = Field(
        default_factory=list, description="Environment variables tools may see."
    )
