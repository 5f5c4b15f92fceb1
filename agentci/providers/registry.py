"""The providers agentci can call, and which one serves a model name.

:data:`PROVIDERS` maps a provider's name to its module; the module defines ``PROVIDER``, a
:class:`~agentci.providers.base.ProviderInfo` (how to build it, its defaults table, its
checks). A new provider is its module and one line here (docs/providers.md).

Which provider serves a model name (``model.name`` and each ``model.fallback``):

1. ``PROVIDER:NAME`` where PROVIDER is a name below: that provider, for its model NAME
   (``openai:gpt-4o``, ``replay:cassette.jsonl``, ``scripted:replies.yaml``). The recipe's
   ``model.provider: openai`` with ``name: gpt-4o`` is read as ``openai:gpt-4o``;
2. a name a provider claims without a prefix: Gemini's (``gemini-…``, ``gemma-…``,
   ``models/…``), so a recipe that names a Gemini model needs nothing else;
3. anything else is not a model agentci can serve: :class:`UnknownModel` (``invalid_input``
   before any model call), with a suggestion when one is close.

Modules are imported when first asked for; none of them imports an SDK at import time.
"""

from __future__ import annotations

import difflib
import importlib
import os
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentci.errors import InvalidInput
from agentci.providers.base import BuildContext, Provider, ProviderInfo
from agentci.providers.defaults import ModelDefaults

if TYPE_CHECKING:
    from agentci.recipe.model_config import ModelConfig

PROVIDERS: dict[str, str] = {
    "gemini": "agentci.providers.gemini",
    "openai": "agentci.providers.openai_compat",
    "replay": "agentci.providers.replay",
    "scripted": "agentci.providers.scripted",
}


class UnknownModel(InvalidInput):
    """A model name no provider serves (``suggestion``: a close name that one does)."""

    def __init__(self, message: str, suggestion: str | None = None) -> None:
        self.suggestion = suggestion
        super().__init__(message)


@cache
def info(provider: str) -> ProviderInfo:
    """The registry entry of ``provider`` (imports its module). Raises InvalidInput."""
    module = PROVIDERS.get(provider)
    if module is None:
        raise InvalidInput(f"no provider is named {provider!r}{_hint(provider, list(PROVIDERS))}")
    entry: ProviderInfo = importlib.import_module(module).PROVIDER
    return entry


def names() -> list[str]:
    """Every provider's name, in the registry's order."""
    return list(PROVIDERS)


def qualified(name: str, provider: str | None) -> str:
    """``name`` with the ``provider:`` prefix ``model.provider`` gives it (unless it has it)."""
    if provider is None or name.startswith(f"{provider}:"):
        return name
    return f"{provider}:{name}"


def route(name: str) -> tuple[ProviderInfo, str]:
    """The provider that serves ``name`` and its own name for the model (the prefix removed).
    Raises :class:`UnknownModel` (see the module docstring)."""
    prefix, sep, rest = name.partition(":")
    if sep and prefix in PROVIDERS:
        return info(prefix), rest
    for provider in PROVIDERS:
        entry = info(provider)
        if entry.claims is not None and entry.claims(name):
            return entry, name
    suggestion = suggest(name)
    hint = f" (did you mean {suggestion!r}?)" if suggestion else ""
    forms = ", ".join(f"{p}:{'FILE' if info(p).offline else 'NAME'}" for p in PROVIDERS)
    raise UnknownModel(
        f"{name!r} is not a model agentci can serve{hint}: name a Gemini model "
        f"(gemini-2.5-flash, …), or its provider with model.provider or a prefix: {forms}",
        suggestion,
    )


def misspelt(name: str) -> str | None:
    """The known model a served ``name`` is likely a typo of, or None.

    A name that starts with a known one (``gemini-2.5-flash-001``, ``gemini-3-pro-preview``)
    is a version of it, and one whose numbers differ (``gemini-3.5-pro``) may be a newer
    model: neither is a typo."""
    entry, bare = route(name)
    known = entry.known_models()
    if not known or any(bare.startswith(k) for k in known):
        return None
    digits = re.sub(r"\D", "", bare)
    alike = [k for k in known if re.sub(r"\D", "", k) == digits]
    close = difflib.get_close_matches(bare, alike, n=1, cutoff=0.8)
    if not close:
        return None
    return close[0] if bare == name else f"{entry.name}:{close[0]}"


def suggest(name: str) -> str | None:
    """A name close to ``name`` that a provider serves: a misspelt prefix (``opnai:x`` →
    ``openai:x``), a model a provider knows but does not claim without its prefix
    (``gpt-4o`` → ``openai:gpt-4o``), a misspelt known model (``gemni-2.5-flash``), or None."""
    prefix, sep, rest = name.partition(":")
    if sep and rest:
        close = difflib.get_close_matches(prefix, list(PROVIDERS), n=1, cutoff=0.6)
        if close:
            return f"{close[0]}:{rest}"
    known: dict[str, str] = {}  # a known model → how to name it
    for p in PROVIDERS:
        entry = info(p)
        for model in entry.known_models():
            known[model] = model if entry.claims is not None else f"{p}:{model}"
    starts = [m for m in known if name.startswith(m)]
    if starts:  # a version of a known model (gpt-4o-mini): the same provider
        longest = max(starts, key=len)
        meant = known[longest].removesuffix(longest) + name
        return meant if meant != name else None
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.8)
    return known[close[0]] if close else None


def _hint(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else f" (one of: {', '.join(choices)})"


def check_provider(provider: str) -> None:
    """Raise InvalidInput when ``model.provider`` names no provider (with a suggestion)."""
    info(provider)


def defaults_for(name: str) -> ModelDefaults:
    """What the serving provider's table says about model ``name`` (an unknown name: the
    generic defaults)."""
    try:
        entry, bare = route(name)
    except InvalidInput:
        return ModelDefaults()
    return entry.defaults(bare)


def is_offline(name: str) -> bool:
    """Whether ``name`` is served without a key or the network (replay, scripted)."""
    try:
        return route(name)[0].offline
    except InvalidInput:
        return False


def make_provider(
    model: ModelConfig,
    *,
    base_dir: Path,
    shared: dict[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Provider:
    """Build the provider that serves ``model.name`` (files relative to ``base_dir``;
    ``shared``: state the providers of one run share). Raises InvalidInput."""
    entry, bare = route(model.name)
    context = BuildContext(base_dir, os.environ if environ is None else environ, {})
    if shared is not None:
        context.shared = shared.setdefault(entry.name, {})
    return entry.build(model.model_copy(update={"name": bare}), context)


def check_model(model: ModelConfig, base_dir: Path) -> None:
    """What ``agentci validate`` checks of ``model`` without a key or an SDK (a replay or
    scripted file exists and parses). Raises InvalidInput."""
    entry, bare = route(model.name)
    if entry.check is not None:
        entry.check(model.model_copy(update={"name": bare}), base_dir)


def has_credentials(model: ModelConfig, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the provider of ``model`` finds its key in ``environ``."""
    entry, _ = route(model.name)
    if entry.has_credentials is None:
        return True
    return entry.has_credentials(os.environ if environ is None else environ, model)


def key_notes(names: list[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """One line per provider of ``names`` about which key it sends (when worth saying)."""
    env = os.environ if environ is None else environ
    notes: list[str] = []
    entries: dict[str, ProviderInfo] = {}
    for name in names:
        try:
            entry = route(name)[0]
        except InvalidInput:
            continue
        entries.setdefault(entry.name, entry)
    for entry in entries.values():
        note = entry.key_note(env) if entry.key_note is not None else None
        if note:
            notes.append(note)
    return notes


def key_vars(models: Iterable[ModelConfig]) -> list[str]:
    """The variables the providers of ``models`` read their keys from (for the redactor: a
    key is masked in every output whatever its variable is called)."""
    found: set[str] = set()
    for model in models:
        try:
            entry = route(model.name)[0]
        except InvalidInput:
            continue
        if entry.key_vars is not None:
            found.update(entry.key_vars(model))
    return sorted(found)


def warm_up(names: list[str]) -> None:
    """Start what the providers of ``names`` import on their first call (an SDK), for a
    batch to overlap it with the first tasks' setup; errors are left for the call."""
    for n in names:
        try:
            entry = route(n)[0]
        except InvalidInput:
            continue
        if entry.warm_up is not None:
            entry.warm_up()


def model_file(path: str, base_dir: Path, key: str = "model.name") -> Path:
    """The file of a ``replay:``/``scripted:`` model (relative to ``base_dir``); must exist."""
    if not path:
        raise InvalidInput(f"{key}: a replay:/scripted: model needs a file path")
    p = Path(path)
    p = p if p.is_absolute() else base_dir / p
    if not p.is_file():
        raise InvalidInput(f"{key}: no such file: {p}")
    return p
