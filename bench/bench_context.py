"""A long session with and without context management: bytes sent, tokens, time per turn.

One scripted session of ``--turns`` turns, each reading ``--output-chars`` characters of a file
(a different range every turn), run three times through agentci's Session, the real
google-genai SDK and the loopback ``fake_gemini`` server, with the model's default context
window (the built-in table's, as users get it) or ``--window`` tokens:

* ``none``: no compression and no masking (the window never reached, masking off);
* ``masking``: old tool output masked beyond the default 50,000 tokens, no compression;
* ``compression``: masking and compression at the defaults (50 % of the window, keep 30 %).

Every scripted answer carries both the snapshot text and the next call, so a compression's
summary call takes whichever answer comes next (it is then a model call that is not a turn);
every mode stops at ``max_turns`` = ``--turns``, so each makes the same number of turns.
For each mode: the request body bytes at a few turns, the total bytes sent, the prompt tokens
the fake reported (bytes / 4), model calls, compressions, and the harness time per turn (the
time from one ``turn_started`` to the next, tool and server included) over turns 11-30 and the
last 20; then the ratios against ``none``.

    python bench/bench_context.py [--turns 300] [--output-chars 4000] [--window TOKENS]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from agentci.errors import BudgetExhausted
from agentci.events import types as ev
from agentci.loop.budget import BudgetTracker
from agentci.loop.chat import Chat
from agentci.loop.session import Session
from agentci.policy.rules import PolicyEngine
from agentci.providers.gemini import GeminiProvider
from agentci.recipe.budget_config import Budget
from agentci.recipe.model_config import ModelConfig
from agentci.recipe.policy_config import Policy
from agentci.recipe.schema import Context
from agentci.reports.redact import Redactor
from agentci.testing.fake_gemini import FakeGemini
from agentci.tools.base import ToolContext
from agentci.tools.registry import default_tools
from agentci.tools.scheduler import Scheduler
from agentci.tools.truncation import SavedOutputs

SNAP = "<state_snapshot><goal>read data.txt to the end</goal></state_snapshot>"
#: mode: (context settings, context window; None: --window)
MODES: dict[str, tuple[Context, int | None]] = {
    "none": (Context(mask_tool_output_after_tokens=10**12, compress_at=1.0), 10**9),
    "masking": (Context(compress_at=1.0), 10**9),
    "compression": (Context(), None),
}


@dataclass
class Result:
    bytes_per_request: list[int] = field(default_factory=list)
    prompt_tokens: int = 0
    model_calls: int = 0
    compressions: int = 0
    turn_seconds: list[float] = field(default_factory=list)


def script(turns: int, lines_per_read: int) -> list[dict[str, object]]:
    steps: list[dict[str, object]] = [
        {
            "text": SNAP,
            "function_calls": [
                {
                    "name": "read_file",
                    "args": {
                        "file_path": "data.txt",
                        "start_line": 1 + (k * lines_per_read) % 100_000,
                        "end_line": (k + 1) * lines_per_read % 100_000 or lines_per_read,
                    },
                }
            ],
        }
        for k in range(turns + 100)
    ]
    return steps


async def one(mode: str, args: argparse.Namespace, root: Path) -> Result:
    repo = root / mode
    repo.mkdir()
    line = "x" * 79 + "\n"
    lines_per_read = max(1, args.output_chars // len(line))
    (repo / "data.txt").write_text(line * 100_000)
    config, window = MODES[mode]
    model = ModelConfig(name="gemini-2.5-flash", context_window=window or args.window)
    # args.window None: the built-in table's window for the model, as a recipe without one gets
    result = Result()
    with FakeGemini(script(args.turns, lines_per_read)) as fake:
        provider = GeminiProvider.from_config(model, fake.env())
        tools = default_tools()
        outputs = SavedOutputs.for_task(root / f"{mode}-out", config, Redactor())
        session = Session(
            chat=Chat(provider, model),
            scheduler=Scheduler(
                tools,
                PolicyEngine.from_recipe(Policy(), workspace=repo, recipe_path=None),
                ToolContext(workspace=repo.resolve(), outputs=outputs),
            ),
            tools=[t.spec() for t in tools.values()],
            system="You are a coding agent. " * 20,
            model=model,
            budget=BudgetTracker(Budget(max_turns=args.turns)),
            price=lambda model, usage: None,
            context=config,
        )
        last = None
        try:
            async for event in session.run("Read data.txt, a range at a time, to the end."):
                if isinstance(event, ev.TurnStarted):
                    now = time.perf_counter()
                    if last is not None:
                        result.turn_seconds.append(now - last)
                    last = now
                elif isinstance(event, ev.ChatCompressed):
                    result.compressions += 1
        except BudgetExhausted:
            pass  # max_turns: every mode makes exactly --turns turns
        for request in fake.generate_requests:
            result.bytes_per_request.append(len(json.dumps(request.body)))
        result.prompt_tokens = session.state.usage.prompt_tokens
        result.model_calls = session.state.usage.model_calls
    return result


def mean_ms(values: list[float]) -> float:
    return sum(values) / max(len(values), 1) * 1000


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results = {mode: await one(mode, args, Path(tmp)) for mode in MODES}
    turns = [t for t in (1, 20, 100, 200) if t < args.turns]
    print(
        f"{args.turns} turns, {args.output_chars} characters per tool output, window "
        f"{args.window or 'the model default'}"
    )
    head = (
        f"{'mode':12} " + " ".join(f"{'req ' + str(t):>10}" for t in turns) + f" {'last req':>10}"
    )
    print(head + f" {'total MB':>9} {'prompt tok':>11} {'calls':>6} {'compr':>6}")
    for mode, r in results.items():
        sizes = " ".join(f"{r.bytes_per_request[t - 1] / 1000:9.1f}k" for t in turns)
        sizes += f" {r.bytes_per_request[-1] / 1000:9.1f}k"
        print(
            f"{mode:12} {sizes} {sum(r.bytes_per_request) / 1e6:9.2f} {r.prompt_tokens:11,} "
            f"{r.model_calls:6} {r.compressions:6}"
        )
    print(f"\n{'mode':12} {'ms/turn 11-30':>14} {'ms/turn last 20':>16} {'late/early':>11}")
    for mode, r in results.items():
        early, late = mean_ms(r.turn_seconds[10:30]), mean_ms(r.turn_seconds[-20:])
        print(f"{mode:12} {early:14.2f} {late:16.2f} {late / early:10.2f}x")
    base = results["none"]
    print("\nagainst none:")
    for mode in ("masking", "compression"):
        r = results[mode]
        print(
            f"  {mode:12} total bytes {sum(r.bytes_per_request) / sum(base.bytes_per_request):.3f}x"
            f", prompt tokens {r.prompt_tokens / base.prompt_tokens:.3f}x"
            f", last request {r.bytes_per_request[-1] / base.bytes_per_request[-1]:.3f}x"
        )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--turns", type=int, default=300)
    ap.add_argument("--output-chars", type=int, default=4000)
    ap.add_argument(
        "--window", type=int, default=None, help="context window in tokens (default: the model's)"
    )
    asyncio.run(main(ap.parse_args()))
