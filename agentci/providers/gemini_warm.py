"""The Gemini provider's warm-up: google-genai imported, and its response models built, in a
worker thread while a run's setup and baseline verify go on (:meth:`agentci.run.runner.Runner`
starts it through ``PROVIDER.warm_up``), so the first model call finds both ready."""

from __future__ import annotations

import contextlib
from typing import Any, Final

from agentci.providers.gemini_wire import StreamDecoder, parse_response

#: A streamed chunk with every field the decoder reads (text, a thought, a signature, a
#: function call, usage with its details, a block reason): parsing it once builds the SDK's
#: response models, which it otherwise builds while the first answer is being read.
WARM_RESPONSE: Final[dict[str, Any]] = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "…", "thought": True, "thoughtSignature": "AAAA"},
                    {"text": "…"},
                    {"functionCall": {"id": "1", "name": "f", "args": {"a": 1}}},
                ],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {
        "promptTokenCount": 1,
        "candidatesTokenCount": 1,
        "thoughtsTokenCount": 1,
        "cachedContentTokenCount": 0,
        "totalTokenCount": 3,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 1}],
        "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": 1}],
    },
    "promptFeedback": {"blockReason": "SAFETY"},
    "modelVersion": "gemini-2.5-flash",
    "responseId": "r",
}


def warm_up() -> None:
    """Import google-genai and build its response models (the first model call would), in a
    worker thread while setup and the baseline verify run (the runner's warm-up)."""
    with contextlib.suppress(Exception):
        # deferred: google-genai is slow to import (seconds); only a Gemini call needs it
        import google.genai  # noqa: F401

        StreamDecoder().decode(parse_response(WARM_RESPONSE, lenient=True))
