"""The agent's part of a task, once the baseline verify has failed: the tools, MCP servers and
session (loaded only now), the snapshot the patch is taken against, ``--resume``'s earlier patch
and history, then rounds of the session and verify's follow-up prompts (docs/verify.md).

A task whose verify already passes never gets here: it loads no tools, no provider SDK and no
agent loop, and starts no MCP server.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from agentci.change.patch import ChangeTracker
from agentci.run.start_baseline import pin_start
from agentci.run.task_resume import disclose_masked, resume_workspace, warn_restart
from agentci.verify.kept import keep_ignored

if TYPE_CHECKING:
    from agentci.context.memory import ProjectContext
    from agentci.hooks.runner import HookRunner
    from agentci.loop.session import Session
    from agentci.policy.rules import PolicyEngine
    from agentci.policy.sandbox import Sandbox
    from agentci.run.task import TaskRun
    from agentci.tools.engine import SearchEngine


async def run_agent(
    task: TaskRun,
    workspace: Path,
    *,
    env: dict[str, str],
    sandbox: Sandbox | None,
    search: SearchEngine,
    policy: PolicyEngine,
    hooks: HookRunner,
    prompt: str | None,
    context: ProjectContext,
) -> None:
    """Build the model's side of ``task`` and run it on ``workspace`` until verify is content
    or the attempts run out."""
    # deferred: MCP servers start only when the model will call them
    from agentci.run.task_mcp import mcp_servers

    # deferred: the tools, the provider's SDK and the agent loop load only for the model
    from agentci.run.task_session import agent_tools, new_session

    plan = task.plan
    tools, answer, ctx = agent_tools(task, workspace, env=env, sandbox=sandbox, search=search)
    redactor, emit = task.settings.redactor, task.emit
    async with mcp_servers(plan, workspace=workspace, env=env, sandbox=sandbox, tools=tools,
                           redactor=redactor, emit=emit):  # fmt: skip
        # the model is needed only now: a missing key does not stop a run whose work is done
        session = new_session(task, workspace=workspace, tools=tools, policy=policy, ctx=ctx,
                              hooks=hooks, answer=answer)  # fmt: skip
        await _rounds(task, session, workspace, prompt, context)


async def _rounds(
    task: TaskRun, session: Session, workspace: Path, prompt: str | None, context: ProjectContext
) -> None:
    """The patch baseline, then the session; after each, guards + verify decide whether the
    model gets a follow-up prompt or the task is done (docs/verify.md)."""
    check = task.check
    assert check is not None
    previous, task.settings.handover = task.settings.handover, None
    if previous is not None and not _nothing_ran_yet(task):
        previous.baseline.cleanup()
        previous = None
    tracker = await ChangeTracker.start(
        workspace, exclude=task.private_dirs(workspace), deadline=task.git_deadline(),
        activity=partial(activity, task), previous=previous,
    )  # fmt: skip
    task.fingerprint["base_tree"] = tracker.baseline.tree
    if task.prepared is not None and task.prepared.isolation == "none":
        pin_start(task.settings, tracker.baseline)  # the user's files, until patch.diff
    point = task.resume_point if task.resume_point and task.resume_point.continued else None
    if task.resume_point is not None:
        warn_restart(task, task.resume_point)
    if point is not None:  # --resume: the earlier patch on the workspace, its history
        task.state.messages = list(point.history)
        try:
            await resume_workspace(task, point, tracker, workspace)
        except BaseException:
            tracker.cleanup()
            raise
        task.resumed = True
        disclose_masked(task, point)
    task.tracker = tracker
    if task.plan.guards.allowed_paths is not None or check.weakened.active:
        # ignored files are put back after (allowed_paths), or stand in for the agent's
        # versions while verify decides (weakened_tests: agentci.verify.set_aside)
        await asyncio.to_thread(keep_ignored, tracker.baseline)
    check.tracker = tracker
    check.reverts.in_place = task.prepared is not None and task.prepared.isolation == "none"
    block = context.block()  # the project context goes with the first prompt only
    while prompt is not None:
        tracker.agent_started()
        turns = session.resume() if point is not None else session.run(prompt, context=block)
        async for event in turns:
            task.emit(event)
        prompt, block, point = await check.after_agent(), "", None


def activity(task: TaskRun) -> object:
    """What could have written the workspace so far (tool calls, verify runs), equal between
    two moments only when nothing did (a new object each time when that cannot be known: no
    sandbox, hooks or MCP servers, whose processes run beside the agent)."""
    if task.settings.unsandboxed or task.hooks or task.plan.tools.mcp_servers:
        return object()
    runs = task.check.runs if task.check is not None else None
    return (task.state.calls_started, runs.started if runs is not None else 0)


def _nothing_ran_yet(task: TaskRun) -> bool:
    """True when ``task`` ran nothing in the workspace before its baseline (no setup command,
    no baseline verify): the last task's end is still what is on disk."""
    runs = task.check.runs if task.check is not None else None
    return (
        not task.plan.setup.commands and (runs is None or runs.started == 0)
        and not task.settings.unsandboxed and not task.hooks
    )  # fmt: skip
