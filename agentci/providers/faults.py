"""Provider faults the chat layer tells apart, and how HTTP errors are classified.

* :class:`~agentci.providers.base.TransientProviderError` — worth retrying the turn
  (429 rate limit, 408, 5xx, connection errors, timeouts, cut or malformed streams);
* :class:`QuotaExhausted` — a quota that will not come back soon (per-day quota, exhausted
  billing): not retried, the chat layer falls back to the next model;
* :class:`~agentci.errors.ProviderFailed` — final (400, 401, 403, 404, ...).

Google's error bodies carry ``google.rpc.RetryInfo`` (``retryDelay: "1.5s"``) and
``google.rpc.QuotaFailure`` details; :func:`classify_http_error` reads them, and a
``Retry-After`` header, without depending on any SDK.
"""

from __future__ import annotations

import errno
import ipaddress
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from agentci.errors import ProviderFailed
from agentci.providers.base import TransientProviderError

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})


class QuotaExhausted(TransientProviderError):
    """A quota is spent for a long time (e.g. per day): switch models instead of waiting."""


def _seconds(value: Any) -> float | None:
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ms|s)?\s*", value)
        if m:
            n = float(m.group(1))
            return n / 1000 if m.group(2) == "ms" else n
    return None


def _details(body: Any) -> list[dict[str, Any]]:
    if isinstance(body, list) and body:  # some endpoints wrap the error in a list
        body = body[0]
    if not isinstance(body, dict):
        return []
    err = body.get("error", body)
    details = err.get("details") if isinstance(err, dict) else None
    return [d for d in details if isinstance(d, dict)] if isinstance(details, list) else []


def retry_delay_from(body: Any, headers: Mapping[str, str] | None = None) -> float | None:
    """The server-suggested delay: RetryInfo.retryDelay, else the Retry-After header."""
    for d in _details(body):
        if str(d.get("@type", "")).endswith("google.rpc.RetryInfo"):
            s = _seconds(d.get("retryDelay"))
            if s is not None:
                return s
    if headers:
        for k, v in headers.items():
            if k.lower() == "retry-after":
                return _seconds(v)
    return None


def is_long_quota(body: Any) -> bool:
    """True when a 429 names a per-day (or longer) quota, or a spent billing quota."""
    for d in _details(body):
        if not str(d.get("@type", "")).endswith("google.rpc.QuotaFailure"):
            continue
        for v in d.get("violations", []) or []:
            qid = f"{v.get('quotaId', '')} {v.get('quotaMetric', '')}"
            if "PerDay" in qid or "per_day" in qid.lower():
                return True
    err = body.get("error", body) if isinstance(body, dict) else {}
    msg = str(err.get("message", "")) if isinstance(err, dict) else ""
    return "check your plan and billing" in msg.lower()


def classify_http_error(
    code: int, message: str, body: Any = None, headers: Mapping[str, str] | None = None
) -> Exception:
    """The agentci error for an HTTP error answer of the model API."""
    text = f"HTTP {code}: {message}"
    if code == 429 and is_long_quota(body):
        return QuotaExhausted(text, retry_after=retry_delay_from(body, headers))
    if code in RETRYABLE_STATUS or code >= 500:
        return TransientProviderError(text, retry_after=retry_delay_from(body, headers))
    hint = {
        400: "the request was rejected",
        401: "the API key was rejected",
        403: "the API key may not use this model",
        404: "no such model or endpoint",
    }.get(code)
    return ProviderFailed(f"{text}" + (f" ({hint})" if hint else ""))


def refused(e: BaseException) -> bool:
    """Whether ``e`` or an exception it was raised from is a refused connection (ECONNREFUSED;
    httpx wraps it twice, aiohttp carries its errno)."""
    seen: set[int] = set()
    cause: BaseException | None = e
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if (
            isinstance(cause, ConnectionRefusedError)
            or getattr(cause, "errno", None) == errno.ECONNREFUSED
        ):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (``localhost``, 127.0.0.0/8, ``::1``). A refused
    connection there means no server runs: no retry or backoff will start one, so it fails at
    once instead of after every retry (a refused connection elsewhere is still retried)."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
