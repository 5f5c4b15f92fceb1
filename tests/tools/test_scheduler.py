"""The scheduler: concurrency, order, events, and every failure as a tool error."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel
from tool_harness import Harness

from agentci.policy.access import Access
from agentci.policy.rules import PolicyEngine
from agentci.providers.base import ToolCallPart
from agentci.recipe.policy_config import Policy
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult
from agentci.tools.registry import default_tools
from agentci.tools.scheduler import Scheduler

SPANS: list[tuple[str, float, float]] = []


class _Args(BaseModel):
    label: str


class SlowRead(Tool):
    name = "slow_read"
    kind = ToolKind.read
    description = "test tool"
    Args: ClassVar[type[BaseModel]] = _Args

    def accesses(self, args: BaseModel) -> list[Access]:
        return [Access("read", ".")]

    async def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        start = time.monotonic()
        await asyncio.sleep(0.3)
        SPANS.append((args.label, start, time.monotonic()))  # type: ignore[attr-defined]
        return ToolResult(output=args.label)  # type: ignore[attr-defined]


class SlowWrite(SlowRead):
    name = "slow_write"
    kind = ToolKind.edit

    def accesses(self, args: BaseModel) -> list[Access]:
        return [Access("write", "scratch.txt")]


class Broken(SlowRead):
    name = "broken"

    async def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        raise RuntimeError("tool bug")


def run(ws: Path, calls: list[ToolCallPart], mode: str = "auto_edit") -> tuple[list, list]:
    tools = {
        **default_tools(),
        "slow_read": SlowRead(),
        "slow_write": SlowWrite(),
        "broken": Broken(),
    }
    engine = PolicyEngine.from_recipe(Policy(mode=mode), workspace=ws, recipe_path=None)
    batch = Scheduler(tools, engine, ToolContext(workspace=ws)).batch(calls)
    events: list = []

    async def go() -> None:
        async for ev in batch:
            events.append(ev)

    asyncio.run(go())
    return events, batch.results


def test_read_calls_overlap_and_writes_do_not(ws: Path) -> None:
    SPANS.clear()
    calls = [
        ToolCallPart("1", "slow_read", {"label": "r1"}),
        ToolCallPart("2", "slow_read", {"label": "r2"}),
        ToolCallPart("3", "slow_write", {"label": "w1"}),
        ToolCallPart("4", "slow_write", {"label": "w2"}),
    ]
    _, results = run(ws, calls)
    assert [r.output for r in results] == ["r1", "r2", "w1", "w2"]
    spans = {label: (a, b) for label, a, b in SPANS}
    assert spans["r2"][0] < spans["r1"][1]  # the reads overlapped
    assert spans["w1"][1] <= spans["w2"][0]  # the writes did not
    assert spans["r1"][1] <= spans["w1"][0] and spans["r2"][1] <= spans["w1"][0]


def test_failures_become_tool_errors_in_order(ws: Path) -> None:
    calls = [
        ToolCallPart("a", "no_such_tool", {}),
        ToolCallPart("b", "read_file", {"file_path": 3}),
        ToolCallPart("c", "broken", {"label": "x"}),
        ToolCallPart("d", "read_file", {"file_path": "README.md"}),
    ]
    events, results = run(ws, calls)
    assert [r.id for r in results] == ["a", "b", "c", "d"]
    assert "unknown tool" in (results[0].error or "")
    assert "invalid arguments: file_path" in (results[1].error or "")
    assert results[2].error == "RuntimeError: tool bug"
    assert results[3].error is None and "install" in results[3].output
    responses = [e for e in events if e.type == "tool_call_response"]
    assert [e.call_id for e in responses] == ["a", "b", "c", "d"]


def test_deny_is_a_decision_event_and_a_tool_error(ws: Path) -> None:
    events, results = run(
        ws, [ToolCallPart("w", "write_file", {"file_path": "x", "content": "y"})], mode="read_only"
    )
    decision = next(e for e in events if e.type == "tool_call_decision")
    assert decision.decision == "deny" and decision.rule == "mode:read_only"
    assert results[0].error and "read_only" in results[0].error
    assert not (ws / "x").exists()


def test_output_is_capped_before_history(ws: Path) -> None:
    (ws / "long.txt").write_text("x" * 1000 + "\n")
    h = Harness(ws=ws, output_cap=100)
    out = h.call("read_file", file_path="long.txt").output
    assert len(out) < 200 and "characters omitted" in out


def test_tool_specs_are_json_schema(ws: Path) -> None:
    specs = {name: t.spec() for name, t in default_tools().items()}
    assert set(specs) == {
        "read_file",
        "list_directory",
        "glob",
        "grep_search",
        "write_file",
        "replace",
        "run_shell_command",
    }
    params = specs["replace"].parameters
    assert params["required"] == ["file_path", "old_string", "new_string"]
    assert params["properties"]["allow_multiple"]["description"]
