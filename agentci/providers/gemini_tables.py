"""Gemini's tables: prices, context windows, output limits, thinking, and finish reasons.

Prices: USD per million tokens, Gemini Developer API, paid tier, as published at the time of
writing. ``promptTokenCount`` includes the cached tokens (``cachedContentTokenCount``), billed at
the cached price; thinking tokens (``thoughtsTokenCount``) are billed as output. An explicit
context cache (``model.cache: explicit``) is billed at the input price when created and at the
storage price (per million tokens per hour) while it lives. Models with a long-context tier
(prompts above 200k tokens) switch to that tier's prices for the whole call.
Windows: input token limits as published. A model matches the longest entry its name starts
with, so ``gemini-2.5-flash-001`` is ``gemini-2.5-flash`` and ``gemini-2.5-flash-lite`` keeps
its own row.

Finish reasons: every value of ``google.genai.types.FinishReason`` (as of google-genai 3.6) is
mapped to agentci's :data:`~agentci.finish.Finish`; any other string — a reason newer than this
table — is ``other`` (an unusable answer, never success). ``MAX_TOKENS`` is
``max_tokens_in_thinking`` when the answer so far is thoughts only. ``CONTINUATION`` (more
chunks follow) is no finish yet.
"""

from __future__ import annotations

import re
from dataclasses import replace

from agentci.finish import Finish
from agentci.providers.defaults import ModelDefaults, Price, longest_prefix

LONG_CONTEXT_TOKENS = 200_000


def _tiered(base: Price, long: Price) -> Price:
    storage = base.cache_storage
    return Price(base.input, base.output, base.cached, long=replace(long, cache_storage=storage),
                 long_above=LONG_CONTEXT_TOKENS, cache_storage=storage)  # fmt: skip


PRO_STORAGE = 4.50  # explicit context cache storage, USD per million tokens per hour
FLASH_STORAGE = 1.00

PRICES: dict[str, Price] = {
    "gemini-3-pro": _tiered(Price(2.00, 12.00, 0.20, cache_storage=PRO_STORAGE),
                            Price(4.00, 18.00, 0.40)),
    "gemini-3-flash": Price(0.50, 3.00, 0.05, cache_storage=FLASH_STORAGE),
    "gemini-2.5-pro": _tiered(Price(1.25, 10.00, 0.125, cache_storage=PRO_STORAGE),
                              Price(2.50, 15.00, 0.25)),
    "gemini-2.5-flash": Price(0.30, 2.50, 0.03, cache_storage=FLASH_STORAGE),
    "gemini-2.5-flash-lite": Price(0.10, 0.40, 0.01, cache_storage=FLASH_STORAGE),
    "gemini-2.0-flash": Price(0.10, 0.40, 0.025, cache_storage=FLASH_STORAGE),
    "gemini-2.0-flash-lite": Price(0.075, 0.30),
}  # fmt: skip

#: The smallest explicit context cache each model accepts (tokens), as published; a model
#: not listed: :data:`DEFAULT_MIN_CACHE_TOKENS`.
MIN_CACHE_TOKENS: dict[str, int] = {
    "gemini-3-pro": 4096,
    "gemini-3-flash": 1024,
    "gemini-2.5-pro": 4096,
    "gemini-2.5-flash": 1024,
    "gemini-2.0-flash": 4096,
}
DEFAULT_MIN_CACHE_TOKENS = 4096


def min_cache_tokens(model: str) -> int:
    """The smallest explicit context cache ``model`` accepts (``models/`` prefix allowed)."""
    name = model.removeprefix("models/")
    return longest_prefix(name, MIN_CACHE_TOKENS) or DEFAULT_MIN_CACHE_TOKENS


#: The window of a Gemini model this table does not know (that of current Gemini models).
DEFAULT_CONTEXT_WINDOW = 1_048_576

CONTEXT_WINDOWS: dict[str, int] = {
    "gemini-3-pro": 1_048_576,
    "gemini-3-flash": 1_048_576,
    "gemini-2.5-pro": 1_048_576,
    "gemini-2.5-flash": 1_048_576,
    "gemini-2.5-flash-lite": 1_048_576,
    "gemini-2.0-flash": 1_048_576,
    "gemini-2.0-flash-lite": 1_048_576,
    "gemma-3": 131_072,
}

#: The output limit of current Gemini models (thinking included) when the recipe sets none.
MAX_OUTPUT_TOKENS = 65_536

#: Model families that think unless told not to.
THINKING_BY_DEFAULT = ("gemini-2.5", "gemini-3")

#: Model names the google-genai SDK serves (Gemini and Gemma, by name or resource path).
NAME = re.compile(r"^(models/|tunedModels/)?(gemini|gemma|learnlm)-[\w.-]+$")


def known_models() -> list[str]:
    """The model names these tables know (for "did you mean")."""
    return sorted(set(PRICES) | set(CONTEXT_WINDOWS))


def defaults(model: str) -> ModelDefaults:
    """What the tables say about ``model`` (``models/`` prefix allowed)."""
    name = model.removeprefix("models/")
    return ModelDefaults(
        price=longest_prefix(name, PRICES),
        context_window=longest_prefix(name, CONTEXT_WINDOWS) or DEFAULT_CONTEXT_WINDOW,
        max_output_tokens=MAX_OUTPUT_TOKENS,
        thinks_by_default=name.startswith(THINKING_BY_DEFAULT),
    )


FINISH_REASONS: dict[str, Finish | None] = {
    "STOP": "stop",
    "MAX_TOKENS": "max_tokens",
    # content blocks
    "SAFETY": "safety",
    "RECITATION": "recitation",
    "IMAGE_RECITATION": "recitation",
    "LANGUAGE": "safety",
    "BLOCKLIST": "safety",
    "PROHIBITED_CONTENT": "safety",
    "SPII": "safety",
    "IMAGE_SAFETY": "safety",
    "IMAGE_PROHIBITED_CONTENT": "safety",
    "MODEL_ARMOR": "safety",
    # unusable answers: retried with a nudge
    "MALFORMED_FUNCTION_CALL": "malformed_call",
    "UNEXPECTED_TOOL_CALL": "malformed_call",
    "TOO_MANY_TOOL_CALLS": "malformed_call",
    "MISSING_THOUGHT_SIGNATURE": "other",
    "MALFORMED_RESPONSE": "other",
    "FINISH_REASON_UNSPECIFIED": "other",
    "OTHER": "other",
    "IMAGE_OTHER": "other",
    "NO_IMAGE": "other",
    "ESCALATION": "other",
    "PUP_LIMITED_DISABLED": "other",
    # more chunks follow: not an end yet
    "CONTINUATION": None,
}


def finish_of(reason: str | None, *, answered: bool = True) -> Finish | None:
    """The :data:`Finish` of a Gemini ``finishReason``; ``answered``: the answer so far holds
    text or a function call (else a ``MAX_TOKENS`` was spent thinking)."""
    if reason is None:
        return None
    finish = FINISH_REASONS.get(reason, "other")
    if finish == "max_tokens" and not answered:
        return "max_tokens_in_thinking"
    return finish
