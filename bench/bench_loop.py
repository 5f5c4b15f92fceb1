"""Per-turn overhead of the agent loop: early turns vs late turns of one long session.

Runs a Session in-process with a scripted model (no network, so only agentci's own work is
timed) and the real scheduler, policy and tools on a temporary git repo. Every turn the model
reads one file; the history grows by two messages a turn. Prints the mean milliseconds per turn
over the first 10 turns and over turns 191-200, and their ratio. The goal: a 200-turn
session must not be slower per turn than a 10-turn one by more than the bytes sent — the
scripted model sends nothing, so the ratio should stay close to 1. (Replies carry their usage:
the scripted model's own token estimate walks the whole history and would be timed instead.)

    python bench/bench_loop.py [--turns 200]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import tempfile
import time
from pathlib import Path

from agentci.loop.budget import BudgetTracker
from agentci.loop.chat import Chat
from agentci.loop.session import Session
from agentci.policy.rules import PolicyEngine
from agentci.providers.base import ModelRequest
from agentci.providers.scripted import Reply, ScriptedProvider, call
from agentci.recipe.budget_config import Budget
from agentci.recipe.model_config import ModelConfig
from agentci.recipe.policy_config import Policy
from agentci.tools.base import ToolContext
from agentci.tools.registry import default_tools
from agentci.tools.scheduler import Scheduler
from agentci.usage import Usage


def make_repo(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    for i in range(20):
        (root / "src" / f"m{i}.py").write_text("x = 1\n" * 150)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


async def run(turns: int, repo: Path) -> list[float]:
    stamps: list[float] = []

    def reply(request: ModelRequest, index: int) -> Reply:
        stamps.append(time.perf_counter())
        usage = Usage(prompt_tokens=1000 + 300 * index, output_tokens=20)  # no estimate
        if index + 1 >= turns:
            return Reply(text="done", usage=usage)
        return Reply(calls=[call("read_file", file_path=f"src/m{index % 20}.py")], usage=usage)

    tools = default_tools()
    model = ModelConfig(name="scripted")
    session = Session(
        chat=Chat(ScriptedProvider(reply), model),
        scheduler=Scheduler(
            tools,
            PolicyEngine.from_recipe(Policy(), workspace=repo, recipe_path=None),
            ToolContext(workspace=repo.resolve()),
        ),
        tools=[t.spec() for t in tools.values()],
        system="bench",
        model=model,
        budget=BudgetTracker(Budget(max_turns=turns + 1)),
        price=lambda model, usage: None,
    )
    async for _ in session.run("Read the files."):
        pass
    return [b - a for a, b in zip(stamps, stamps[1:], strict=False)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        per_turn = asyncio.run(run(args.turns, make_repo(Path(tmp))))
    early = per_turn[:10]
    late = per_turn[-10:]
    early_ms = 1000 * sum(early) / len(early)
    late_ms = 1000 * sum(late) / len(late)
    print(f"turns 1-10:        {early_ms:7.2f} ms per turn")
    print(f"turns {len(per_turn) - 9}-{len(per_turn)}:  {late_ms:7.2f} ms per turn")
    print(f"late / early:      {late_ms / early_ms:7.2f}x")


if __name__ == "__main__":
    main()
