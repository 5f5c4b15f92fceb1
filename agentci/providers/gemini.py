"""Gemini through the google-genai SDK: async streaming with function declarations.

* Key: the variable ``model.api_key_env`` names (masked in every output), else
  ``GEMINI_API_KEY``, else ``GOOGLE_API_KEY``, or Vertex AI (:mod:`.gemini_keys`).
* Endpoint: ``model.base_url`` in the recipe, else ``GOOGLE_GEMINI_BASE_URL``, else Google's.
  API version ``v1beta`` unless ``GOOGLE_GENAI_API_VERSION`` says otherwise; the SDK client
  and what the providers of a run share: :mod:`.gemini_client`.
* Automatic function calling is off and the SDK does not retry: retries, fallback and
  timeouts belong to :mod:`agentci.loop.chat`. SDK and HTTP errors are mapped to
  agentci's typed errors (:mod:`.gemini_errors`).
* The private path: for the Gemini Developer API this provider builds the REST body itself —
  each message's JSON once (:class:`~agentci.providers.gemini_wire.ContentCache`; the SDK's
  ``models.generate_content_stream`` validates and converts every content object on every
  call, ~0.3 ms per content, ``bench/bench_history.py``) — and sends it without the SDK
  (:mod:`.gemini_rest`: one POST over httpx2, the answer's JSON read by
  :meth:`~agentci.providers.gemini_wire.StreamDecoder.decode_json`), so a run that only calls
  the Developer API never imports google-genai (about half a second of CPU). For Vertex AI
  (whose paths and credentials the SDK builds) and context caches the SDK is used, the
  public ``generate_content_stream`` with the same cached JSON contents. Any unexpected
  exception from the private path (an answer shape it does not read, a bug) switches to the
  public path for the rest of the run (:class:`~agentci.providers.gemini_client.SdkPaths`):
  the call is retried at once, after a ``warning`` event of kind ``sdk_private_path_disabled``.
* ``model.cache: explicit``: a context cache of the stable prefix, made, renewed and deleted by
  :mod:`agentci.providers.gemini_cache`; :meth:`GeminiProvider.aclose` deletes it.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import AsyncIterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, cast

from agentci.errors import ProviderFailed
from agentci.providers import gemini_tables
from agentci.providers.base import (
    BuildContext,
    ModelChunk,
    ModelRequest,
    ProviderDegraded,
    ProviderInfo,
    TransientProviderError,
)
from agentci.providers.gemini_cache import UNAVAILABLE, Charges, ExplicitCache, Warning
from agentci.providers.gemini_client import (
    DEFAULT_API_VERSION,
    DEFAULT_BASE_URL,
    SdkPaths,
    new_client,
)
from agentci.providers.gemini_errors import map_error, names_cache
from agentci.providers.gemini_keys import api_key, has_credentials, key_note, uses_vertex_ai
from agentci.providers.gemini_rest import Endpoint, new_http_client, stream_generate
from agentci.providers.gemini_warm import warm_up
from agentci.providers.gemini_wire import ContentCache, StreamDecoder, request_body, tools_to_sdk

if TYPE_CHECKING:
    import httpx2
    from google import genai
    from google.genai import types

    from agentci.recipe.model_config import ModelConfig

PREFIX = "gemini:"
#: ``kind`` of the ``warning`` event when the private path is given up (see the module doc).
PRIVATE_PATH_DISABLED: Final = "sdk_private_path_disabled"


class GeminiProvider:
    """Streams Gemini answers; one instance per task (it caches converted history)."""

    name = "gemini"

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str | None = None,
        vertexai: bool = False,
        timeout_seconds: float | None = None,
        api_version: str | None = None,
        raw_path: bool = True,
        project: str | None = None,
        location: str | None = None,
        paths: SdkPaths | None = None,
        cache: ExplicitCache | None = None,
    ) -> None:
        self._api_key = api_key
        self.cache = cache  # model.cache: explicit
        self.paths = paths or SdkPaths()
        self.project = project
        self.location = location
        self.raw_path = raw_path
        self.base_url = base_url
        self.vertexai = vertexai
        self.timeout_seconds = timeout_seconds
        self.api_version = api_version
        self._client: genai.Client | None = None
        self._client_loop: object = None  # the event loop the client's async HTTP is bound to
        self._contents = ContentCache()
        self._config_key: tuple[Any, ...] | None = None
        self._config: types.GenerateContentConfig | None = None

    def __repr__(self) -> str:  # never show the key
        return f"GeminiProvider(base_url={self.base_url!r}, vertexai={self.vertexai})"

    @classmethod
    def from_config(
        cls,
        model: ModelConfig,
        environ: Mapping[str, str] | None = None,
        *,
        paths: SdkPaths | None = None,
    ) -> GeminiProvider:
        """Build from the recipe's model section and the environment; checks the key first.
        ``paths`` is shared by the providers of a run (see :class:`SdkPaths`)."""
        env = os.environ if environ is None else environ
        key = api_key(model, env)
        retry = model.retry
        return cls(
            api_key=key,
            base_url=model.base_url or env.get("GOOGLE_GEMINI_BASE_URL") or None,
            vertexai=uses_vertex_ai(env),
            timeout_seconds=max(retry.request_timeout_seconds, retry.stream_idle_timeout_seconds),
            api_version=env.get("GOOGLE_GENAI_API_VERSION") or None,
            project=env.get("GOOGLE_CLOUD_PROJECT") or None,
            location=env.get("GOOGLE_CLOUD_LOCATION") or None,
            paths=paths,
            cache=ExplicitCache(model.cache_ttl_seconds) if model.cache == "explicit" else None,
        )

    # ---------------------------------------------------------------- SDK objects

    def _get_client(self) -> genai.Client:
        if self._client is None:
            settings = (self._api_key, self.base_url, self.vertexai, self.project, self.location,
                        self.api_version, self.timeout_seconds)  # fmt: skip
            key = hashlib.sha256(repr(settings).encode()).hexdigest()
            loop, client = self.paths.clients.get(key, (None, None))
            if client is None or loop is not self._client_loop:  # bound to another loop
                client = new_client(
                    api_key=self._api_key,
                    base_url=self.base_url,
                    vertexai=self.vertexai,
                    project=self.project,
                    location=self.location,
                    api_version=self.api_version,
                    timeout_seconds=self.timeout_seconds,
                )
                self.paths.clients[key] = (self._client_loop, client)
            self._client = client
        return self._client

    def build_config(self, request: ModelRequest) -> types.GenerateContentConfig:
        """The call's config; cached while system prompt, tools and settings stay the same."""
        key = (
            request.system,
            tuple((t.name, t.description) for t in request.tools),
            request.temperature,
            request.max_output_tokens,
            request.thinking_budget,
        )
        if key != self._config_key or self._config is None:
            # deferred: google-genai is slow to import (seconds); only a Gemini call needs it
            from google.genai import types

            thinking = None
            if request.thinking_budget is not None:
                thinking = types.ThinkingConfig(
                    thinking_budget=request.thinking_budget,
                    include_thoughts=request.thinking_budget != 0,
                )
            self._config = types.GenerateContentConfig(
                system_instruction=request.system or None,
                temperature=request.temperature,
                max_output_tokens=request.max_output_tokens,
                thinking_config=thinking,
                tools=cast("list[Any]", tools_to_sdk(request.tools)) or None,
                automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            )
            self._config_key = key
        return self._config

    def build_contents(self, request: ModelRequest) -> list[dict[str, Any]]:
        """The history as REST JSON, converting only messages not seen before."""
        return self._contents.contents(request.messages)

    def uses_raw_path(self) -> bool:
        """Whether calls go out without the SDK (:mod:`.gemini_rest`), with a prebuilt body."""
        return self.raw_path and self.paths.private and not self.vertexai

    def _http_client(self) -> httpx2.AsyncClient:
        """The private path's HTTP client, one per event loop, shared by the run's providers."""
        loop, client = self.paths.clients.get("rest", (None, None))
        if client is None or loop is not self._client_loop:
            client = new_http_client()
            self.paths.clients["rest"] = (self._client_loop, client)
        return cast("httpx2.AsyncClient", client)

    # ---------------------------------------------------------------- streaming

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        """Stream one call. Raises TransientProviderError / QuotaExhausted / ProviderFailed."""
        loop = asyncio.get_running_loop()
        if self._client_loop is not loop:  # some SDK versions bind async HTTP to one loop
            self._client, self._client_loop = None, loop
        if request.model.startswith(PREFIX):  # model.provider: gemini
            request = replace(request, model=request.model.removeprefix(PREFIX))
        contents = self.build_contents(request)
        cache, cached = self.cache, None
        if cache is not None:
            cached, contents, warnings = await cache.prepare(self._get_client(), request, contents)
            for warning in warnings:
                yield ModelChunk(warning=warning)
        charges = cache.take_charges() if cache is not None else Charges()
        reported = False
        try:
            async for chunk in self._call(request, contents, cached):
                if chunk.usage is not None and charges:
                    chunk.usage, reported = charges.add_to(chunk.usage), True
                yield chunk
        except (ProviderFailed, TransientProviderError) as e:
            if cached is None or cache is None or not names_cache(e):
                raise
            cache.off, cache.live = True, None  # retried at once without the cache
            raise ProviderDegraded(
                UNAVAILABLE,
                f"the API refused the context cache {cached} ({e}); the task goes on with "
                "implicit caching",
            ) from e
        finally:
            if cache is not None and charges and not reported:
                cache.give_back(charges)

    async def aclose(self) -> list[Warning]:
        """Delete the task's context cache (``model.cache: explicit``), whatever ended the
        task; returns the warnings to show (a cache that could not be deleted)."""
        if self.cache is None or self.cache.live is None:
            return []
        loop = asyncio.get_running_loop()
        if self._client_loop is not loop:  # some SDK versions bind async HTTP to one loop
            self._client, self._client_loop = None, loop
        return await self.cache.close(self._get_client())

    async def _call(
        self, request: ModelRequest, contents: list[dict[str, Any]], cached: str | None
    ) -> AsyncIterator[ModelChunk]:
        """The call itself: ``contents`` after the cache named ``cached`` (if any)."""
        decoder = StreamDecoder()
        if self.uses_raw_path():
            try:
                async for chunk in self._stream_prebuilt(request, contents, decoder, cached):
                    yield chunk
            except Exception as e:  # noqa: BLE001 - mapped to typed errors right here
                mapped = map_error(e, endpoint=self.endpoint)
                if isinstance(mapped, (ProviderFailed, TransientProviderError)):
                    raise mapped from e
                self.paths.private = False  # a shape or a bug of ours: public path from now on
                raise ProviderDegraded(
                    PRIVATE_PATH_DISABLED,
                    "the private streaming path failed (agentci's own streamGenerateContent "
                    f"call, {type(e).__name__}: {' '.join(str(e).split())[:300]}); the run "
                    "uses the google-genai SDK's generate_content_stream from now on",
                ) from e
            return
        client = self._get_client()
        try:
            config = self.build_config(request)
            if cached is not None:  # the cache holds the system instruction and the tools
                config = config.model_copy(
                    update={"cached_content": cached, "system_instruction": None, "tools": None}
                )
            stream = await client.aio.models.generate_content_stream(
                model=request.model,
                contents=contents,  # type: ignore[arg-type]
                config=config,
            )
            async for response in stream:
                yield decoder.decode(response)
        except Exception as e:  # noqa: BLE001 - mapped to typed errors right here
            raise map_error(e, endpoint=self.endpoint) from e

    @property
    def endpoint(self) -> str:
        """Where requests go, for messages: the base URL, Google's, or Vertex AI."""
        if self.base_url:
            return self.base_url
        return "Vertex AI" if self.vertexai else DEFAULT_BASE_URL

    async def _stream_prebuilt(
        self,
        request: ModelRequest,
        contents: list[dict[str, Any]],
        decoder: StreamDecoder,
        cached: str | None = None,
    ) -> AsyncIterator[ModelChunk]:
        """The call without the SDK, with a prebuilt body (see module doc)."""
        model = request.model if "/" in request.model else f"models/{request.model}"
        body = request_body(request, contents)
        if cached is not None:  # the cache holds the system instruction and the tools
            body.pop("systemInstruction", None)
            body.pop("tools", None)
            body["cachedContent"] = cached
        endpoint = Endpoint(
            base_url=self.base_url or DEFAULT_BASE_URL,
            api_version=self.api_version or DEFAULT_API_VERSION,
            api_key=self._api_key,
            timeout_seconds=self.timeout_seconds,
        )
        texts = [self._contents.text(c) for c in contents]
        async for raw in stream_generate(self._http_client(), endpoint, model, body, texts):
            yield decoder.decode_json(raw)


def _build(model: ModelConfig, context: BuildContext) -> GeminiProvider:
    paths = context.shared.setdefault("sdk_paths", SdkPaths())
    return GeminiProvider.from_config(model, context.environ, paths=paths)


PROVIDER = ProviderInfo(
    name="gemini",
    build=_build,
    defaults=gemini_tables.defaults,
    claims=lambda name: gemini_tables.NAME.match(name) is not None,
    known_models=gemini_tables.known_models,
    has_credentials=lambda environ, model: (
        bool(environ.get(model.api_key_env)) if model.api_key_env else has_credentials(environ)
    ),
    key_vars=lambda model: [model.api_key_env] if model.api_key_env else [],
    key_note=key_note,
    warm_up=warm_up,
    explicit_cache=True,
)
