"""Gemini's explicit context cache for one task (``model.cache: explicit``).

What is cached: the system instruction, the tool declarations and the conversation before
the request's last message — the part of the next requests that stays the same. The request
then names the cache (``cachedContent``) and carries only what follows it; the API reports
the cached part as ``cachedContentTokenCount`` and bills it at the cached price.

When a cache is made (:meth:`ExplicitCache.prepare`, before each call):

* only for the conversation's own requests — those that declare tools; the compression summary
  and the loop judge (no tools, another system prompt) are sent as before and never replace
  the conversation's cache;
* not on the first call of a task (a one-call task would pay for a cache it never reads),
  and only once the part to cache is at least the model's smallest cacheable size
  (:func:`~agentci.providers.gemini_tables.min_cache_tokens`, estimated at 4 characters a token);
* again, replacing the old one, once what the requests since it was made paid for the part
  sent after it, at the full price, would have bought writing a new cache of everything up to
  now (the rent-or-buy rule: ``0.9 × characters sent after the cache ≥ the new cache's size``,
  0.9 being what a cached token saves); when the history no longer starts with what the cache
  holds (compression or masking rewrote it); when the model changed (a fallback); or when the
  cache is about to expire.

Its time to live is ``model.cache_ttl_seconds``; it is renewed (``PATCH ttl``) when less than
half of it is left at a call, and deleted when a newer one replaces it and when the task ends,
however it ends (:meth:`ExplicitCache.close`; the TTL bounds what a killed process leaves).

A cache that cannot be created (the model does not support caching, the content is too small
for it, any API error) is not an error: the task goes on with implicit caching, after a
``warning`` of kind ``explicit_cache_unavailable``. A call that names a cache the API no longer
accepts is retried at once without it (same warning, :class:`ProviderDegraded`).

Billing (:mod:`agentci.usage`): a cache's tokens are billed at the input price when it is
created (``cache_write_tokens``) and at the storage price while it lives
(``cache_storage_token_hours``, counted from its creation up to each call and to its
deletion); both are added to the usage of the task's next call. Storage after the last call
(between it and the task's end) is not counted: no call reports it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from agentci.events.warning_events import WarningKind
from agentci.providers.base import ModelRequest
from agentci.providers.gemini_tables import min_cache_tokens
from agentci.providers.gemini_wire import tool_to_json, tools_to_sdk
from agentci.usage import Usage

if TYPE_CHECKING:
    from google import genai

UNAVAILABLE: Final = "explicit_cache_unavailable"
NOT_DELETED: Final = "explicit_cache_not_deleted"
#: A cache with less than this many seconds left is taken as gone (a new one is made).
EXPIRY_MARGIN = 30.0
#: How long deleting a cache may take at the end of a task.
DELETE_TIMEOUT = 10.0
CHARS_PER_TOKEN = 4
#: What a token served from the cache saves, as a share of the input price (cached tokens
#: cost about a tenth of it): the rule that replaces a cache weighs it.
SAVED = 0.9
DISPLAY_NAME = "agentci"

Warning = tuple[WarningKind, str]


@dataclass
class Charges:
    """Cache costs not yet reported with a call."""

    write_tokens: int = 0
    token_hours: float = 0.0

    def __bool__(self) -> bool:
        return bool(self.write_tokens or self.token_hours)

    def add_to(self, usage: Usage) -> Usage:
        return usage.model_copy(
            update={
                "cache_write_tokens": usage.cache_write_tokens + self.write_tokens,
                "cache_storage_token_hours": round(
                    usage.cache_storage_token_hours + self.token_hours, 6
                ),
            }
        )


@dataclass
class _Live:
    """One context cache that exists at the API."""

    name: str
    model: str
    key: tuple[str, str, str]  # model, system instruction, tool declarations
    prefix: list[dict[str, Any]]  # the content objects it holds (compared by identity)
    chars: int  # the size of what it holds, in characters of JSON
    tokens: int  # as the API counted them
    expires: float  # time.monotonic() of its expiry
    counted: float = field(default=0.0)  # storage is counted up to this time.monotonic()
    tail_sent: int = 0  # characters sent after it (at the full price) since it was made


def _chars(contents: list[dict[str, Any]]) -> int:
    return sum(len(json.dumps(c, ensure_ascii=False)) for c in contents)


def _key(request: ModelRequest) -> tuple[str, str, str]:
    tools = json.dumps([tool_to_json(t) for t in request.tools], sort_keys=True)
    return request.model, request.system, tools


class ExplicitCache:
    """The context cache of one task's conversation (see the module doc)."""

    def __init__(self, ttl_seconds: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl_seconds
        self.live: _Live | None = None
        self.off = False  # a create failed: implicit caching for the rest of the task
        self.created = 0
        self.deleted = 0
        self.pending = Charges()
        self._clock = clock

    # ---------------------------------------------------------------- before a call

    async def prepare(
        self, client: genai.Client, request: ModelRequest, contents: list[dict[str, Any]]
    ) -> tuple[str | None, list[dict[str, Any]], list[Warning]]:
        """``(cache name or None, the contents to send, warnings)`` for one call."""
        if self.off or not request.tools or len(contents) < 2:
            return None, contents, []
        warnings: list[Warning] = []
        key = _key(request)
        live = self.live
        now = self._clock()
        if live is not None and not self._serves(live, key, contents, now):
            warnings += await self._drop(client)
            live = None
        if live is not None:
            tail = contents[len(live.prefix) :]
            tail_chars = _chars(tail)
            if SAVED * (live.tail_sent + tail_chars) < live.chars + tail_chars:  # keep it
                warnings += await self._renew(client, live, now)
                if self.live is live:
                    self._count_storage(live, now)
                    live.tail_sent += tail_chars
                    return live.name, tail, warnings
                live = None
        prefix = contents[:-1]
        fixed = len(request.system) + len(key[2])
        size = fixed + _chars(prefix)
        if size // CHARS_PER_TOKEN < min_cache_tokens(request.model):
            return None, contents, warnings
        new, why = await self._create(client, request, prefix, size, now)
        if self.live is not None:  # replaced (or the new one failed): the old one goes
            warnings += await self._drop(client)
        if new is None:
            self.off = True
            warnings.append((UNAVAILABLE, f"{why}; the task goes on with implicit caching"))
            return None, contents, warnings
        self.live = new
        return new.name, contents[len(prefix) :], warnings

    def _serves(
        self, live: _Live, key: tuple[str, str, str], contents: list[dict[str, Any]], now: float
    ) -> bool:
        """Whether ``live`` holds the start of this request and lives long enough to use."""
        if live.key != key or len(contents) <= len(live.prefix):
            return False
        if live.expires - now < EXPIRY_MARGIN:
            return False
        return all(a is b for a, b in zip(live.prefix, contents, strict=False))

    def _count_storage(self, live: _Live, now: float) -> None:
        hours = max(0.0, now - live.counted) / 3600
        self.pending.token_hours += live.tokens * hours
        live.counted = now

    async def _create(
        self,
        client: genai.Client,
        request: ModelRequest,
        prefix: list[dict[str, Any]],
        chars: int,
        now: float,
    ) -> tuple[_Live | None, str]:
        # deferred: google-genai is slow to import (seconds); only a Gemini call needs it
        from google.genai import types

        try:
            config = types.CreateCachedContentConfig(
                contents=[types.Content.model_validate_json(json.dumps(c)) for c in prefix],
                system_instruction=request.system or None,
                tools=tools_to_sdk(request.tools) or None,
                ttl=f"{self.ttl}s",
                display_name=DISPLAY_NAME,
            )
            made = await client.aio.caches.create(model=request.model, config=config)
        except Exception as e:  # noqa: BLE001 - any failure: implicit caching, said once
            return None, (
                f"model.cache: explicit: no context cache for {request.model} "
                f"({type(e).__name__}: {' '.join(str(e).split())[:300]})"
            )
        if not made.name:
            return None, f"model.cache: explicit: the API made no cache for {request.model}"
        meta = made.usage_metadata
        tokens = (meta.total_token_count if meta is not None else None) or chars // 4
        self.created += 1
        self.pending.write_tokens += tokens
        return _Live(
            name=made.name,
            model=request.model,
            key=_key(request),
            prefix=list(prefix),
            chars=chars,
            tokens=tokens,
            expires=now + self.ttl,
            counted=now,
        ), ""

    async def _renew(self, client: genai.Client, live: _Live, now: float) -> list[Warning]:
        """Extend the TTL when less than half of it is left; a cache that cannot be renewed
        is dropped (the call goes on without it, a new one may be made)."""
        if live.expires - now >= self.ttl / 2:
            return []
        # deferred: google-genai is slow to import (seconds); only a Gemini call needs it
        from google.genai import types

        try:
            await client.aio.caches.update(
                name=live.name, config=types.UpdateCachedContentConfig(ttl=f"{self.ttl}s")
            )
        except Exception:  # noqa: BLE001 - the cache is given up, the call goes on
            return await self._drop(client)
        live.expires = now + self.ttl
        return []

    # ---------------------------------------------------------------- deleting

    async def _drop(self, client: genai.Client) -> list[Warning]:
        """Delete the live cache (its storage counted up to now). One that expired by this
        process's clock is deleted too, in case the API's clock differs; its failure is moot."""
        live, self.live = self.live, None
        if live is None:
            return []
        now = self._clock()
        self._count_storage(live, min(now, live.expires))
        try:
            await asyncio.wait_for(client.aio.caches.delete(name=live.name), DELETE_TIMEOUT)
        except Exception as e:  # noqa: BLE001 - said, and bounded by the TTL
            if live.expires <= now or getattr(e, "code", None) == 404:
                return []  # gone already
            left = max(0, int(live.expires - now))
            return [(NOT_DELETED, f"the context cache {live.name} could not be deleted "
                     f"({type(e).__name__}: {' '.join(str(e).split())[:200]}); it expires "
                     f"in {left}s (model.cache_ttl_seconds)")]  # fmt: skip
        self.deleted += 1
        return []

    async def close(self, client: genai.Client) -> list[Warning]:
        """Delete the cache, if one lives (the task ended, however it ended)."""
        return await self._drop(client)

    def take_charges(self) -> Charges:
        """The costs to report with the next call (and forget here)."""
        charges, self.pending = self.pending, Charges()
        return charges

    def give_back(self, charges: Charges) -> None:
        """A call that reported no usage: its charges go with the next one."""
        self.pending.write_tokens += charges.write_tokens
        self.pending.token_hours += charges.token_hours
