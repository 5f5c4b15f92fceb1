"""The model's side of a task: its tools, provider, chat, scheduler and session, made only once
the baseline verify has failed (a task whose verify already passes never loads the tools, the
provider's SDK, the agent loop or the tool scheduler, and starts no MCP server: ``agentci
pre-commit`` on a clean file stays quick)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentci.context.loop_detection import LoopDetector
from agentci.hooks.runner import HookRunner
from agentci.loop.chat import Chat
from agentci.loop.session import Session
from agentci.policy.rules import PolicyEngine
from agentci.run.prompting import task_system, task_tools
from agentci.run.resume import digest, tools_digest
from agentci.run.task_model import close_provider, price_fn, task_provider
from agentci.tools.base import Tool, ToolContext
from agentci.tools.engine import SearchEngine
from agentci.tools.scheduler import Scheduler
from agentci.tools.submit import Answer
from agentci.tools.truncation import SavedOutputs

if TYPE_CHECKING:
    from agentci.policy.sandbox import Sandbox
    from agentci.run.task import TaskRun


def agent_tools(
    task: TaskRun,
    workspace: Path,
    *,
    env: dict[str, str],
    sandbox: Sandbox | None,
    search: SearchEngine,
) -> tuple[dict[str, Tool], Answer | None, ToolContext]:
    """The task's tools by name (MCP servers add theirs once started), the answer
    ``submit_result`` collects, and what the tools act on."""
    plan = task.plan
    tools, answer = task_tools(plan, task.state, plan.tools.commands)
    outputs = SavedOutputs.for_task(plan.out_dir, plan.context, task.settings.redactor)
    ctx = ToolContext(
        workspace=workspace,
        env=env,
        timeout_seconds=plan.budget.tool_timeout_seconds,
        sandbox=sandbox,
        private_dirs=task.private_dirs(workspace),
        search=search,
        outputs=outputs,
        redact=outputs.redact,
    )
    return tools, answer, ctx


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
