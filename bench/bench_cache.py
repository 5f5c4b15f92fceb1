"""Billed input with implicit vs explicit prompt caching over a long tool session.

One scripted session of ``--turns`` turns (each reads ``--output-chars`` characters of a file,
a different range every turn), run through agentci's Session, the real google-genai SDK and
the loopback ``fake_gemini`` server, with ``model.cache`` set to:

* ``implicit``: what the fake reports is what Gemini guarantees for implicit caching — no
  cached tokens at all (hits are best effort). The best case, every request's prefix shared
  with the one before served from the cache, is computed from the requests agentci sent
  (system instruction + tools + the contents the previous request also had, at 4 characters a
  token, when at least the model's minimum) and shown as ``implicit (best case)``;
* ``explicit``: agentci makes, renews and replaces context caches through the fake's
  ``cachedContents`` endpoints; the fake's accounting reports ``cachedContentTokenCount``.

For each: prompt tokens, cached tokens, cache writes, caches made, the hit rate, and the input
cost at gemini-2.5-flash's prices ($0.30 per million input tokens, $0.03 cached, $1.00 per
million tokens per hour of cache storage), through agentci's own pricing
(:func:`agentci.providers.pricing.cost_for`). Storage is what the run accrued (seconds, so
almost nothing) and, projected, what it would be at ``--seconds-per-turn`` (a live model's
pace). Context management stays at its defaults (old tool output is masked beyond 50,000
tokens, which rewrites the history: the explicit cache is then replaced).

    python bench/bench_cache.py [--turns 50] [--output-chars 4000] [--seconds-per-turn 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentci.errors import BudgetExhausted
from agentci.loop.budget import BudgetTracker
from agentci.loop.chat import Chat
from agentci.loop.session import Session
from agentci.policy.rules import PolicyEngine
from agentci.providers.gemini import GeminiProvider
from agentci.providers.gemini_tables import min_cache_tokens
from agentci.providers.pricing import cost_for
from agentci.recipe.budget_config import Budget
from agentci.recipe.model_config import ModelConfig
from agentci.recipe.policy_config import Policy
from agentci.recipe.schema import Context
from agentci.reports.redact import Redactor
from agentci.testing.fake_caches import tokens_of
from agentci.testing.fake_gemini import FakeGemini
from agentci.tools.base import ToolContext
from agentci.tools.registry import default_tools
from agentci.tools.scheduler import Scheduler
from agentci.tools.truncation import SavedOutputs
from agentci.usage import Usage

MODEL = "gemini-2.5-flash"
SYSTEM = "You are a coding agent working in a CI job. Read before you edit. " * 60


@dataclass
class Result:
    usage: Usage
    caches_created: int = 0
    caches_left: int = 0
    requests: int = 0
    cache_requests: int = 0  # requests that named a cache
    projected_token_hours: float = 0.0  # storage at --seconds-per-turn


def script(turns: int, lines_per_read: int) -> list[dict[str, Any]]:
    calls = []
    for k in range(turns + 1):
        start = 1 + (k * lines_per_read) % 90_000
        args = {
            "file_path": "data.txt",
            "start_line": start,
            "end_line": start + lines_per_read - 1,
        }
        calls.append({"function_calls": [{"name": "read_file", "args": args, "id": f"c{k}"}]})
    return calls


async def one(mode: str, args: argparse.Namespace, root: Path) -> tuple[Result, FakeGemini]:
    repo = root / mode
    repo.mkdir()
    line = "x" * 79 + "\n"
    lines_per_read = max(1, args.output_chars // len(line))
    (repo / "data.txt").write_text(line * 100_000)
    model = ModelConfig(name=MODEL, cache=mode)
    with FakeGemini(script(args.turns, lines_per_read), min_cache_tokens=1024) as fake:
        provider = GeminiProvider.from_config(model, fake.env())
        tools = default_tools()
        context = Context()
        session = Session(
            chat=Chat(provider, model),
            scheduler=Scheduler(
                tools,
                PolicyEngine.from_recipe(Policy(), workspace=repo, recipe_path=None),
                ToolContext(
                    workspace=repo.resolve(),
                    outputs=SavedOutputs.for_task(root / f"{mode}-out", context, Redactor()),
                ),
            ),
            tools=[t.spec() for t in tools.values()],
            system=SYSTEM,
            model=model,
            budget=BudgetTracker(Budget(max_turns=args.turns)),
            price=lambda name, usage: cost_for(name, usage),
            context=context,
        )
        try:
            async for _ in session.run("Read data.txt, a range at a time, to the end."):
                pass
        except BudgetExhausted:
            pass  # max_turns: both modes make exactly --turns turns
        await provider.aclose()
        bodies = [r.body for r in fake.generate_requests]
        used = [b for b in bodies if "cachedContent" in b]
        result = Result(
            usage=session.state.usage,
            caches_created=fake.caches.created,
            caches_left=len(fake.caches.live),
            requests=len(bodies),
            cache_requests=len(used),
        )
        # the fake names its caches fake1, fake2, ... in the order they were made
        sizes = {f"cachedContents/fake{i}": tokens_of(b)
                 for i, b in enumerate(fake.caches.bodies, 1)}  # fmt: skip
        hours = args.seconds_per_turn / 3600
        result.projected_token_hours = sum(sizes[b["cachedContent"]] * hours for b in used)
    return result, fake


def implicit_best_case(fake: FakeGemini) -> int:
    """Cached tokens if every request's prefix shared with the one before were a cache hit."""
    bodies = [r.body for r in fake.generate_requests]
    cached = 0
    for before, after in zip(bodies, bodies[1:], strict=False):
        if before.get("systemInstruction") != after.get("systemInstruction"):
            continue
        same = 0
        for a, b in zip(before["contents"], after["contents"], strict=False):
            if a != b:
                break
            same += 1
        fixed = json.dumps([after.get("systemInstruction"), after.get("tools")])
        shared = (len(fixed) + len(json.dumps(after["contents"][:same]))) // 4
        if shared >= min_cache_tokens(MODEL):
            cached += shared
    return cached


def input_cost(usage: Usage, token_hours: float | None = None) -> float:
    """The input side of the bill (output tokens left out: the same in every mode)."""
    hours = usage.cache_storage_token_hours if token_hours is None else token_hours
    priced = Usage(
        prompt_tokens=usage.prompt_tokens,
        cached_tokens=usage.cached_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cache_storage_token_hours=hours,
    )
    cost = cost_for(MODEL, priced)
    assert cost is not None
    return cost


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Both sessions and the figures (what ``main`` prints); also the smoke test's entry."""
    with tempfile.TemporaryDirectory() as tmp:
        implicit, fake = await one("implicit", args, Path(tmp))
        explicit, _ = await one("explicit", args, Path(tmp))
    best = implicit.usage.model_copy(update={"cached_tokens": implicit_best_case(fake)})
    rows = {
        "implicit (guaranteed)": (implicit, implicit.usage, input_cost(implicit.usage)),
        "implicit (best case)": (implicit, best, input_cost(best)),
        "explicit": (explicit, explicit.usage, input_cost(explicit.usage)),
    }
    return {
        "rows": rows,
        "explicit_projected": input_cost(explicit.usage, explicit.projected_token_hours),
    }


def main(args: argparse.Namespace) -> None:
    figures = asyncio.run(run(args))
    rows = figures["rows"]
    print(f"{args.turns} turns, {args.output_chars} characters per tool output, {MODEL}")
    print(
        f"{'mode':22} {'prompt tok':>11} {'cached':>10} {'hit rate':>9} {'written':>9} "
        f"{'caches':>7} {'input $':>10} {'vs implicit':>12}"
    )
    base = rows["implicit (guaranteed)"][2]
    for name, (result, usage, cost) in rows.items():
        rate = usage.cached_tokens / max(usage.prompt_tokens, 1)
        caches = result.caches_created if name == "explicit" else 0
        print(
            f"{name:22} {usage.prompt_tokens:11,} {usage.cached_tokens:10,} {rate:8.1%} "
            f"{usage.cache_write_tokens:9,} {caches:7} {cost:10.5f} {cost / base:11.3f}x"
        )
    explicit = rows["explicit"][0]
    print(
        f"\nexplicit: {explicit.cache_requests} of {explicit.requests} requests named a cache; "
        f"{explicit.caches_left} left at the end; storage accrued "
        f"{explicit.usage.cache_storage_token_hours:.3f} token-hours"
    )
    projected = figures["explicit_projected"]
    print(
        f"at {args.seconds_per_turn:g} s per turn, storage would add "
        f"{explicit.projected_token_hours:,.0f} token-hours: input ${projected:.5f} "
        f"({projected / base:.3f}x implicit guaranteed, "
        f"{projected / rows['implicit (best case)'][2]:.3f}x implicit best case)"
    )


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--turns", type=int, default=50)
    ap.add_argument("--output-chars", type=int, default=4000)
    ap.add_argument("--seconds-per-turn", type=float, default=20.0)
    return ap.parse_args(argv)


if __name__ == "__main__":
    main(parse())
