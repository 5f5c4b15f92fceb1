"""Which credentials a Gemini call uses: an API key from the environment, or Vertex AI.

The key is the variable ``model.api_key_env`` names, else ``GEMINI_API_KEY``, else
``GOOGLE_API_KEY``; Vertex AI when the SDK's own ``GOOGLE_GENAI_USE_VERTEXAI`` is set (with
``GOOGLE_CLOUD_PROJECT``/``GOOGLE_CLOUD_LOCATION`` and Google credentials, or in express mode
with an API key and no project). A missing key is :class:`~agentci.errors.InvalidInput` naming
the variables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from agentci.errors import InvalidInput

if TYPE_CHECKING:
    from agentci.recipe.model_config import ModelConfig

KEY_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")


def has_credentials(environ: Mapping[str, str]) -> bool:
    """Whether a Gemini model can be called from ``environ``: an API key, or Vertex AI."""
    return any(environ.get(v) for v in KEY_VARS) or uses_vertex_ai(environ)


def uses_vertex_ai(environ: Mapping[str, str]) -> bool:
    """Whether the SDK's ``GOOGLE_GENAI_USE_VERTEXAI`` switches calls to Vertex AI."""
    return (environ.get("GOOGLE_GENAI_USE_VERTEXAI") or "").strip().lower() in ("1", "true", "yes")


def key_note(environ: Mapping[str, str]) -> str | None:
    """When both key variables are set: which one agentci sends (the SDK's own warning, which
    names the other one, is dropped)."""
    if environ.get("GEMINI_API_KEY") and environ.get("GOOGLE_API_KEY"):
        return "GEMINI_API_KEY and GOOGLE_API_KEY are both set: agentci sends GEMINI_API_KEY"
    return None


def api_key(model: ModelConfig, environ: Mapping[str, str]) -> str | None:
    """The API key ``model`` is called with (None: Vertex AI with Google credentials).
    Raises InvalidInput when there is neither."""
    if model.api_key_env:  # the recipe names the key's variable: that one only
        key = environ.get(model.api_key_env) or None
        if key is None:
            raise InvalidInput(
                f"model {model.name!r} needs an API key: set {model.api_key_env} "
                "(model.api_key_env names it)"
            )
    else:
        key = next((environ[v] for v in KEY_VARS if environ.get(v)), None)
    if key is None and not has_credentials(environ):
        raise InvalidInput(
            f"model {model.name!r} needs an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), "
            "or GOOGLE_GENAI_USE_VERTEXAI=true for Vertex AI"
        )
    return key
