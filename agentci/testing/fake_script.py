"""The script format of the fake model servers: what the fake answers, call by call.

One format for both dialects: :mod:`agentci.testing.fake_gemini` renders a turn as Gemini
``GenerateContentResponse`` chunks, :mod:`agentci.testing.fake_openai` as OpenAI chat
completion chunks (``thought`` becomes ``reasoning_content``, finish reasons are translated,
``chunks`` are raw chunks of that server's own wire format).

A script is a JSON list of turns (or ``{"turns": [...]}``); each model call consumes the next
turn. A turn is either a list of raw ``GenerateContentResponse`` chunks, or an object::

    {"text": "Hello"}                                   one text chunk, finishReason STOP
    {"thought": "Let me look", "function_calls": [
        {"name": "read_file", "args": {"file_path": "a.py"}, "id": "c1",
         "thought_signature": "c2ln"}]}                 thoughts + calls (each call its own chunk)
    {"text": "partial", "finish_reason": "MAX_TOKENS"}  any finish reason, or null for none
    {"block_reason": "SAFETY"}                          promptFeedback.blockReason, no candidates
    {"chunks": [{...raw chunk...}, ...]}                 exact chunks (camelCase)
    {"error": {"code": 429, "retry_delay": 0.5}}        an HTTP error (RetryInfo in the body)
    {"error": {"code": 429, "quota": "daily"}}          quota exhausted (QuotaFailure PerDay)
    {"error": {"code": 503, "retry_after": 1}}          Retry-After header
    {"text": "...", "cut_after": 1}                     stream closed after N chunks
    {"text": "...", "malformed_after": 0}               a non-JSON chunk after N chunks
    {"text": "...", "stall_after": 0, "stall_seconds": 5}  stream stalls after N chunks
    {"text": "...", "no_usage": true}                   the server reports no token usage
    {"function_calls": [...], "no_ids": true}           calls without ids (partial servers)

``usage`` (``{"prompt": 10, "output": 5, "thoughts": 0, "cached": 0}``) and ``model_version``
go into the last chunk; by default usage is estimated from the request's size.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    408: "DEADLINE_EXCEEDED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FunctionCall(_Strict):
    """A call the fake model makes."""

    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    thought_signature: str | None = None


class UsageSpec(_Strict):
    """Token counts reported in usageMetadata."""

    prompt: int = 0
    output: int = 0
    thoughts: int = 0
    cached: int = 0


class ErrorSpec(_Strict):
    """An HTTP error answer in Google's error shape."""

    code: int = 500
    message: str | None = None
    status: str | None = None
    retry_delay: float | None = Field(default=None, description="RetryInfo.retryDelay, seconds")
    retry_after: float | None = Field(default=None, description="Retry-After header, seconds")
    quota: Literal["minute", "daily"] | None = None

    def body(self) -> dict[str, Any]:
        details: list[dict[str, Any]] = []
        if self.quota:
            qid = (
                "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
                if self.quota == "daily"
                else "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
            )
            details.append(
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [{"quotaId": qid, "quotaMetric": "generate_content_requests"}],
                }
            )
        if self.retry_delay is not None:
            details.append(
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": f"{self.retry_delay:g}s",
                }
            )
        return {
            "error": {
                "code": self.code,
                "message": self.message or f"fake_gemini: scripted error {self.code}",
                "status": self.status or _STATUS.get(self.code, "UNKNOWN"),
                "details": details,
            }
        }


class Turn(_Strict):
    """One model call's answer (see the module docstring)."""

    text: str | None = None
    thought: str | None = None
    function_calls: list[FunctionCall] = Field(default_factory=list)
    finish_reason: str | None = "STOP"
    block_reason: str | None = None
    usage: UsageSpec | None = None
    model_version: str | None = None
    chunks: list[dict[str, Any]] | None = None
    error: ErrorSpec | None = None
    cut_after: int | None = Field(default=None, ge=0)
    malformed_after: int | None = Field(default=None, ge=0)
    stall_after: int | None = Field(default=None, ge=0)
    stall_seconds: float = 30.0
    no_usage: bool = False
    no_ids: bool = False

    def build_chunks(self, default_usage: UsageSpec, model: str) -> list[dict[str, Any]]:
        """The response chunks of this turn, camelCase, as the API streams them."""
        if self.chunks is not None:
            return [dict(c) for c in self.chunks]
        usage = self.usage or default_usage
        last: dict[str, Any] = {"modelVersion": self.model_version or model}
        if not self.no_usage:
            last["usageMetadata"] = {
                "promptTokenCount": usage.prompt,
                "candidatesTokenCount": usage.output,
                "thoughtsTokenCount": usage.thoughts,
                "cachedContentTokenCount": usage.cached,
                "totalTokenCount": usage.prompt + usage.output + usage.thoughts,
            }
        if self.block_reason:
            last["promptFeedback"] = {"blockReason": self.block_reason}
            return [last]
        parts: list[dict[str, Any]] = []
        if self.thought:
            parts.append({"text": self.thought, "thought": True})
        if self.text:
            parts.append({"text": self.text})
        for fc in self.function_calls:
            call: dict[str, Any] = {"name": fc.name, "args": fc.args}
            if fc.id and not self.no_ids:
                call["id"] = fc.id
            part: dict[str, Any] = {"functionCall": call}
            if fc.thought_signature:
                part["thoughtSignature"] = fc.thought_signature
            parts.append(part)
        chunks = [
            {"candidates": [{"content": {"role": "model", "parts": [p]}, "index": 0}]}
            for p in parts
        ]
        cand: dict[str, Any] = {"index": 0}
        if self.finish_reason:
            cand["finishReason"] = self.finish_reason
        if len(cand) > 1 or not chunks:
            last["candidates"] = [cand]
        chunks.append(last)
        return chunks


_TURNS = TypeAdapter(list[Turn | list[dict[str, Any]]])


def parse_script(data: Any) -> list[Turn]:
    """Validate a script (a list of turns, or ``{"turns": [...]}``)."""
    if isinstance(data, dict) and set(data) == {"turns"}:
        data = data["turns"]
    items = _TURNS.validate_python(data)
    return [t if isinstance(t, Turn) else Turn(chunks=t) for t in items]


def load_script(path: Path | str) -> list[Turn]:
    """Read a JSON script file."""
    return parse_script(json.loads(Path(path).read_text(encoding="utf-8")))
