"""A session with the real tools, saved outputs and context settings, driven by a scripted
model (for the context tests)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentci.events import types as ev
from agentci.loop.budget import BudgetTracker
from agentci.loop.chat import Chat
from agentci.loop.session import Session
from agentci.policy.rules import PolicyEngine
from agentci.providers.scripted import ScriptedProvider
from agentci.recipe.budget_config import Budget
from agentci.recipe.model_config import ModelConfig, RetryConfig
from agentci.recipe.policy_config import Policy
from agentci.recipe.schema import Context
from agentci.reports.redact import Redactor
from agentci.tools.base import ToolContext
from agentci.tools.registry import default_tools
from agentci.tools.scheduler import Scheduler
from agentci.tools.truncation import SavedOutputs

NO_WAIT = RetryConfig(initial_delay_seconds=0, max_delay_seconds=0)


def context_session(
    repo: Path,
    out: Path,
    provider: ScriptedProvider,
    *,
    context: Context | None = None,
    window: int | None = None,
    budget: Budget | None = None,
    secrets: tuple[str, ...] = (),
) -> Session:
    """A session on ``repo`` whose tool outputs are saved under ``out`` (secrets redacted)."""
    tools = default_tools()
    model = ModelConfig(name="scripted", context_window=window, retry=NO_WAIT)
    config = context or Context()
    outputs = SavedOutputs.for_task(out, config, Redactor(secrets))
    return Session(
        chat=Chat(provider, model),
        scheduler=Scheduler(
            tools,
            PolicyEngine.from_recipe(Policy(mode="yolo"), workspace=repo, recipe_path=None),
            ToolContext(workspace=repo.resolve(), outputs=outputs),
        ),
        tools=[t.spec() for t in tools.values()],
        system="system prompt",
        model=model,
        budget=BudgetTracker(budget or Budget()),
        price=lambda model, usage: None,
        context=config,
    )


def run(session: Session, prompt: str) -> list[ev.Event]:
    """Run ``prompt`` to the end; the events (a StopRun propagates)."""

    async def collect() -> list[ev.Event]:
        return [e async for e in session.run(prompt)]

    return asyncio.run(collect())


def run_until_stop(session: Session, prompt: str) -> tuple[list[ev.Event], Exception | None]:
    """Run ``prompt``; the events seen and the exception that ended the run, if any."""
    events: list[ev.Event] = []

    async def collect() -> None:
        async for e in session.run(prompt):
            events.append(e)

    try:
        asyncio.run(collect())
    except Exception as exc:  # noqa: BLE001 - the caller asserts on it
        return events, exc
    return events, None
