"""The model a task talks to: its provider (recorded with ``--record``) and its prices."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentci.events import types as ev
from agentci.loop.meter import PriceFn
from agentci.providers import make_provider
from agentci.providers.base import Provider
from agentci.providers.pricing import cost_for
from agentci.providers.recording import RecordingProvider
from agentci.run.settings import RunSettings
from agentci.spec import TaskSpec


def task_provider(spec: TaskSpec, settings: RunSettings) -> Provider:
    """The provider of ``spec``'s model (the in-process one of tests when given), recording
    the session into a cassette with ``--record``."""
    if settings.provider_factory is not None:
        return settings.provider_factory(spec)
    provider = make_provider(
        spec.model, base_dir=settings.recipe_dir, shared=settings.provider_state
    )
    if settings.record is not None:
        return RecordingProvider(provider, record_path(spec, settings.record))
    return provider


async def close_provider(provider: Provider, emit: Callable[[ev.Event], object]) -> None:
    """Ends what the provider holds for the task: ``--record``'s cassette, Gemini's context
    cache (``model.cache: explicit``: deleted, or a ``warning`` says it could not be). Never
    raises: the task has ended already."""
    inner = provider
    if isinstance(provider, RecordingProvider):
        provider.close()
        inner = provider.inner
    aclose = getattr(inner, "aclose", None)
    if aclose is None:
        return
    try:
        warnings = await aclose()
    except Exception as e:  # noqa: BLE001 - said, never a crash of a finished task
        warnings = [("explicit_cache_not_deleted", f"closing the provider failed: {e}")]
    for kind, message in warnings:
        emit(ev.WarningEvent(kind=kind, message=message))


def record_path(spec: TaskSpec, record: Path) -> Path:
    """``--record FILE``; with several tasks, one cassette per task (FILE.<task>.jsonl)."""
    if spec.several:
        return record.with_name(f"{record.stem}.{spec.name}{record.suffix or '.jsonl'}")
    return record


def price_fn(spec: TaskSpec) -> PriceFn:
    """The cost of a call's usage for each model the task may use (None: unpriced)."""
    config = spec.model
    return lambda model, usage: cost_for(model, usage, config.pricing_for(model))
