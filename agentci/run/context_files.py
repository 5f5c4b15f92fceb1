"""The project context files of a task (AGENTS.md, …; docs/project-context.md), loaded after
the baseline verify for ``task_started`` and the first prompt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentci.context.memory import ProjectContext, load_context
from agentci.events import types as ev
from agentci.spec import TaskSpec


def task_context(
    plan: TaskSpec, workspace: Path, prompt: str, emit: Callable[[ev.Event], object]
) -> ProjectContext:
    """Load the project context files for ``prompt``; each file refused is a ``warning`` event
    of kind ``context_file_skipped``."""
    context = load_context(workspace, plan.project_context, prompt)
    for path, why in context.skipped:
        emit(ev.WarningEvent(kind="context_file_skipped", message=f"{path}: {why}"))
    return context
