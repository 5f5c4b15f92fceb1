"""The google-genai SDK client of a Gemini provider, and what the providers of a run share.

Building a client loads the CA certificates twice (about 50 ms of CPU), so the providers of one
run share their clients (:class:`SdkPaths`, one per endpoint, key and event loop). The SDK's
automatic function calling is off and it does not retry: retries, fallback and timeouts belong
to :mod:`agentci.loop.chat`. API version ``v1beta`` (function calling, thinking and system
instructions all live there, as in Gemini CLI) unless ``GOOGLE_GENAI_API_VERSION`` says
otherwise.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google import genai

DEFAULT_API_VERSION = "v1beta"
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
_BOTH_KEYS = "Both GOOGLE_API_KEY and GEMINI_API_KEY are set"


@dataclass
class SdkPaths:
    """What the providers of one run share: which ways of calling the SDK still work (once the
    private path failed, every later task of the run uses the public one), and the SDK clients
    (one per endpoint, key and event loop: building one loads the CA certificates twice, about
    50 ms of CPU, which 16 tasks of a batch need not pay 16 times)."""

    private: bool = True
    clients: dict[str, Any] = field(default_factory=dict, repr=False)


class _DropBothKeysWarning(logging.Filter):
    """The SDK warns it uses GOOGLE_API_KEY whenever both are set, even when it is handed
    the key agentci chose (GEMINI_API_KEY first); agentci says which key it sends instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_BOTH_KEYS)


def new_client(
    *,
    api_key: str | None,
    base_url: str | None,
    vertexai: bool,
    project: str | None,
    location: str | None,
    api_version: str | None,
    timeout_seconds: float | None,
) -> genai.Client:
    """A new SDK client for these settings (Vertex AI with a project or without a key, Vertex
    AI express mode with a key, else the Gemini Developer API)."""
    # deferred: google-genai is slow to import (seconds); only a Gemini call needs it
    from google import genai

    sdk_log = logging.getLogger("google_genai._api_client")
    if not any(isinstance(f, _DropBothKeysWarning) for f in sdk_log.filters):
        sdk_log.addFilter(_DropBothKeysWarning())
    opts: dict[str, Any] = {}
    if base_url:
        opts["base_url"] = base_url
    if not vertexai:
        opts["api_version"] = api_version or DEFAULT_API_VERSION
    if timeout_seconds:
        opts["timeout"] = int(timeout_seconds * 1000)
    http = genai.types.HttpOptions(**opts)
    if vertexai and (project or not api_key):
        return genai.Client(vertexai=True, project=project, location=location, http_options=http)
    if vertexai:  # Vertex AI express mode: an API key, no project
        return genai.Client(vertexai=True, api_key=api_key, http_options=http)
    return genai.Client(api_key=api_key, http_options=http)
