"""A loopback HTTP server that speaks OpenAI-compatible chat completions from a script.

Point the real ``openai`` package (or agentci with ``model.provider: openai``) at it with
``OPENAI_BASE_URL=http://127.0.0.1:PORT/v1`` and any ``OPENAI_API_KEY``. It serves
``POST …/chat/completions`` under any prefix (``/v1``, Azure's ``/openai/v1``, OpenRouter's
``/api/v1``), streamed as SSE (``stream: true``, ending with ``data: [DONE]``) or not, and
``GET …/models``. Each call consumes the next turn of the script, in the format the fake
Gemini server reads (:mod:`agentci.testing.fake_script`), rendered the way OpenAI streams:

* a first chunk with ``role: assistant``; ``thought`` as ``reasoning_content`` deltas (vLLM,
  DeepSeek, LM Studio); ``text`` as ``content``;
* each function call as ``tool_calls`` deltas: the id, type and name first, then the JSON
  arguments in three pieces, calls one after the other by ``index``; an id of its own
  (``call_<turn>_<n>``) unless the script gives one, none at all with ``no_ids``;
* the finish reason translated (``STOP`` → ``stop``, or ``tool_calls`` after calls;
  ``MAX_TOKENS`` → ``length``; ``SAFETY``/``RECITATION``/… → ``content_filter``; anything
  else as written);
* usage in a last chunk with no choices, only when the request asked for it
  (``stream_options.include_usage``) and the turn has no ``no_usage``; completion tokens count
  the thoughts, as OpenAI's do (``completion_tokens_details.reasoning_tokens``).

Errors come in OpenAI's shape (``{"error": {"message", "type", "code"}}``): ``retry_after``
as a ``Retry-After`` header, ``retry_delay`` as ``retry-after-ms``, ``quota: daily`` as
``insufficient_quota``; a ``block_reason`` is a 400 with code ``content_filter`` (Azure's
answer to a filtered prompt). Stream faults (``cut_after``, ``malformed_after``,
``stall_after``) count chunks as the list above renders them.

From a shell::

    python -m agentci.testing.fake_openai --script turns.json --port 8766
"""

from __future__ import annotations

import json
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

from agentci.testing.fake_script import ErrorSpec, Turn, UsageSpec
from agentci.testing.fake_server import FakeServer, RecordedRequest, ScriptHandler, serve_main

__all__ = ["FakeOpenAI", "openai_chunks", "main"]

CREATED = 1764547200  # a fixed timestamp: answers do not change between runs

_FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    **{
        r: "content_filter"
        for r in ("SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII")
    },
}
_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 403: "permission_error",
          404: "invalid_request_error", 429: "requests"}  # fmt: skip


def error_body(spec: ErrorSpec) -> dict[str, Any]:
    """A scripted error in OpenAI's shape."""
    code: str | None = {401: "invalid_api_key", 404: "model_not_found"}.get(spec.code)
    message = spec.message or f"fake_openai: scripted error {spec.code}"
    if spec.quota == "daily":
        code = "insufficient_quota"
        message = spec.message or (
            "You exceeded your current quota, please check your plan and billing details."
        )
    kind = "insufficient_quota" if spec.quota == "daily" else _TYPES.get(spec.code, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _pieces(text: str, n: int) -> list[str]:
    """``text`` cut into ``n`` pieces (fewer when short), as a model streams arguments."""
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _finish(turn: Turn) -> str | None:
    if turn.finish_reason is None:
        return None
    if turn.finish_reason == "STOP" and turn.function_calls:
        return "tool_calls"
    return _FINISH.get(turn.finish_reason, turn.finish_reason)


def _usage(u: UsageSpec) -> dict[str, Any]:
    return {
        "prompt_tokens": u.prompt,
        "completion_tokens": u.output + u.thoughts,
        "total_tokens": u.prompt + u.output + u.thoughts,
        "prompt_tokens_details": {"cached_tokens": u.cached},
        "completion_tokens_details": {"reasoning_tokens": u.thoughts},
    }


def openai_chunks(
    turn: Turn, index: int, model: str, default_usage: UsageSpec, include_usage: bool
) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects of one turn (see the module docstring)."""
    if turn.chunks is not None:
        return [dict(c) for c in turn.chunks]
    base = {"id": f"chatcmpl-fake-{index}", "object": "chat.completion.chunk",
            "created": CREATED, "model": turn.model_version or model}  # fmt: skip

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    if turn.thought:
        out.append(chunk({"reasoning_content": turn.thought}))
    if turn.text:
        out.append(chunk({"content": turn.text}))
    for i, fc in enumerate(turn.function_calls):
        head: dict[str, Any] = {"index": i, "type": "function",
                                "function": {"name": fc.name, "arguments": ""}}  # fmt: skip
        if not turn.no_ids:
            head["id"] = fc.id or f"call_{index}_{i}"
        out.append(chunk({"tool_calls": [head]}))
        for piece in _pieces(json.dumps(fc.args), 3):
            out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    finish = _finish(turn)
    if finish is not None:
        out.append(chunk({}, finish))
    if include_usage and not turn.no_usage:
        out.append({**base, "choices": [], "usage": _usage(turn.usage or default_usage)})
    return out


def _merge(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """A non-streamed ``chat.completion``: the chunks' deltas joined."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    calls: dict[int, dict[str, Any]] = {}
    out: dict[str, Any] = {"object": "chat.completion"}
    finish = None
    for c in chunks:
        out.update({k: v for k, v in c.items() if k not in ("choices", "object")})
        for choice in c.get("choices", [])[:1]:
            delta = choice.get("delta", {})
            for key in ("content", "reasoning_content"):
                if delta.get(key):
                    message[key] = (message.get(key) or "") + delta[key]
            for tc in delta.get("tool_calls", []):
                call = calls.setdefault(tc["index"], {"type": "function", "function":
                                                      {"name": "", "arguments": ""}})  # fmt: skip
                if "id" in tc:
                    call["id"] = tc["id"]
                fn = tc.get("function", {})
                call["function"]["name"] += fn.get("name") or ""
                call["function"]["arguments"] += fn.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    out["choices"] = [{"index": 0, "message": message, "finish_reason": finish}]
    return out


class _Handler(ScriptHandler):
    NAME: ClassVar[str] = "fake_openai"
    MALFORMED: ClassVar[bytes] = b'data: {"choices": [{"delta": {"con\r\n\r\n'

    def do_GET(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        if not path.endswith("/models"):
            self.send_json(404, error_body(ErrorSpec(code=404, message=f"no route {path}")))
            return
        names = ["fake-model", *self.server.state.by_model]
        data = [{"id": n, "object": "model", "created": CREATED, "owned_by": "fake"} for n in names]
        self.send_json(200, {"object": "list", "data": data})

    def do_POST(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        raw = self.read_body()
        if not url.path.endswith("/chat/completions"):
            msg = f"fake_openai: no route {url.path}"
            self.send_json(404, error_body(ErrorSpec(code=404, message=msg)))
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            msg = "fake_openai: body is not JSON"
            self.send_json(400, error_body(ErrorSpec(code=400, message=msg)))
            return
        version = url.path.removesuffix("/chat/completions").rsplit("/", 1)[-1]
        headers = {k.lower(): v for k, v in self.headers.items()}
        model = str(body.get("model", ""))
        rec = RecordedRequest("POST", url.path, version, model, "chat.completions",
                              parse_qs(url.query), headers, body, size=len(raw))  # fmt: skip
        turn, missing = self.server.state.take(rec)
        if turn is None:
            self.send_json(400, error_body(ErrorSpec(code=400, message=f"fake_openai: {missing}")))
            return
        if turn.error is not None:
            extra = {}
            if turn.error.retry_after is not None:
                extra["Retry-After"] = f"{turn.error.retry_after:g}"
            if turn.error.retry_delay is not None:
                extra["retry-after-ms"] = f"{turn.error.retry_delay * 1000:g}"
            self.send_json(turn.error.code, error_body(turn.error), extra)
            return
        if turn.block_reason:
            msg = f"The prompt was filtered ({turn.block_reason})"
            err = {"error": {"message": msg, "type": "invalid_request_error",
                             "param": "prompt", "code": "content_filter"}}  # fmt: skip
            self.send_json(400, err)
            return
        self.think()
        usage = UsageSpec(prompt=max(1, len(raw) // 4), output=8)
        stream = bool(body.get("stream"))
        include = stream and bool((body.get("stream_options") or {}).get("include_usage"))
        chunks = openai_chunks(turn, rec.turn or 0, model, usage, include or not stream)
        if stream:
            self.send_sse(turn, chunks, done=b"[DONE]")
        else:
            self.send_json(200, _merge(chunks))


class FakeOpenAI(FakeServer):
    """The fake OpenAI-compatible server; a context manager serving from a background thread.

    ``scripts`` gives a model (by the name requests carry) a script of its own."""

    handler = _Handler
    url_var = "OPENAI_BASE_URL"

    @property
    def api_base(self) -> str:
        """The base URL clients are given (``…/v1``, as ``OPENAI_BASE_URL`` expects)."""
        return f"{self.base_url}/v1"

    def env(self, api_key: str = "fake-key") -> dict[str, str]:
        """Environment for a client of this server (the ``openai`` package, agentci)."""
        return {"OPENAI_BASE_URL": self.api_base, "OPENAI_API_KEY": api_key}


def main(argv: list[str] | None = None) -> int:
    """``python -m agentci.testing.fake_openai --script turns.json --port N``"""
    return serve_main(
        FakeOpenAI, argv, prog="python -m agentci.testing.fake_openai", description=__doc__
    )


if __name__ == "__main__":
    raise SystemExit(main())
