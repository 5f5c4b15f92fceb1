"""The google-genai SDK's exceptions as agentci's typed provider errors.

SDK and HTTP errors are mapped with :mod:`agentci.providers.faults`; a connection refused by a
loopback base URL (no server runs there) is :class:`~agentci.errors.ProviderFailed` at once,
not retried.
"""

from __future__ import annotations

from agentci.errors import ProviderFailed
from agentci.providers.base import TransientProviderError
from agentci.providers.faults import classify_http_error, is_loopback, refused
from agentci.providers.gemini_client import DEFAULT_BASE_URL


def map_error(e: Exception, *, endpoint: str = DEFAULT_BASE_URL) -> Exception:
    """SDK / transport exception → agentci's typed provider errors (a connection error names
    the ``endpoint`` it tried)."""
    if isinstance(e, (ProviderFailed, TransientProviderError)):
        return e
    name = type(e).__name__
    module = type(e).__module__ or ""
    if module.startswith("google."):
        # deferred: google-genai is slow to import; only the SDK's own errors need it
        from google.genai import errors

        if isinstance(e, errors.APIError):
            headers = dict(e.response.headers) if getattr(e, "response", None) is not None else {}
            return classify_http_error(
                int(e.code or 0), str(e.message or e.status), e.details, headers
            )
        if isinstance(e, errors.UnknownApiResponseError):
            return TransientProviderError(f"malformed response chunk: {str(e)[:200]}")
    if module.startswith(("httpx", "httpcore", "aiohttp")) or isinstance(
        e, (ConnectionError, TimeoutError, OSError)
    ):
        if refused(e) and is_loopback(endpoint):
            return ProviderFailed(
                f"connection refused by {endpoint}: nothing listens there (is the server that "
                "model.base_url / GOOGLE_GEMINI_BASE_URL names running?); not retried"
            )
        return TransientProviderError(f"connection error to {endpoint}: {name}: {e}")
    return e


def names_cache(e: Exception) -> bool:
    """Whether a failed call's error is about its cached content (expired, deleted, refused)."""
    text = str(e).lower()
    return "cachedcontent" in text.replace(" ", "").replace("_", "") or "cached content" in text
