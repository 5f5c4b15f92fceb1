"""The model's side of a task: provider, chat, scheduler and session, made only once the
baseline verify has failed (a task whose verify already passes never loads the provider's SDK,
the agent loop or the tool scheduler: ``agentci pre-commit`` on a clean file stays quick)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentci.context.loop_detection import LoopDetector
from agentci.hooks.runner import HookRunner
from agentci.loop.chat import Chat
from agentci.loop.session import Session
from agentci.policy.rules import PolicyEngine
from agentci.run.prompting import task_system
from agentci.run.resume import digest, tools_digest
from agentci.run.task_model import close_provider, price_fn, task_provider
from agentci.tools.base import Tool, ToolContext
from agentci.tools.scheduler import Scheduler
from agentci.tools.submit import Answer

if TYPE_CHECKING:
    from agentci.run.task import TaskRun


def new_session(
    task: TaskRun,
    *,
    workspace: Path,
    tools: dict[str, Tool],
    policy: PolicyEngine,
    ctx: ToolContext,
    hooks: HookRunner,
    answer: Answer | None,
) -> Session:
    """The task's session; its provider is closed with the task (``task.closers``)."""
    plan = task.plan
    provider = task_provider(plan, task.settings)
    task.closers.append(lambda: close_provider(provider, task.emit))
    specs, system = [t.spec() for t in tools.values()], task_system(plan, workspace, tools)
    task.fingerprint.update(tools=tools_digest(specs), system=digest(system))  # --resume
    return Session(
        chat=Chat(provider, plan.model),
        scheduler=Scheduler(tools, policy, ctx, hooks if hooks else None),
        tools=specs,
        system=system,
        model=plan.model,
        budget=task.budget,
        price=price_fn(plan),
        state=task.state,
        context=plan.context,
        loops=LoopDetector(plan.loop_detection),
        answer=answer,
    )
