"""Model providers: gemini (google-genai), openai (OpenAI-compatible servers, the ``openai``
package), replay (cassette), scripted (in-process).

:func:`make_provider` picks one from a recipe's ``model.name``; the SDK is imported only
when a gemini or replay provider is actually built.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentci.errors import InvalidInput

if TYPE_CHECKING:
    from agentci.providers.base import Provider
    from agentci.providers.gemini import SdkPaths
    from agentci.recipe.schema import ModelConfig


def make_provider(
    model: ModelConfig, *, base_dir: Path, sdk_paths: SdkPaths | None = None
) -> Provider:
    """Build the provider named by ``model.name``.

    ``replay:PATH`` replays a cassette, ``scripted:PATH`` runs a Python script of responses
    (PATH relative to ``base_dir``, the recipe's folder); anything else is a Gemini model
    (``sdk_paths``: shared by the Gemini providers of one run); ``openai:NAME`` (or
    ``provider: openai``) an OpenAI-compatible server.
    """
    name = model.name
    from agentci.providers.openai_compat import is_openai

    if is_openai(model):
        from agentci.providers.openai_compat import OpenAIProvider

        return OpenAIProvider.from_config(model)
    if name.startswith("replay:"):
        from agentci.providers.replay import ReplayProvider

        return ReplayProvider.from_file(model_file(name[len("replay:") :], base_dir))
    if name.startswith("scripted:"):
        from agentci.providers.scripted import ScriptedProvider

        return ScriptedProvider.from_file(model_file(name[len("scripted:") :], base_dir))
    from agentci.providers.gemini import GeminiProvider

    return GeminiProvider.from_config(model, paths=sdk_paths)


def model_file(path: str, base_dir: Path) -> Path:
    """The file of a ``replay:``/``scripted:`` model (relative to ``base_dir``); must exist."""
    if not path:
        raise InvalidInput("model.name: a replay:/scripted: model needs a file path")
    p = Path(path)
    p = p if p.is_absolute() else base_dir / p
    if not p.is_file():
        raise InvalidInput(f"model.name: no such file: {p}")
    return p
