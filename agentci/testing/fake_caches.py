"""The ``cachedContents`` resource of :mod:`agentci.testing.fake_gemini`: explicit context caches.

Serves what the google-genai SDK's ``client.caches`` calls: ``POST /v1beta/cachedContents``
(create), ``GET``/``PATCH`` (``ttl`` or ``expireTime``)/``DELETE
/v1beta/cachedContents/{id}`` — and Vertex AI's ``/v1beta1/projects/P/locations/L/cachedContents``.
A cache holds what its body held; it counts ``len(JSON of systemInstruction, tools and
contents) // 4`` tokens, as the fake counts a prompt. A generate call naming it
(``cachedContent``) is answered as the API does: refused when it also sets
``systemInstruction`` or ``tools`` (400), or when the cache is unknown, deleted or expired
(403); otherwise its usage reports ``promptTokenCount`` = its own size + the cache's, and
``cachedContentTokenCount`` = the cache's.

``FakeGemini(min_cache_tokens=1024)`` refuses smaller caches as the API does (400, "Cached
content is too small"); ``create_error={"code": 403}`` makes every create fail with that error.
``fake.caches`` counts what happened: ``created``, ``deleted``, ``live`` (not deleted, not
expired), ``used`` (generate calls that named a cache), so a test can assert nothing leaked.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from agentci.testing.fake_script import ErrorSpec

#: ``/v1beta/cachedContents[/ID]`` and Vertex AI's ``/v1beta1/projects/P/locations/L/…``
PATH = re.compile(
    r"^/(?:v1|v1beta|v1alpha|v1beta1)/(?:projects/[^/]+/locations/[^/]+/)?"
    r"cachedContents(?:/([^/:?]+))?$"
)
DEFAULT_TTL = 3600.0  # the API's default


def _stamp(seconds_from_now: float = 0.0) -> str:
    at = datetime.now(timezone.utc) + timedelta(seconds=seconds_from_now)
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _ttl(body: dict[str, Any]) -> float | None:
    """Seconds from ``ttl`` ("600s") or ``expireTime`` (RFC 3339); None when neither."""
    if isinstance(body.get("ttl"), str) and body["ttl"].endswith("s"):
        return float(body["ttl"][:-1])
    if isinstance(body.get("expireTime"), str):
        at = datetime.fromisoformat(body["expireTime"].replace("Z", "+00:00"))
        return (at - datetime.now(timezone.utc)).total_seconds()
    return None


def tokens_of(body: dict[str, Any]) -> int:
    """The fake's token count of what a cache (or a request) holds."""
    held = {k: body[k] for k in ("systemInstruction", "tools", "contents") if k in body}
    return max(1, len(json.dumps(held)) // 4)


@dataclass
class Entry:
    """One cached content."""

    name: str
    model: str
    tokens: int
    body: dict[str, Any]
    expires: float  # time.monotonic()
    display_name: str = ""
    create_time: str = field(default_factory=_stamp)

    def resource(self) -> dict[str, Any]:
        left = self.expires - time.monotonic()
        return {
            "name": self.name,
            "model": self.model,
            "displayName": self.display_name,
            "createTime": self.create_time,
            "updateTime": _stamp(),
            "expireTime": _stamp(left),
            "usageMetadata": {"totalTokenCount": self.tokens},
        }


@dataclass
class CacheStore:
    """The fake's caches, and counts for assertions (thread-safe)."""

    min_tokens: int = 0
    create_error: ErrorSpec | None = None
    entries: dict[str, Entry] = field(default_factory=dict)
    created: int = 0
    deleted: int = 0
    used: int = 0
    bodies: list[dict[str, Any]] = field(default_factory=list)  # every create's body
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def live(self) -> list[str]:
        """Names of caches neither deleted nor expired."""
        now = time.monotonic()
        with self.lock:
            return [n for n, e in self.entries.items() if e.expires > now]

    def handle(self, method: str, cache_id: str | None, body: dict[str, Any]) -> tuple[int, Any]:
        """One REST call on ``cachedContents``: ``(HTTP code, JSON answer)``."""
        if cache_id is None:
            if method == "POST":
                return self._create(body)
            if method == "GET":
                return 200, {"cachedContents": [e.resource() for e in self._alive()]}
            return _error(405, f"{method} cachedContents")
        name = f"cachedContents/{cache_id}"
        with self.lock:
            entry = self.entries.get(name)
            if entry is None or entry.expires <= time.monotonic():
                return _error(403, f"CachedContent not found (or permission denied): {name}")
            if method == "GET":
                return 200, entry.resource()
            if method == "PATCH":
                ttl = _ttl(body)
                if ttl is None:
                    return _error(400, "fake_gemini: PATCH needs ttl or expireTime")
                entry.expires = time.monotonic() + ttl
                return 200, entry.resource()
            if method == "DELETE":
                del self.entries[name]
                self.deleted += 1
                return 200, {}
        return _error(405, f"{method} {name}")

    def _alive(self) -> list[Entry]:
        now = time.monotonic()
        with self.lock:
            return [e for e in self.entries.values() if e.expires > now]

    def _create(self, body: dict[str, Any]) -> tuple[int, Any]:
        with self.lock:
            self.bodies.append(body)
        if self.create_error is not None:
            return self.create_error.code, self.create_error.body()
        if not isinstance(body.get("model"), str) or not body.get("contents"):
            return _error(400, "fake_gemini: a cached content needs a model and contents")
        tokens = tokens_of(body)
        if tokens < self.min_tokens:
            return _error(
                400,
                f"Cached content is too small. total_token_count={tokens}, "
                f"min_total_token_count={self.min_tokens}",
            )
        ttl = _ttl(body)
        with self.lock:
            self.created += 1
            name = f"cachedContents/fake{self.created}"
            entry = Entry(
                name=name,
                model=body["model"],
                tokens=tokens,
                body=body,
                expires=time.monotonic() + (DEFAULT_TTL if ttl is None else ttl),
                display_name=str(body.get("displayName") or ""),
            )
            self.entries[name] = entry
        return 200, entry.resource()

    def for_generate(self, model: str, body: dict[str, Any]) -> tuple[Entry | None, Any]:
        """The cache a generate call names: ``(entry, None)``, or ``(None, (code, error))``
        when the API would refuse the call."""
        name = body.get("cachedContent")
        if any(k in body for k in ("systemInstruction", "tools", "toolConfig")):
            return None, _error(
                400,
                "CachedContent can not be used with GenerateContent request setting "
                "system_instruction, tools or tool_config.",
            )
        with self.lock:
            entry = self.entries.get(str(name))
            if entry is None or entry.expires <= time.monotonic():
                return None, _error(403, f"CachedContent not found (or permission denied): {name}")
            if entry.model.removeprefix("models/") != model:
                return None, _error(400, f"the cached content is for {entry.model}, not {model}")
            self.used += 1
            return entry, None


def _error(code: int, message: str) -> tuple[int, Any]:
    return code, ErrorSpec(code=code, message=message).body()
