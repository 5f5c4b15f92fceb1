"""What a task tells the model, put together for :class:`~agentci.run.task.TaskRun` once the
baseline verify has failed: the tools (with ``submit_result`` when the recipe wants a structured
answer) and the system prompt. The project context files: :mod:`agentci.run.context_files`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentci.loop.prompts import PromptFacts, system_prompt
from agentci.loop.state import State
from agentci.recipe.tool_config import CommandTool
from agentci.spec import TaskSpec
from agentci.tools.base import Tool
from agentci.tools.command import command_tool
from agentci.tools.registry import default_tools
from agentci.tools.submit import Answer, SubmitResult


def task_tools(
    plan: TaskSpec, state: State, commands: Sequence[CommandTool] = ()
) -> tuple[dict[str, Tool], Answer | None]:
    """The task's tools by name — the built-in ones and the recipe's ``commands`` —, and the
    answer ``submit_result`` collects (None without ``output``). MCP servers' tools are added
    once the servers have started (:mod:`agentci.tools.mcp.servers`)."""
    tools = default_tools()
    for config in commands:
        tools[config.name] = command_tool(config)
    if plan.output_schema is None:
        return tools, None
    answer = Answer(plan.output_schema, plan.output_attempts, state)
    submit = SubmitResult(answer)
    tools[submit.name] = submit
    return tools, answer


def task_system(plan: TaskSpec, workspace: Path, tools: dict[str, Tool]) -> str:
    """The task's system instruction (agentci's prompt, or the recipe's replacement)."""
    facts = PromptFacts(
        workspace=str(workspace),
        tools=tools.values(),
        mode=plan.mode,
        verify=plan.verify,
        guards=plan.guards,
        submit_tool=SubmitResult.name if plan.output_schema is not None else None,
    )
    return system_prompt(
        facts,
        instructions=plan.instructions,
        replace=plan.system_replace,
        append=plan.system_append,
    )
