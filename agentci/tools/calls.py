"""One tool call, before and without the scheduler's hooks and policy: made ready
(:func:`prepare`: its tool found, its arguments validated) and run (:func:`execute`: the
tool's timeout, any failure a tool error, names that are not UTF-8 and the run's secrets
masked in the result). :mod:`agentci.tools.scheduler` runs a turn's calls through both.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel, ValidationError

from agentci.errors import ToolFailure
from agentci.providers.base import ToolCallPart
from agentci.tools.arg_depth import refusal
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult
from agentci.tools.not_utf8 import for_model


@dataclass
class Prepared:
    """A call with its tool and validated arguments, or the error the model gets instead."""

    call: ToolCallPart
    tool: Tool | None = None
    args: BaseModel | None = None
    error: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)  # the policy's additions (git pinned)
    confine: bool = False  # only built-in read-only commands: the confined sandbox
    notes: list[str] = field(default_factory=list)  # before_tool hooks' (a rewrite) for the model


def format_validation(exc: ValidationError) -> str:
    """The tool error for arguments the tool's model refused: each field and what is wrong."""
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "arguments"
        parts.append(f"{loc}: {err['msg']}")
    return "invalid arguments: " + "; ".join(parts)


def prepare(tools: Mapping[str, Tool], call: ToolCallPart) -> Prepared:
    """Find the tool and validate the arguments."""
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(tools))
        return Prepared(call, error=f"unknown tool {call.name!r}; available: {known}")
    too_deep = refusal(call.args)
    if too_deep is not None:
        return Prepared(call, tool=tool, error=tool.refuse(too_deep))
    try:
        args = tool.Args.model_validate(call.args or {})
    except ValidationError as exc:
        return Prepared(call, tool=tool, error=format_validation(exc))
    return Prepared(call, tool=tool, args=args)


async def execute(p: Prepared, ctx: ToolContext) -> tuple[ToolResult, int]:
    """Run a prepared call in ``ctx``; its result and its time in ms. Never raises except for
    cancellation."""
    start = time.monotonic()
    if p.error is not None:
        return ToolResult(error=p.error), 0
    assert p.tool is not None and p.args is not None
    if p.env:
        ctx = dataclasses.replace(ctx, env={**ctx.env, **p.env})
    if p.confine and hasattr(ctx.sandbox, "confined"):  # a Sandbox (agentci.policy.sandbox)
        ctx = dataclasses.replace(ctx, sandbox=ctx.sandbox.confined(ctx.env))
    try:
        if p.tool.kind is ToolKind.execute:
            result = await p.tool.run(p.args, ctx)
        else:
            result = await asyncio.wait_for(p.tool.run(p.args, ctx), ctx.timeout_seconds)
    except ToolFailure as exc:
        result = ToolResult(error=str(exc))
    except asyncio.TimeoutError:
        result = ToolResult(error=f"timed out after {ctx.timeout_seconds:g}s")
    except Exception as exc:  # a tool bug must not end the run
        result = ToolResult(error=f"{type(exc).__name__}: {exc}")
    # names that are not UTF-8: U+FFFD and a note, never a lone surrogate (not_utf8)
    result.output = for_model(result.output) if result.output else result.output
    result.error = for_model(result.error) if result.error else result.error
    if ctx.redact is not None:
        # once per output: the model, the after_tool hooks and the events all get this text
        result.output = ctx.redact(result.output) if result.output else result.output
        result.error = ctx.redact(result.error) if result.error else result.error
    return result, int((time.monotonic() - start) * 1000)
