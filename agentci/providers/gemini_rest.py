"""The Gemini Developer API's streaming call without the SDK: one ``streamGenerateContent``
POST over httpx2, its server-sent events read as JSON.

Importing google-genai costs about half a second of CPU (its ``types`` module builds some 700
pydantic models), more than the rest of a one-turn run; a run's calls to the Developer API need
none of it. The provider already builds the REST body itself (:func:`~agentci.providers.
gemini_wire.request_body`); this module sends it the way the SDK's HTTP client does — the
API version in the path, the key in ``x-goog-api-key``, ``X-Server-Timeout``, the proxy and
certificate settings of the environment (``HTTPS_PROXY``, ``SSL_CERT_FILE``, as httpx2 reads
them) — and yields each event's JSON, which :meth:`~agentci.providers.gemini_wire.
StreamDecoder.decode_json` reads. An error answer (any status but 200, or an ``error`` object
in the stream) becomes the same typed error the SDK's exception was mapped to
(:func:`~agentci.providers.faults.classify_http_error`), a chunk that is not JSON a
:class:`~agentci.providers.base.TransientProviderError`. Vertex AI, context caches and the
fallback path still go through the SDK (:mod:`agentci.providers.gemini`).

The TLS context (the CA bundle, about 30 ms of CPU to load) is made once per process, by the
run's warm-up thread when there is one (:func:`tls_context`).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from agentci import __version__
from agentci.providers.base import TransientProviderError
from agentci.providers.faults import classify_http_error

if TYPE_CHECKING:
    import ssl

    import httpx2

USER_AGENT = f"agentci/{__version__}"


def _httpx2() -> ModuleType:
    # deferred: httpx2 is 0.1 s of CPU; validate and the pre-commit hook load this module
    import httpx2

    return httpx2


@functools.lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    """The process's TLS context for the API (httpx2's default: the system's CA bundle, or
    ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``), made on first use."""
    context: ssl.SSLContext = _httpx2().create_ssl_context()
    return context


def new_http_client() -> httpx2.AsyncClient:
    """An HTTP client for the API calls of one event loop (timeouts are set per request)."""
    client: httpx2.AsyncClient = _httpx2().AsyncClient(verify=tls_context(), timeout=None)
    return client


@dataclass(frozen=True)
class Endpoint:
    """Where a Developer API call goes and with which key."""

    base_url: str
    api_version: str
    api_key: str | None
    timeout_seconds: float | None

    def url(self, model: str, action: str) -> str:
        """``{base}/{version}/{model}:{action}`` (``model`` as ``models/NAME``)."""
        return f"{self.base_url.rstrip('/')}/{self.api_version}/{model}:{action}"

    def headers(self) -> dict[str, str]:
        out = {"Content-Type": "application/json", "user-agent": USER_AGENT}
        if self.api_key:
            out["x-goog-api-key"] = self.api_key
        if self.timeout_seconds:
            out["X-Server-Timeout"] = str(math.ceil(self.timeout_seconds))
        return out


def compact_json(value: Any) -> str:
    """JSON without a space after ``,`` and ``:``, text that is not ASCII left as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def encode_body(body: Mapping[str, Any], contents: Sequence[str] | None = None) -> bytes:
    """``body`` as compact UTF-8 JSON, as the API's own clients send it: no space after ``,``
    and ``:`` (about 4% of a history of small tool outputs), and text that is not ASCII as
    UTF-8 (2-3 bytes a character instead of a 6-byte ``\\uXXXX`` escape). ``contents``, when
    given, are the body's ``contents`` already encoded that way (one text each, kept by
    :meth:`~agentci.providers.gemini_wire.ContentCache.text`), joined instead of encoded
    again. A lone surrogate (a model's ``\\ud800`` escape, read back into an argument) has no
    UTF-8 form: a body holding one is sent with escapes, as ASCII."""
    try:
        if contents is None:
            return compact_json(body).encode("utf-8")
        rest = compact_json({k: v for k, v in body.items() if k != "contents"})
        head = '{"contents":[' + ",".join(contents) + "]"
        return (head + ("," + rest[1:] if rest != "{}" else "}")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(body, separators=(",", ":")).encode("ascii")


async def stream_generate(
    client: httpx2.AsyncClient,
    endpoint: Endpoint,
    model: str,
    body: Mapping[str, Any],
    contents: Sequence[str] | None = None,
) -> AsyncIterator[dict[str, Any]]:
    """POST ``body`` (its ``contents`` already encoded, if given: :func:`encode_body`) to
    ``model``'s ``streamGenerateContent`` (SSE) and yield each event's JSON object. Raises the
    typed error of an error answer; transport errors are httpx2's."""
    request = client.build_request(
        "POST",
        endpoint.url(model, "streamGenerateContent") + "?alt=sse",
        content=encode_body(body, contents),
        headers=endpoint.headers(),
        timeout=endpoint.timeout_seconds,
    )
    response = await client.send(request, stream=True)
    try:
        if response.status_code != 200:
            await response.aread()
            raise _http_error(response.status_code, _error_json(response), response.headers)
        data: list[str] = []  # the data lines of the event being read
        other: list[str] = []  # lines outside any event (an error the API wrote as raw JSON)
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            elif not line.strip():
                if data:
                    yield _event(data, response.headers)
                    data = []
            else:
                other.append(line)
        if data:
            yield _event(data, response.headers)
        if "".join(other).strip():
            yield _event(other, response.headers)
    finally:
        await response.aclose()


def _event(lines: list[str], headers: Mapping[str, str]) -> dict[str, Any]:
    text = "\n".join(lines)
    try:
        raw = json.loads(text)
    except ValueError:
        raise TransientProviderError(f"malformed response chunk: {text[:200]}") from None
    if isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    if not isinstance(raw, dict):
        raise TransientProviderError(f"malformed response chunk: {text[:200]}")
    if "error" in raw:
        error = raw["error"] if isinstance(raw["error"], dict) else {}
        code = error.get("code")
        raise _http_error(code if isinstance(code, int) else 0, raw, headers)
    return raw


def _error_json(response: httpx2.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return {"message": response.text, "status": response.reason_phrase}


def _http_error(code: int, body: Any, headers: Mapping[str, str]) -> Exception:
    """The typed error of an error answer, read as the SDK's ``APIError`` reads it."""
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    error = error if isinstance(error, dict) else {}
    fields = body if isinstance(body, dict) else {}
    message = fields.get("message", error.get("message"))
    status = fields.get("status", error.get("status"))
    code = code or int(fields.get("code", error.get("code")) or 0)
    return classify_http_error(code, str(message or status), body, dict(headers))


# ---------------------------------------------------------------- reading the answer's JSON


class WireShapeError(ValueError):
    """A field of a streamed chunk has another type than the API's (the private path gives way
    to the SDK's, see :mod:`agentci.providers.gemini`)."""


def shaped(value: Any, kind: type | tuple[type, ...], name: str) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise WireShapeError(f"{name}: {type(value).__name__} where the API sends another type")
    return value


def str_field(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return None if value is None else str(shaped(value, str, key))


def int_field(obj: Mapping[str, Any], key: str) -> int:
    value = obj.get(key)
    return 0 if value is None else int(shaped(value, int, key))


def obj_field(obj: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    value = obj.get(key)
    return None if value is None else dict(shaped(value, dict, key))


def list_field(obj: Mapping[str, Any], key: str) -> list[Any] | None:
    value = obj.get(key)
    return None if value is None else list(shaped(value, list, key))
