"""Tools declare what a call touches (``Tool.accesses``); the policy and loop detection judge
those values, not argument names. A tool is one class plus its registry line: these tests add
one the way a contributor would (a tool whose path arguments are not called ``file_path``) and
run it through the real scheduler, policy and loop detector."""

from __future__ import annotations

import shutil
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from tool_harness import Harness

from agentci.context.loop_detection import LoopDetector
from agentci.policy.access import UNDECLARED, Access
from agentci.policy.paths import resolve
from agentci.providers.base import ToolCallPart
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult
from agentci.tools.registry import TOOL_CLASSES


class CopyFile(Tool):
    """Copies a workspace file: it reads ``source`` and writes ``target``."""

    name = "copy_file"
    kind = ToolKind.edit
    description = "Copy a file."

    class Args(BaseModel):
        model_config = ConfigDict(extra="forbid")
        source: str
        target: str

    def accesses(self, args: Args) -> list[Access]:  # type: ignore[override]
        return [Access("read", args.source), Access("write", args.target)]

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        src, dst = resolve(ctx.workspace, args.source), resolve(ctx.workspace, args.target)
        shutil.copyfile(src.real, dst.real)
        return ToolResult(output=f"copied {src.rel} to {dst.rel}")


class Ping(Tool):
    """Says nothing about what it touches."""

    name = "ping"
    kind = ToolKind.read
    description = "Ping a host."

    class Args(BaseModel):
        host: str

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        return ToolResult(output=f"pong from {args.host}")


def _with_tools(ws: Path, mode: str, rules: list[dict] | None = None) -> Harness:
    return Harness(ws=ws, mode=mode, rules=rules or [], extra_tools=[CopyFile(), Ping()])


def test_a_write_the_tool_declares_into_git_is_refused_whatever_the_argument_is_called(ws: Path):
    h = _with_tools(ws, "yolo")
    result = h.call("copy_file", source="README.md", target=".git/hooks/pre-commit")
    decision = h.last_decision()
    assert (decision.decision, decision.rule) == ("deny", "protected:.git/")
    assert result.error is not None and not (ws / ".git/hooks/pre-commit").exists()


def test_a_path_rule_judges_the_tools_own_read_argument(ws: Path):
    (ws / "secret").mkdir()
    (ws / "secret/key.txt").write_text("k\n")
    h = _with_tools(
        ws, "auto_edit", [{"tool": "copy_file", "path": "secret/**", "decision": "deny"}]
    )
    h.call("copy_file", source="secret/key.txt", target="leak.txt")
    assert (h.last_decision().decision, h.last_decision().rule) == (
        "deny",
        "rules[0]: deny copy_file 'secret/**'",
    )
    assert not (ws / "leak.txt").exists()
    assert h.call("copy_file", source="README.md", target="copy.md").error is None
    assert (ws / "copy.md").read_text() == "install with pip\n"


def test_a_declared_path_outside_the_workspace_is_refused(ws: Path):
    h = _with_tools(ws, "yolo")
    h.call("copy_file", source="../../etc/hostname", target="host.txt")
    assert (h.last_decision().decision, h.last_decision().rule) == ("deny", "containment")


def test_a_write_in_read_only_mode_is_refused_for_any_tool_that_declares_one(ws: Path):
    h = _with_tools(ws, "read_only")
    h.call("copy_file", source="README.md", target="copy.md")
    assert (h.last_decision().decision, h.last_decision().rule) == ("deny", "mode:read_only")


def test_a_tool_that_declares_nothing_is_judged_as_running_a_program(ws: Path):
    assert Ping().accesses(Ping.Args(host="x")) == UNDECLARED
    h = _with_tools(ws, "auto_edit")
    assert h.call("ping", host="example.org").error is not None
    assert (h.last_decision().decision, h.last_decision().rule) == ("deny", "mode:auto_edit")
    allowed = _with_tools(ws, "auto_edit", [{"tool": "ping", "decision": "allow"}])
    assert allowed.call("ping", host="example.org").output == "pong from example.org"
    assert _with_tools(ws, "yolo").call("ping", host="example.org").error is None


def test_every_built_in_tool_declares_its_accesses():
    assert [cls.name for cls in TOOL_CLASSES if cls.accesses is Tool.accesses] == []


def test_loop_detection_compares_the_declared_paths_not_argument_names(ws: Path):
    scheduler = _with_tools(ws, "yolo").scheduler()
    detector = LoopDetector()
    spellings = ["copy.md", "./copy.md", "docs/../copy.md", "copy.md", "./copy.md"]
    calls = [
        ToolCallPart(id=f"c{i}", name="copy_file", args={"source": "README.md", "target": t})
        for i, t in enumerate(spellings)
    ]
    hits = [detector.observe([c], scheduler.accesses) for c in calls]
    assert [h is not None for h in hits] == [False] * 4 + [True]
    assert hits[-1] is not None and hits[-1].kind == "tool_call"
