"""Command tools: a recipe author's shell command offered to the model as a typed tool
(``tools.commands``, docs/tools.md).

The model sends arguments that the tool's JSON Schema validates; the command line is the
recipe's template with every ``{{ argument }}`` shell-quoted
(:mod:`agentci.recipe.shell_template`), and each argument is also in the environment as
``ARG_<NAME>``. It runs like ``run_shell_command``: in the workspace, in the sandbox when the
task has one, in its own process group (which dies with agentci, even by SIGKILL), with the
tools' environment, a timeout and capped output. The policy judges it by name (kind ``execute``: a rule must allow it, except in
``yolo``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from agentci.errors import ToolFailure
from agentci.process import run_process
from agentci.providers.base import ToolSpec
from agentci.recipe.shell_template import render_command
from agentci.recipe.tool_config import CommandTool
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult
from agentci.tools.json_args import SchemaArgs, schema_args
from agentci.tools.shell import command_result


def arg_env(values: dict[str, Any]) -> dict[str, str]:
    """``ARG_<NAME>`` for each argument: strings as they are, anything else as JSON."""
    env = {}
    for name, value in values.items():
        key = "ARG_" + re.sub(r"[^A-Za-z0-9]", "_", name).upper()
        env[key] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return env


class RecipeCommand(Tool):
    """Base of the command tools; :func:`command_tool` makes one per recipe entry."""

    kind = ToolKind.execute  # declares no access: judged by rules naming it (agentci/policy)
    config: CommandTool

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name, description=self.description, parameters=self.config.parameters
        )

    async def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        assert isinstance(args, SchemaArgs)
        values = args.values()
        try:
            command = render_command(self.config.command, values)
        except ValueError as err:
            raise ToolFailure(str(err)) from None
        timeout = self.config.timeout_seconds or ctx.timeout_seconds
        try:
            res = await run_process(
                command,
                cwd=ctx.workspace,
                env={**ctx.env, **arg_env(values)},
                timeout=timeout,
                output_cap=ctx.outputs.keep_bytes if ctx.outputs else ctx.output_cap_chars,
                sandbox=ctx.sandbox,
                die_with_parent=True,
            )
        except OSError as exc:
            raise ToolFailure(f"could not start the command: {exc}") from None
        return command_result(f"Command: {command}\n", res, timeout)


def command_tool(config: CommandTool) -> RecipeCommand:
    """The tool for one ``tools.commands`` entry."""
    cls = type(
        f"Command_{config.name}",
        (RecipeCommand,),
        {
            "name": config.name,
            "description": config.description,
            "Args": schema_args(config.parameters, f"{config.name}_args"),
            "config": config,
        },
    )
    return cls()
