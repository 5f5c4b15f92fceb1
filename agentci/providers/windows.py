"""Context windows: how many prompt tokens one request to a model may carry.

Each provider's table knows its models' windows (Gemini's in
:mod:`agentci.providers.gemini_tables`); the output limit is separate
(``model.max_output_tokens``). A recipe can override the window (``model.context_window``,
for every model of the task, fallbacks included) — to keep a session smaller than the model
allows, or for a model the table does not know. An unknown model gets
:data:`~agentci.providers.defaults.DEFAULT_CONTEXT_WINDOW`.
"""

from __future__ import annotations

from agentci.providers.registry import defaults_for


def context_window_for(model: str, override: int | None = None) -> int:
    """Prompt tokens one request to ``model`` may carry (the recipe's override first)."""
    if override is not None:
        return override
    return defaults_for(model).context_window
