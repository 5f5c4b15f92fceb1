"""Per-call overhead of a long history: 10 vs 200 contents, through the real SDK over HTTP.

Runs GeminiProvider against fake_gemini (loopback) and times one model call with a history
of 10 and of 200 messages, two ways:

* ``agentci``: history converted once per message (ContentCache), reused on every call;
* ``naive``: the history rebuilt as plain dicts for every call, which the SDK validates anew.

Prints mean milliseconds per call and the 200/10 ratios; the bytes sent grow with the history
either way, so what matters is how much more than the bytes the long history costs.

    python bench/bench_history.py [--calls 30]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from agentci.providers.base import (
    Message,
    ModelRequest,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
)
from agentci.providers.gemini import GeminiProvider
from agentci.providers.gemini_wire import message_to_json
from agentci.recipe.model_config import ModelConfig
from agentci.testing.fake_gemini import FakeGemini

TOOLS = [
    ToolSpec(
        f"tool_{i}", "A tool. " * 20, {"type": "object", "properties": {"path": {"type": "string"}}}
    )
    for i in range(7)
]


def history(n: int) -> list[Message]:
    msgs = [Message("user", [TextPart("Fix the failing test. " * 20)])]
    i = 0
    while len(msgs) < n:
        i += 1
        msgs.append(
            Message(
                "model",
                [
                    TextPart("Let me look at the file."),
                    ToolCallPart(f"c{i}", "read_file", {"file_path": f"src/m{i}.py"}, "c2ln" * 8),
                ],
            )
        )
        msgs.append(Message("user", [ToolResultPart(f"c{i}", "read_file", "x = 1\n" * 150)]))
    return msgs[:n] if msgs[n - 1].role == "user" else msgs[: n - 1]


async def time_calls(provider: GeminiProvider, req: ModelRequest, calls: int, naive: bool) -> float:
    async def one() -> None:
        if naive:
            client = provider._get_client()
            contents = [message_to_json(m) for m in req.messages]
            stream = await client.aio.models.generate_content_stream(
                model=req.model, contents=contents, config=provider.build_config(req)
            )
            async for _ in stream:
                pass
        else:
            async for _ in provider.stream(req):
                pass

    await one()  # warm up: client, config, cached contents
    start = time.perf_counter()
    for _ in range(calls):
        await one()
    return (time.perf_counter() - start) / calls * 1000


async def main(calls: int) -> None:
    results: dict[tuple[str, int], float] = {}
    with FakeGemini() as fake:
        fake.add(*[{"text": "ok"}] * (4 * (calls + 1)))
        cfg = ModelConfig(name="gemini-2.5-flash")
        for mode in ("agentci", "naive"):
            for n in (10, 200):
                provider = GeminiProvider.from_config(cfg, fake.env())
                req = ModelRequest("gemini-2.5-flash", "system " * 200, history(n), TOOLS)
                results[(mode, n)] = await time_calls(provider, req, calls, mode == "naive")
    print(f"{'mode':8} {'10 contents':>12} {'200 contents':>13} {'ratio':>6}")
    for mode in ("agentci", "naive"):
        a, b = results[(mode, 10)], results[(mode, 200)]
        print(f"{mode:8} {a:10.2f}ms {b:11.2f}ms {b / a:6.1f}x")
    ratio = results[("naive", 200)] / results[("agentci", 200)]
    print(f"naive/agentci at 200 contents: {ratio:.1f}x")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calls", type=int, default=30)
    asyncio.run(main(ap.parse_args().calls))
