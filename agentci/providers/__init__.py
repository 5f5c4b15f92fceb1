"""Model providers: gemini (google-genai), openai (OpenAI-compatible servers, the ``openai``
package), replay (cassette), scripted (in-process).

:mod:`agentci.providers.registry` lists them and picks the one that serves a model name;
:func:`make_provider` builds it. An SDK is imported only when its provider makes a call.
"""

from __future__ import annotations

from agentci.providers.registry import make_provider, model_file

__all__ = ["make_provider", "model_file"]
