"""The model a task talks to: its provider (recorded with ``--record``) and its prices."""

from __future__ import annotations

from pathlib import Path

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


def close_provider(provider: Provider) -> None:
    """Ends what the provider holds open for the task: ``--record``'s cassette."""
    if isinstance(provider, RecordingProvider):
        provider.close()


def record_path(spec: TaskSpec, record: Path) -> Path:
    """``--record FILE``; with several tasks, one cassette per task (FILE.<task>.jsonl)."""
    if spec.several:
        return record.with_name(f"{record.stem}.{spec.name}{record.suffix or '.jsonl'}")
    return record


def price_fn(spec: TaskSpec) -> PriceFn:
    """The cost of a call's usage for each model the task may use (None: unpriced)."""
    config = spec.model
    return lambda model, usage: cost_for(model, usage, config.pricing_for(model))
