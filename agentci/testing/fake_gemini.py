"""A loopback HTTP server that speaks the Gemini REST API and answers from a script.

Point the real google-genai SDK (or agentci, or Gemini CLI) at it with
``GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT`` and any ``GEMINI_API_KEY``. It serves
``POST /{v1,v1beta,v1alpha}/models/{model}:generateContent`` (and Vertex AI's
``/v1beta1/[projects/P/locations/L/]publishers/google/models/{model}:…``),
``:streamGenerateContent?alt=sse`` (SSE over chunked HTTP/1.1, TCP_NODELAY) and ``:countTokens``;
each generate call consumes the next turn of the script (:mod:`agentci.testing.fake_script`)
— or, for a model named in ``scripts``, the next turn of that model's own script, so tasks
running at once can each have their conversation —, after ``latency`` seconds (0 by default;
benchmarks give the model a think time), and every request is recorded for assertions.
It also serves explicit context caches, ``/v1beta/cachedContents`` (:mod:`agentci.testing.fake_caches`:
create, get, patch, delete, and their use by generate calls, counted in ``fake.caches``).

In tests::

    with FakeGemini([{"text": "Hello"}]) as fake:
        env = fake.env()          # GOOGLE_GEMINI_BASE_URL + GEMINI_API_KEY
        ...
        assert fake.requests[0].body["contents"][0]["parts"][0]["text"] == "hi"

From a shell::

    python -m agentci.testing.fake_gemini --script turns.json --port 8765
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any, ClassVar, cast
from urllib.parse import parse_qs, urlsplit

from agentci.testing.fake_caches import PATH as CACHE_PATH
from agentci.testing.fake_caches import CacheStore
from agentci.testing.fake_script import ErrorSpec, UsageSpec
from agentci.testing.fake_server import FakeServer, RecordedRequest, ScriptHandler, serve_main

__all__ = ["FakeGemini", "RecordedRequest", "main"]

# Gemini API: /v1beta/models/M:action; Vertex AI: /v1beta1/[projects/P/locations/L/]publishers/
# google/models/M:action (express mode, with an API key, has no project part)
_PATH = re.compile(
    r"^/(v1|v1beta|v1alpha|v1beta1)/"
    r"(?:projects/[^/]+/locations/[^/]+/)?(?:publishers/google/)?models/([^/:]+):(\w+)$"
)


class _Handler(ScriptHandler):
    NAME: ClassVar[str] = "fake_gemini"
    MALFORMED: ClassVar[bytes] = b'data: {"candidates": [{"content": {"parts": [{"te\r\n\r\n'

    @property
    def caches(self) -> CacheStore:
        return cast("CacheStore", self.server.state.extra["caches"])

    def _cache_call(self, method: str) -> None:
        """``cachedContents`` (see :mod:`agentci.testing.fake_caches`)."""
        url = urlsplit(self.path)
        raw = self.read_body()
        m = CACHE_PATH.match(url.path)
        if not m:
            msg = f"fake_gemini: no route {method} {url.path}"
            self.send_json(404, ErrorSpec(code=404, message=msg).body())
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self.send_json(400, ErrorSpec(code=400, message="fake_gemini: body is not JSON").body())
            return
        rec = RecordedRequest(method, url.path, "", "", "cachedContents", parse_qs(url.query),
                              {k.lower(): v for k, v in self.headers.items()}, body,
                              size=len(raw))  # fmt: skip
        with self.server.state.lock:
            self.server.state.requests.append(rec)
        code, answer = self.caches.handle(method, m.group(1), body)
        self.send_json(code, answer)

    def do_GET(self) -> None:  # noqa: N802
        self._cache_call("GET")

    def do_PATCH(self) -> None:  # noqa: N802
        self._cache_call("PATCH")

    def do_DELETE(self) -> None:  # noqa: N802
        self._cache_call("DELETE")

    def do_POST(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        if CACHE_PATH.match(url.path):
            self._cache_call("POST")
            return
        raw = self.read_body()
        m = _PATH.match(url.path)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self.send_json(400, ErrorSpec(code=400, message="fake_gemini: body is not JSON").body())
            return
        if not m:
            msg = f"fake_gemini: no route {url.path}"
            self.send_json(404, ErrorSpec(code=404, message=msg).body())
            return
        version, model, action = m.groups()
        rec = RecordedRequest(
            "POST",
            url.path,
            version,
            model,
            action,
            parse_qs(url.query),
            {k.lower(): v for k, v in self.headers.items()},
            body,
            size=len(raw),
        )
        state = self.server.state
        if action == "countTokens":
            with state.lock:
                state.requests.append(rec)
            self.send_json(200, {"totalTokens": max(1, len(raw) // 4)})
            return
        if action not in ("generateContent", "streamGenerateContent"):
            msg = f"fake_gemini: no action {action}"
            self.send_json(404, ErrorSpec(code=404, message=msg).body())
            return
        cached_tokens = 0
        if "cachedContent" in body:
            entry, refusal = self.caches.for_generate(model, body)
            if entry is None:
                with state.lock:
                    state.requests.append(rec)
                code, answer = refusal
                self.send_json(code, answer)
                return
            cached_tokens = entry.tokens
        turn, missing = state.take(rec)
        if turn is None:
            msg = f"fake_gemini: {missing}"
            self.send_json(
                400, ErrorSpec(code=400, status="FAILED_PRECONDITION", message=msg).body()
            )
            return
        if turn.error is not None:
            headers = {}
            if turn.error.retry_after is not None:
                headers["Retry-After"] = f"{turn.error.retry_after:g}"
            self.send_json(turn.error.code, turn.error.body(), headers)
            return
        self.think()
        own = max(1, len(raw) // 4)
        usage = UsageSpec(prompt=own + cached_tokens, output=8, cached=cached_tokens)
        chunks = turn.build_chunks(usage, model)
        if action == "generateContent":
            self.send_json(200, _merge(chunks))
        else:
            self.send_sse(turn, chunks)


def _merge(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """A non-streamed answer: the chunks' parts joined, the last chunk's metadata."""
    out: dict[str, Any] = {}
    parts: list[dict[str, Any]] = []
    cand: dict[str, Any] = {}
    for c in chunks:
        for k, v in c.items():
            if k != "candidates":
                out[k] = v
        for cd in c.get("candidates", [])[:1]:
            parts.extend(cd.get("content", {}).get("parts", []))
            cand.update({k: v for k, v in cd.items() if k != "content"})
    if parts or cand:
        out["candidates"] = [{**cand, "content": {"role": "model", "parts": parts}}]
    return out


class FakeGemini(FakeServer):
    """The fake Gemini server; a context manager that serves from a background thread."""

    handler = _Handler
    url_var = "GOOGLE_GEMINI_BASE_URL"

    def __init__(
        self,
        turns: list[Any] | None = None,
        *,
        min_cache_tokens: int = 0,
        create_error: dict[str, Any] | None = None,
        **options: Any,
    ) -> None:
        """``min_cache_tokens``: the smallest cache accepted; ``create_error``: an error
        (``{"code": 403}``, ErrorSpec fields) every cache create answers with."""
        super().__init__(turns, **options)
        error = ErrorSpec.model_validate(create_error) if create_error is not None else None
        self._state.extra["caches"] = CacheStore(min_tokens=min_cache_tokens, create_error=error)

    @property
    def caches(self) -> CacheStore:
        """The explicit context caches and their counts (:mod:`agentci.testing.fake_caches`)."""
        return cast("CacheStore", self._state.extra["caches"])

    @classmethod
    def add_options(cls, ap: argparse.ArgumentParser) -> None:
        """``--min-cache-tokens``: the smallest cache accepted."""
        ap.add_argument(
            "--min-cache-tokens", type=int, default=0, help="the smallest cachedContents accepted"
        )

    @classmethod
    def from_options(cls, args: argparse.Namespace) -> dict[str, Any]:
        """The constructor arguments of :meth:`add_options`' options."""
        return {"min_cache_tokens": args.min_cache_tokens}

    def env(self, api_key: str = "fake-key") -> dict[str, str]:
        """Environment for a client of this server (SDK, agentci, Gemini CLI)."""
        return {"GOOGLE_GEMINI_BASE_URL": self.base_url, "GEMINI_API_KEY": api_key}


def main(argv: list[str] | None = None) -> int:
    """``python -m agentci.testing.fake_gemini --script turns.json --port N``"""
    return serve_main(
        FakeGemini, argv, prog="python -m agentci.testing.fake_gemini", description=__doc__
    )


if __name__ == "__main__":
    raise SystemExit(main())
