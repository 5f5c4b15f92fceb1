"""A small harness that runs real tool calls through the real scheduler and policy."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentci.policy.env import child_env
from agentci.policy.rules import Decision, PolicyEngine
from agentci.policy.sandbox import Sandbox, bwrap_problem, make_sandbox
from agentci.providers.base import ToolCallPart, ToolResultPart
from agentci.recipe.policy_config import Policy, Rule
from agentci.testing.repo import GIT_AUTHOR, commit_repo
from agentci.tools.base import Tool, ToolContext
from agentci.tools.registry import default_tools
from agentci.tools.scheduler import Scheduler

GIT_ENV = GIT_AUTHOR
init_repo = commit_repo
_ids = itertools.count(1)


@dataclass
class Harness:
    """A workspace plus a policy; :meth:`call` runs one tool call for real."""

    ws: Path
    mode: str = "yolo"
    rules: list[dict[str, Any]] = field(default_factory=list)
    sandbox: Sandbox | None = None
    recipe_path: Path | None = None
    timeout: float = 20.0
    output_cap: int = 30_000
    env: dict[str, str] = field(default_factory=child_env)
    events: list[Any] = field(default_factory=list)
    search: Any = None
    private_dirs: tuple[str, ...] = (".agentci",)
    no_sandbox: str | None = None  # why `sandbox: auto` fell back (None: it did not)
    extra_tools: list[Tool] = field(default_factory=list)  # beside the built-in ones

    def engine(self) -> PolicyEngine:
        policy = Policy(mode=self.mode, rules=[Rule(**r) for r in self.rules])  # type: ignore[arg-type]
        engine = PolicyEngine.from_recipe(policy, workspace=self.ws, recipe_path=self.recipe_path)
        engine.no_sandbox = self.no_sandbox
        engine.search_path = self.env.get("PATH", engine.search_path)
        return engine

    def scheduler(self) -> Scheduler:
        ctx = ToolContext(
            workspace=self.ws,
            env=self.env,
            timeout_seconds=self.timeout,
            output_cap_chars=self.output_cap,
            sandbox=self.sandbox,
            private_dirs=self.private_dirs,
            search=self.search,
        )
        tools = {**default_tools(), **{t.name: t for t in self.extra_tools}}
        return Scheduler(tools, self.engine(), ctx)

    def run(self, calls: list[tuple[str, dict[str, Any]]]) -> list[ToolResultPart]:
        parts = [ToolCallPart(id=f"c{next(_ids)}", name=n, args=a) for n, a in calls]
        batch = self.scheduler().batch(parts)

        async def go() -> None:
            async for ev in batch:
                self.events.append(ev)

        asyncio.run(go())
        return batch.results

    def call(self, name: str, **args: Any) -> ToolResultPart:
        return self.run([(name, args)])[0]

    def sh(self, command: str, **args: Any) -> ToolResultPart:
        return self.call("run_shell_command", command=command, **args)

    def decide_shell(self, command: str) -> Decision:
        tools = default_tools()
        tool = tools["run_shell_command"]
        return self.engine().decide(tool.name, tool.accesses(tool.Args(command=command)))

    def last_decision(self) -> Any:
        return [e for e in self.events if e.type == "tool_call_decision"][-1]


def bwrap_sandbox(
    ws: Path, *, network: bool = False, readonly: list[Path] | None = None
) -> Sandbox:
    """The real sandbox, or a skip when bubblewrap does not work here."""
    import pytest

    problem = bwrap_problem()
    if problem:
        pytest.skip(f"needs bubblewrap: {problem} (apt-get install -y bubblewrap)")
    sandbox, _ = make_sandbox("bwrap", workspace=ws, network=network, readonly=readonly or ())
    assert sandbox is not None
    return sandbox
