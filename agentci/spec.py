"""A task's settings, resolved once: the one value a task is run from.

:class:`TaskSpec` is built in the plan (:func:`agentci.run.plan.plan_tasks`): the recipe's
defaults, the task's own values on top, templates rendered (except the prompt, which may use
``verify`` results known only once the baseline has run), files the recipe names loaded, and the
command line's budget values (``--max-turns``, ``--max-cost``, ``--timeout``) applied there, once,
on top of everything. The task and everything below it read the spec, never the raw recipe.

A plain value at the bottom of the house: it imports nothing of agentci at run time (the recipe
sections it holds are typed for the checker only).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from agentci.recipe.budget_config import Budget
    from agentci.recipe.guards_config import Guards
    from agentci.recipe.hook_config import Hooks
    from agentci.recipe.loops import LoopDetection
    from agentci.recipe.model_config import ModelConfig
    from agentci.recipe.policy_config import Policy
    from agentci.recipe.schema import Context, ContextFiles, Setup, Workspace
    from agentci.recipe.tool_config import Tools
    from agentci.recipe.verify_config import Verify


@dataclass(frozen=True)
class TaskSpec:
    """Everything one task needs, resolved (see the module docstring)."""

    name: str
    prompt_template: str
    instructions: str
    model: ModelConfig
    verify: Verify | None
    budget: Budget
    guards: Guards
    allow_no_changes: bool
    out_dir: Path
    values: dict[str, Any]
    policy: Policy
    workspace: Workspace
    setup: Setup
    sandbox: Literal["auto", "bwrap", "none"]
    hooks: Hooks
    context: Context  # the context window: compression, masking, saved outputs
    loop_detection: LoopDetection
    tools: Tools  # the recipe's own tools: MCP servers and commands
    project_context: ContextFiles | bool = True  # AGENTS.md & co (agentci/context/memory.py)
    system_replace: str | None = None  # system_prompt, read and rendered
    system_append: str = ""
    output_schema: dict[str, Any] | None = None  # output.schema, loaded
    output_attempts: int = 3
    several: bool = False  # one of several tasks (``--record FILE`` then makes one per task)

    @property
    def mode(self) -> str:
        """The policy's mode (the system prompt names it)."""
        return self.policy.mode
