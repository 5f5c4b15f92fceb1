"""OpenAI-compatible chat completions through the official ``openai`` package (``AsyncOpenAI``).

One provider for every server that speaks ``/chat/completions``: OpenAI, Azure OpenAI (its
``/openai/v1/`` endpoint), vLLM, Ollama, LM Studio, llama.cpp's server, OpenRouter, … (see
docs/providers.md).

* Model: ``model.provider: openai`` with ``model.name`` as the server knows it, or the name
  prefix ``openai:NAME`` (the prefix is not sent).
* Endpoint: ``model.base_url``, else ``OPENAI_BASE_URL``, else OpenAI's.
* Key: the variable ``model.api_key_env`` names, else ``OPENAI_API_KEY``. OpenAI's own endpoint
  needs one (a missing key is :class:`~agentci.errors.InvalidInput`); a server of your own
  (a base URL) may need none. The key's variable is masked in every output like any secret
  (the registry's ``key_vars`` tells the run which one it is when its name does not look secret).
* Calls: streamed, ``stream_options.include_usage``, the tools as ``function`` tools; the
  output limit is sent only when the recipe sets ``model.max_output_tokens``, the table
  (:data:`MODELS`) knows the model's, or a budget lowers it (``max_completion_tokens`` to OpenAI and Azure, ``max_tokens`` elsewhere, which local
  servers know); ``model.thinking_budget`` is not sent.
* History cost: each message is converted to chat JSON once (:class:`ContentCache`) and the
  history is handed to ``chat.completions.create`` through ``extra_body`` (the SDK's documented
  way to add JSON to a request), not its typed ``messages``, which the SDK walks and transforms
  on every call: at 400 messages that was about 0.9 s of CPU per call, now the JSON encoding of
  the bytes sent.
* The SDK does not retry (``max_retries=0``): retries, fallback and timeouts belong to
  :mod:`agentci.loop.chat`. 429 (with ``Retry-After`` / ``retry-after-ms``), 408 and 5xx, a
  cut or malformed stream and connection errors are transient; a quota that says "check your
  plan and billing" switches to the fallback model; 401/403 and other 4xx are final
  (``provider_error``); a prompt refused by a content filter is ``blocked``; a refused
  connection to a loopback base URL fails at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentci.errors import Blocked, InvalidInput, ProviderFailed
from agentci.providers.base import (
    BuildContext,
    ModelChunk,
    ModelRequest,
    ProviderInfo,
    TransientProviderError,
)
from agentci.providers.defaults import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    ModelDefaults,
    Price,
    longest_prefix,
)
from agentci.providers.faults import classify_http_error, is_loopback, refused
from agentci.providers.gemini_wire import ContentCache
from agentci.providers.openai_wire import (
    StreamAssembler,
    message_to_wire,
    tools_to_wire,
    wire_size,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from agentci.recipe.model_config import ModelConfig

PREFIX = "openai:"
KEY_VAR = "OPENAI_API_KEY"
BASE_URL_VAR = "OPENAI_BASE_URL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_HOST = "api.openai.com"

#: OpenAI's models: USD per million tokens (input, output, cached input) as published for the
#: API at the time of writing (reasoning tokens are billed as output), the input window and the
#: output limit. A name matches the longest entry it starts with (``gpt-4o-2024-08-06`` is
#: ``gpt-4o``, ``gpt-4o-mini`` keeps its row); any other model (a local server's) has no price,
#: the generic window and no output limit of agentci's.
MODELS: dict[str, ModelDefaults] = {
    "gpt-5": ModelDefaults(Price(1.25, 10.00, 0.125), 272_000, 128_000),
    "gpt-5-mini": ModelDefaults(Price(0.25, 2.00, 0.025), 272_000, 128_000),
    "gpt-5-nano": ModelDefaults(Price(0.05, 0.40, 0.005), 272_000, 128_000),
    "gpt-4.1": ModelDefaults(Price(2.00, 8.00, 0.50), 1_047_576, 32_768),
    "gpt-4.1-mini": ModelDefaults(Price(0.40, 1.60, 0.10), 1_047_576, 32_768),
    "gpt-4.1-nano": ModelDefaults(Price(0.10, 0.40, 0.025), 1_047_576, 32_768),
    "gpt-4o": ModelDefaults(Price(2.50, 10.00, 1.25), 128_000, 16_384),
    "gpt-4o-mini": ModelDefaults(Price(0.15, 0.60, 0.075), 128_000, 16_384),
    "o3": ModelDefaults(Price(2.00, 8.00, 0.50), 200_000, 100_000),
    "o4-mini": ModelDefaults(Price(1.10, 4.40, 0.275), 200_000, 100_000),
}


#: OpenAI's reasoning models take only their default temperature (any other value is a 400):
#: ``model.temperature`` is not sent to them (the ready recipes set 0.2).
NO_TEMPERATURE = ("gpt-5", "o1", "o3", "o4")


def defaults(name: str) -> ModelDefaults:
    """What the table says of model ``name`` (see :data:`MODELS`)."""
    return longest_prefix(name, MODELS) or ModelDefaults()


#: Hosts that take ``max_completion_tokens`` (and reject ``max_tokens`` for reasoning models).
_COMPLETION_TOKENS_HOSTS = ("api.openai.com", ".openai.azure.com")


def wire_model(name: str) -> str:
    """The model name the server is sent (without the ``openai:`` prefix)."""
    return name.removeprefix(PREFIX)


class OpenAIProvider:
    """Streams chat completions; one instance per task (it caches converted history)."""

    name = "openai"

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str | None = None,
        key_var: str = KEY_VAR,
        timeout_seconds: float | None = None,
        max_output_tokens: int | None = None,
    ) -> None:
        self._api_key = api_key
        self.base_url = base_url
        self.key_var = key_var
        self.timeout_seconds = timeout_seconds
        self.max_output_tokens = max_output_tokens  # the recipe's, if it set one
        self._client: AsyncOpenAI | None = None
        self._client_loop: object = None
        self._messages = ContentCache(message_to_wire)
        self._sizes = ContentCache(lambda m: wire_size(message_to_wire(m)))
        self._tools_key: tuple[tuple[str, str], ...] | None = None
        self._tools: list[dict[str, Any]] = []

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIProvider(base_url={self.base_url!r}, key_var={self.key_var!r})"

    @classmethod
    def from_config(
        cls, model: ModelConfig, environ: Mapping[str, str] | None = None
    ) -> OpenAIProvider:
        """Build from the recipe's model section and the environment; checks the key first."""
        env = os.environ if environ is None else environ
        key_var = model.api_key_env or KEY_VAR
        base_url = model.base_url or env.get(BASE_URL_VAR) or None
        # OPENAI_API_KEY goes to OpenAI only: a recipe's base_url elsewhere gets the key
        # model.api_key_env names, or none
        key = None if _elsewhere(model) else env.get(key_var) or None
        if key is None and (base_url is None or model.api_key_env):
            where = "" if base_url is None else f" for {base_url}"
            raise InvalidInput(
                f"model {model.name!r} needs an API key{where}: set {key_var}"
                + ("" if key_var != KEY_VAR else " (or name another variable in model.api_key_env)")
            )
        retry = model.retry
        return cls(
            api_key=key,
            base_url=base_url,
            key_var=key_var,
            timeout_seconds=max(retry.request_timeout_seconds, retry.stream_idle_timeout_seconds),
            max_output_tokens=model.max_output_tokens,
        )

    @property
    def endpoint(self) -> str:
        """Where requests go, for messages."""
        return self.base_url or DEFAULT_BASE_URL

    def _get_client(self) -> AsyncOpenAI:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            # deferred: the openai SDK is slow to import (seconds); only an OpenAI-compatible model needs it
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(
                # a server of one's own may take no key; the SDK needs some text to send
                api_key=self._api_key or "none",
                base_url=self.endpoint,
                max_retries=0,
                timeout=self.timeout_seconds,
            )
            self._client_loop = loop
        return self._client

    def build_messages(self, request: ModelRequest) -> list[dict[str, Any]]:
        """The history as chat messages, converting only messages not seen before."""
        out: list[dict[str, Any]] = []
        if request.system:
            out.append({"role": "system", "content": request.system})
        for wire in self._messages.contents(request.messages):
            out.extend(wire)
        return out

    def build_tools(self, request: ModelRequest) -> list[dict[str, Any]]:
        key = tuple((t.name, t.description) for t in request.tools)
        if key != self._tools_key:
            self._tools, self._tools_key = tools_to_wire(request.tools), key
        return self._tools

    def build_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for ``request``."""
        kwargs: dict[str, Any] = {
            "model": wire_model(request.model),
            # the history goes in as ready JSON: the SDK's typed ``messages`` would be walked
            # and converted again on every call (~4 ms per message), see the module docstring
            "messages": [],
            "extra_body": {"messages": self.build_messages(request)},
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            kwargs["tools"] = self.build_tools(request)
        if request.temperature is not None and not kwargs["model"].startswith(NO_TEMPERATURE):
            kwargs["temperature"] = request.temperature
        limit = request.max_output_tokens
        known = longest_prefix(wire_model(request.model), MODELS) is not None
        # a limit the recipe set, the table's for one of OpenAI's models, or one a budget lowered;
        # not the generic default, which may be more than a local model can give
        if limit is not None and (
            self.max_output_tokens is not None or known or limit < DEFAULT_MAX_OUTPUT_TOKENS
        ):
            host = (urlsplit(self.endpoint).hostname or "").lower()
            field = (
                "max_completion_tokens"
                if host.endswith(_COMPLETION_TOKENS_HOSTS) or host in _COMPLETION_TOKENS_HOSTS
                else "max_tokens"
            )
            kwargs[field] = limit
        return kwargs

    def prompt_chars(self, request: ModelRequest) -> int:
        """Characters of the request's messages and tools (for the usage estimate)."""
        tools = sum(
            len(t.name) + len(t.description) + len(str(t.parameters)) for t in request.tools
        )
        return len(request.system) + tools + sum(self._sizes.contents(request.messages))

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        """Stream one call. Raises TransientProviderError / QuotaExhausted / ProviderFailed /
        Blocked."""
        client = self._get_client()
        assembler = StreamAssembler(len(request.messages))
        try:
            stream = await client.chat.completions.create(**self.build_kwargs(request))
            try:
                async for chunk in stream:
                    out = assembler.feed(chunk)
                    if out.parts or out.usage is not None:
                        yield out
            finally:
                await stream.close()
        except Exception as e:  # noqa: BLE001 - mapped to typed errors right here
            raise self._map_error(e) from e
        yield assembler.final()
        if not assembler.usage_seen:
            yield ModelChunk(usage=assembler.estimate(self.prompt_chars(request)))

    def _map_error(self, e: Exception) -> Exception:
        """SDK / transport exception → agentci's typed provider errors."""
        # deferred: the openai SDK is slow to import (seconds); only an OpenAI-compatible model needs it
        import openai

        if isinstance(e, (ProviderFailed, TransientProviderError, Blocked)):
            return e
        if isinstance(e, openai.APIStatusError):
            headers = {k.lower(): v for k, v in e.response.headers.items()}
            if "retry-after" not in headers and "retry-after-ms" in headers:
                with contextlib.suppress(ValueError):
                    headers["retry-after"] = f"{float(headers['retry-after-ms']) / 1000:g}"
            body = e.body if isinstance(e.body, dict) else {}
            if e.status_code == 400 and body.get("code") == "content_filter":
                return Blocked(
                    f"the prompt was blocked by the server's content filter: {e.message}"
                )
            mapped = classify_http_error(e.status_code, e.message, body, headers)
            if isinstance(mapped, ProviderFailed) and e.status_code in (401, 403):
                return ProviderFailed(
                    f"{mapped} (the key in {self.key_var}, sent to {self.endpoint})"
                )
            return mapped
        if isinstance(e, openai.APIConnectionError):  # timeouts included
            if refused(e) and is_loopback(self.endpoint):
                return ProviderFailed(
                    f"connection refused by {self.endpoint}: nothing listens there (is the server "
                    f"that model.base_url / {BASE_URL_VAR} names running?); not retried"
                )
            cause = e.__cause__ or e.__context__
            why = f" ({type(cause).__name__}: {str(cause)[:200]})" if cause is not None else ""
            return TransientProviderError(f"connection error to {self.endpoint}: {e}{why}")
        module = type(e).__module__ or ""
        if module.startswith(("httpx", "httpcore", "openai")) or isinstance(
            e, (ValueError, ConnectionError, TimeoutError, OSError)
        ):  # a cut or malformed stream while reading it
            return TransientProviderError(
                f"broken stream from {self.endpoint}: {type(e).__name__}: {str(e)[:200]}"
            )
        return e


def _build(model: ModelConfig, context: BuildContext) -> OpenAIProvider:
    return OpenAIProvider.from_config(model, context.environ)


def _elsewhere(model: ModelConfig) -> bool:
    """The recipe's ``model.base_url`` names a host other than OpenAI's and no
    ``model.api_key_env``: ``OPENAI_API_KEY`` is not sent there (the server asks for none, or
    the recipe names the variable that holds its key)."""
    if not model.base_url or model.api_key_env:
        return False
    return (urlsplit(model.base_url).hostname or "").lower() != OPENAI_HOST


def _has_key(environ: Mapping[str, str], model: ModelConfig) -> bool:
    """A key, or a server of one's own that may need none (a base URL and no api_key_env)."""
    key_var = model.api_key_env or KEY_VAR
    own_server = (model.base_url or environ.get(BASE_URL_VAR)) and not model.api_key_env
    return bool(environ.get(key_var) or own_server)


PROVIDER = ProviderInfo(
    name="openai",
    build=_build,
    has_credentials=_has_key,
    key_vars=lambda model: [model.api_key_env or KEY_VAR],
    defaults=defaults,
    known_models=lambda: list(MODELS),
)
