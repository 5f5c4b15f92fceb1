"""The recipe's ``model`` section: which model answers, its fallbacks, prices and retries
(docs/providers.md); a task's ``model:`` overrides it field by field."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, PositiveInt, field_validator, model_validator

from agentci.recipe.fields import MAX_SECONDS, Price, Seconds, Strict


class Pricing(Strict):
    """Prices in USD per million tokens; overrides the built-in table."""

    input_per_mtok: Price
    output_per_mtok: Price
    cached_per_mtok: Price | None = None
    thinking_per_mtok: Price | None = Field(
        default=None, description="Defaults to the output price."
    )
    cache_storage_per_mtok_hour: Price | None = Field(
        default=None,
        description="Storage of an explicit context cache (model.cache: explicit), USD per "
        "million tokens per hour (default: the built-in table's price for the model, else 0).",
    )


class RetryConfig(Strict):
    """How model calls are retried on transient faults (429, 5xx, cut streams)."""

    attempts: PositiveInt = Field(
        default=5, description="Tries per model call, the first included."
    )
    initial_delay_seconds: float = Field(default=1.0, ge=0, le=MAX_SECONDS)
    max_delay_seconds: float = Field(default=30.0, ge=0, le=MAX_SECONDS)
    request_timeout_seconds: Seconds = 120.0
    stream_idle_timeout_seconds: Seconds = 60.0


class FallbackModel(Strict):
    """A fallback model with the price it is billed at (``pricing`` of the model it follows
    does not apply to it)."""

    name: str = Field(min_length=1)
    pricing: Pricing | None = None


class ModelConfig(Strict):
    """Which model answers, and which provider serves it (docs/providers.md).

    ``provider`` (``gemini``, ``openai``, ``replay``, ``scripted``) may be left out: a name
    with a provider prefix (``openai:gpt-4o``, ``replay:PATH``, ``scripted:PATH``) names it,
    and a Gemini model name (``gemini-2.5-flash``) is Gemini's. With ``provider`` set, ``name``
    and the fallbacks are that provider's models: they are read with its prefix
    (``provider: openai`` + ``name: gpt-4o`` is ``openai:gpt-4o``).

    ``pricing`` is the price of ``name`` only; a fallback is priced by the built-in table, or
    by its own ``pricing`` when written as ``{name: ..., pricing: {...}}``."""

    provider: str | None = Field(
        default=None,
        pattern=r"^[a-z][a-z0-9_]*$",
        description="gemini | openai | replay | scripted (default: from the name: a "
        "provider prefix such as openai:NAME, else gemini for Gemini model names).",
    )
    name: str = Field(
        min_length=1,
        description="gemini-2.5-flash, openai:NAME, replay:PATH or scripted:PATH (with "
        "provider set: that provider's model name or file).",
    )
    fallback: list[str | FallbackModel] = Field(
        default_factory=list,
        description="Models to switch to (for the rest of the task) when this one fails.",
    )
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_output_tokens: PositiveInt | None = None
    thinking_budget: int | None = Field(default=None, ge=-1)
    base_url: str | None = Field(
        default=None,
        description="The provider's API endpoint: overrides GOOGLE_GEMINI_BASE_URL (gemini) "
        "or OPENAI_BASE_URL (openai).",
    )
    api_key_env: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="The environment variable that holds the API key (default: the "
        "provider's: GEMINI_API_KEY / GOOGLE_API_KEY, OPENAI_API_KEY). Its value is masked in "
        "every output like any key.",
    )
    pricing: Pricing | None = Field(default=None, description="The price of `name` only.")
    context_window: PositiveInt | None = Field(
        default=None,
        description="Prompt tokens one request may carry (default: the model's, from the "
        "built-in table); applies to the fallback models too.",
    )
    retry: RetryConfig = Field(default_factory=RetryConfig)
    max_continuations: int = Field(
        default=3,
        ge=0,
        le=100,
        description="An answer cut by the output limit (MAX_TOKENS) is continued at most this "
        "many times; still cut: budget_exhausted (max_output_tokens).",
    )
    cache: Literal["implicit", "explicit"] = Field(
        default="implicit",
        description="implicit: the provider's own prompt cache serves the stable prefix "
        "agentci sends. explicit (Gemini only): agentci creates a context cache of the system "
        "instruction, the tool declarations and the conversation so far, sends only the rest, "
        "and deletes the cache when the task ends (docs/gemini.md).",
    )
    cache_ttl_seconds: int = Field(
        default=600,
        ge=60,
        le=86_400,
        description="model.cache: explicit: how long the context cache lives without a call "
        "(renewed while the task runs); bounds what a cache left behind by a killed run costs.",
    )

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname or " " in value:
            raise ValueError(f"{value!r} is not an http(s) URL such as https://host:port")
        return value

    @model_validator(mode="after")
    def _provider_prefix(self) -> ModelConfig:
        """``provider: P`` reads ``name`` and each fallback as ``P:NAME`` (see the class doc)."""
        p = self.provider
        if p is None:
            return self

        def qualified(name: str) -> str:
            return name if name.startswith(f"{p}:") else f"{p}:{name}"

        if self.name is not None:
            self.name = qualified(self.name)
        self.fallback = [
            qualified(f) if isinstance(f, str) else f.model_copy(update={"name": qualified(f.name)})
            for f in self.fallback
        ]
        return self

    def fallback_names(self) -> list[str]:
        """The fallback models' names, in order."""
        return [f if isinstance(f, str) else f.name for f in self.fallback]

    def pricing_for(self, model: str) -> Pricing | None:
        """The recipe's price for ``model`` (None: the built-in table decides)."""
        if model == self.name:
            return self.pricing
        for f in self.fallback:
            if isinstance(f, FallbackModel) and f.name == model:
                return f.pricing
        return None


class TaskModel(ModelConfig):
    """A task's ``model:``: each field given replaces the recipe's, the others are kept
    (``retry`` field by field). The recipe's ``pricing`` is dropped with its model's name."""

    name: str | None = Field(default=None, min_length=1)  # type: ignore[assignment]
