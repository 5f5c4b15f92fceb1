"""Where a task's commands run: its sandboxes, what it says when it has none, and its setup.

Every sandbox a task makes is kept here and removed when the task ends (:meth:`cleanup`).
Without a sandbox, ``sandbox: auto`` that fell back narrows the policy's powers and
``sandbox: none`` with secrets in reach warns; both are a ``warning`` event and a line in
summary.md (:attr:`TaskSandboxes.note`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agentci.errors import InvalidInput
from agentci.events import types as ev
from agentci.policy.rules import PolicyEngine
from agentci.policy.sandbox import bwrap_problem, make_sandbox
from agentci.policy.unsandboxed import FALLBACK_NOTE, secrets_warning
from agentci.process import run_process
from agentci.spec import TaskSpec

if TYPE_CHECKING:
    from agentci.policy.sandbox import Sandbox


class TaskSandboxes:
    """The sandboxes of one task (see the module docstring)."""

    def __init__(
        self, spec: TaskSpec, recipe_path: Path | None, emit: Callable[[ev.Event], object]
    ) -> None:
        self.spec = spec
        self.recipe_path = recipe_path
        self.emit = emit
        self.boxes: list[Sandbox] = []  # their placeholders go when the task ends
        self.note = ""  # why the agent's commands ran without a sandbox (summary.md)

    def make(
        self, workspace: Path, policy: PolicyEngine, network: bool, host_sockets: bool
    ) -> tuple[Sandbox | None, str | None]:
        """A sandbox for this task, and why there is none when ``sandbox: auto`` fell back."""
        box, warning = make_sandbox(
            self.spec.sandbox,
            workspace=workspace,
            network=network,
            host_sockets=host_sockets,
            readonly=policy.sandbox_readonly(),
            protect_workflows=not policy.workflows_allowed("run_shell_command"),
        )
        if box is not None:
            self.boxes.append(box)
        return box, warning

    def without(self, policy: PolicyEngine, fell_back: str | None) -> None:
        """Say so when the agent's commands run without a sandbox (the module docstring)."""
        if fell_back:
            policy.no_sandbox = bwrap_problem() or fell_back
            self.note = fell_back + FALLBACK_NOTE
            self.emit(ev.WarningEvent(kind="sandbox_unavailable", message=self.note))
        elif self.spec.sandbox == "none":
            note = secrets_warning(os.environ)
            if note:
                self.note = note
                self.emit(ev.WarningEvent(kind="secrets_without_sandbox", message=note))

    async def setup(
        self, workspace: Path, env: dict[str, str], hook_scripts: list[Path], *, first: bool
    ) -> None:
        """The recipe's setup commands, outside the policy; a failure ends the task.

        The first task's setup runs on the host (the checkout as the job made it); a later
        task's runs in the sandbox when the earlier agent's work is there (``isolation:
        none``; ``copy`` and ``worktree`` start again from the untouched original), with
        ``setup.network`` and ``setup.host_sockets`` (both off unless set).
        """
        config = self.spec.setup
        sandbox = None
        touched = not first and self.spec.workspace.isolation == "none"
        if config.commands and touched:
            policy = PolicyEngine.from_recipe(
                self.spec.policy, workspace=workspace, recipe_path=self.recipe_path
            )
            policy.protected.reals.extend(hook_scripts)
            sandbox, _ = self.make(workspace, policy, config.network, config.host_sockets)
        for command in config.commands:
            result = await run_process(
                command,
                cwd=workspace,
                env=env,
                timeout=self.spec.budget.tool_timeout_seconds,
                output_cap=8000,
                sandbox=sandbox,
            )
            if result.exit_code != 0:
                tail = result.output[-2000:]
                why = "timed out" if result.timed_out else f"exit {result.exit_code}"
                raise InvalidInput(f"setup command failed ({why}): {command}\n{tail}")

    def cleanup(self) -> None:
        """Remove every sandbox's placeholders."""
        for box in self.boxes:
            box.cleanup()
