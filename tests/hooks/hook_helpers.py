"""Helpers for the hook tests: hook scripts in a recipe folder, a scheduler that runs them."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from agentci.hooks.runner import HookRunner
from agentci.policy.env import child_env
from agentci.policy.rules import PolicyEngine
from agentci.providers.base import ToolCallPart, ToolResultPart
from agentci.recipe.hook_config import Hooks
from agentci.recipe.policy_config import Policy
from agentci.tools.base import ToolContext
from agentci.tools.registry import default_tools
from agentci.tools.scheduler import Scheduler

PY = sys.executable


def script(folder: Path, name: str, body: str) -> Path:
    """An executable Python hook script ``folder/name`` (the test's own interpreter)."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{PY}\n" + body)
    path.chmod(0o755)
    return path


def scheduler(
    ws: Path, recipe_dir: Path, hooks: dict[str, Any], *, mode: str = "yolo"
) -> Scheduler:
    """A scheduler on ``ws`` with the real tools, ``mode``'s policy and these hooks."""
    runner = HookRunner(
        Hooks.model_validate(hooks),
        workspace=ws,
        env=child_env(),
        recipe_dir=recipe_dir,
        task="t",
    )
    engine = PolicyEngine.from_recipe(Policy(mode=mode), workspace=ws, recipe_path=None)
    ctx = ToolContext(workspace=ws.resolve(), env=child_env())
    return Scheduler(default_tools(), engine, ctx, runner)


def run_batch(
    s: Scheduler, calls: list[ToolCallPart], events: list[Any] | None = None
) -> tuple[list[Any], list[ToolResultPart]]:
    """Run one turn's calls; return the events (also collected in ``events`` when given,
    so they survive an exception) and the results the model would read."""
    batch = s.batch(calls)
    events = [] if events is None else events

    async def go() -> None:
        async for event in batch:
            events.append(event)

    asyncio.run(go())
    return events, batch.results


def of_type(events: list[Any], type_: str) -> list[Any]:
    return [e for e in events if e.type == type_]
