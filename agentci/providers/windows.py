"""Context windows of Gemini models: how many prompt tokens one request may carry.

Input token limits as published for the Gemini Developer API at the time of writing; the
output limit is separate (``model.max_output_tokens``). A recipe can override the window
(``model.context_window``, for every model of the task, fallbacks included) — to keep a
session smaller than the model allows, or for a model this table does not know. A model
matches the longest entry its name starts with, like the price table
(:mod:`agentci.providers.pricing`); an unknown model gets :data:`DEFAULT_CONTEXT_WINDOW`.
"""

from __future__ import annotations

#: The window of a model the table does not know (that of current Gemini models).
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


def context_window_for(model: str, override: int | None = None) -> int:
    """Prompt tokens one request to ``model`` may carry (the recipe's override first)."""
    if override is not None:
        return override
    name = model.removeprefix("models/")
    best = max((k for k in CONTEXT_WINDOWS if name.startswith(k)), key=len, default=None)
    return CONTEXT_WINDOWS[best] if best else DEFAULT_CONTEXT_WINDOW
