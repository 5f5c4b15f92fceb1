"""Helpers for provider tests: a Chat over the real SDK against fake_gemini (imported by
tests in this folder; pytest puts the folder on sys.path)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from agentci.loop.chat import Chat
from agentci.providers.base import Message, ModelChunk, ModelRequest, TextPart, ToolSpec
from agentci.providers.gemini import GeminiProvider
from agentci.recipe.model_config import ModelConfig, RetryConfig
from agentci.testing.fake_gemini import FakeGemini

#: Retries without waiting (``Sleeps`` records the delays). The timeouts are long: a test that
#: is not about them must not see one fire because the machine is busy. The first call of a
#: worker process imports the SDK inside the first-chunk timer (``import openai`` alone took
#: 5-6.5 s on a loaded 2-core runner), and a process kept off the CPU for half a second
#: would trip a short inactivity timer between two chunks the fake already sent. A test of a
#: timeout sets its own (:data:`STALL_RETRY`).
FAST_RETRY = RetryConfig(
    attempts=3,
    initial_delay_seconds=0.01,
    max_delay_seconds=0.05,
    request_timeout_seconds=120,
    stream_idle_timeout_seconds=120,
)
#: A short inactivity timeout, for a test whose stream stalls far longer than it.
STALL_RETRY = FAST_RETRY.model_copy(update={"stream_idle_timeout_seconds": 0.5})
TOOLS = [
    ToolSpec(
        "read_file",
        "Read a file",
        {
            "type": "object",
            "properties": {"file_path": {"type": "string"}},
            "required": ["file_path"],
        },
    )
]


def model_config(**kw: Any) -> ModelConfig:
    kw.setdefault("name", "gemini-2.5-flash")
    kw.setdefault("retry", FAST_RETRY)
    return ModelConfig(**kw)


def make_chat(fake: FakeGemini, *, raw_path: bool = True, **kw: Any) -> Chat:
    """A Chat against ``fake``; ``raw_path`` picks the private streaming path (a prebuilt body
    sent without the SDK) or the SDK's public ``generate_content_stream``."""
    cfg = model_config(**kw)
    provider = GeminiProvider.from_config(cfg, fake.env())
    provider.raw_path = raw_path
    assert provider.uses_raw_path() is raw_path
    return Chat(provider, cfg, sleep=Sleeps())


def request(*texts: str, messages: list[Message] | None = None) -> ModelRequest:
    msgs = messages if messages is not None else [Message("user", [TextPart(t)]) for t in texts]
    return ModelRequest("ignored", "You are a test.", msgs, TOOLS)


@dataclass
class Sleeps:
    """An injected sleep that records the delays and does not wait."""

    delays: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@dataclass
class Result:
    items: list[Any]
    error: BaseException | None

    @property
    def chunks(self) -> list[ModelChunk]:
        return [i for i in self.items if isinstance(i, ModelChunk)]

    def events(self, kind: str) -> list[Any]:
        return [i for i in self.items if getattr(i, "type", None) == kind]

    def final_parts(self) -> list[Any]:
        """Parts after the last retry event: what the Turn keeps."""
        kept: list[Any] = []
        for i in self.items:
            if getattr(i, "type", None) == "retry":
                kept = []
            elif isinstance(i, ModelChunk):
                kept.extend(i.parts)
        return kept


def run(chat: Chat, req: ModelRequest) -> Result:
    items: list[Any] = []

    async def go() -> None:
        async for item in chat.stream(req):
            items.append(item)

    try:
        asyncio.run(go())
    except Exception as e:  # noqa: BLE001
        return Result(items, e)
    return Result(items, None)
