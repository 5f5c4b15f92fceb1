"""The scheduler: runs one turn's tool calls (docs/architecture.md).

For each call: validate the arguments with the tool's model (:func:`~agentci.tools.calls.prepare`)
→ before_tool hooks (a deny is a ``tool_call_decision`` naming the hook) → policy decision (a
``tool_call_decision`` event) → execute (:func:`~agentci.tools.calls.execute`: the run's
secrets masked in the output, once) → after_tool hooks (notes on the result) → cap the output
→ ``tool_call_response`` event (an output over the cap is saved whole, see
:mod:`agentci.tools.truncation`). Consecutive read-only calls run concurrently (their hooks
too; a shell command made only of built-in read-only commands counts as one), at most
:data:`~agentci.tools.concurrency.MAX_CONCURRENT_CALLS` at once, so at most that many hook
processes run at a time; a call that edits or executes runs alone, in the model's order. A
turn runs at most :data:`MAX_CALLS_PER_TURN` calls; each call beyond that gets a tool error
back (the model can ask again in its next turn). Every failure (unknown tool, bad arguments,
a deny, a broken hook, an exception in the tool) becomes a tool error the model reads; none
of them ends the run. Only a hook answering ``stop`` does: :class:`~agentci.errors.HookStopped`
leaves the batch.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from agentci.errors import HookStopped
from agentci.events.hook_events import HookResult
from agentci.events.tool_events import ToolCallDecision, ToolCallResponse
from agentci.hooks.tool_stages import after_tool, before_tool
from agentci.policy.access import Access
from agentci.policy.rules import PolicyEngine
from agentci.providers.base import ToolCallPart, ToolResultPart
from agentci.tools.arg_depth import refusal
from agentci.tools.base import Tool, ToolContext, ToolResult
from agentci.tools.calls import Prepared, execute, format_validation, prepare
from agentci.tools.concurrency import Running, bounded
from agentci.tools.truncation import truncate_middle

if TYPE_CHECKING:
    from agentci.hooks.runner import HookRunner, HookVerdict

Event = HookResult | ToolCallDecision | ToolCallResponse
#: What running one call gives: its result, its time in ms, the after_tool hooks' verdict.
Outcome = tuple[ToolResult, int, "HookVerdict | None"]

#: Calls of one model turn that are run; the rest get a tool error back.
MAX_CALLS_PER_TURN = 64


class ToolBatch:
    """One turn's calls; iterate it to run them. ``results`` is complete afterwards."""

    def __init__(self, scheduler: Scheduler, calls: list[ToolCallPart]) -> None:
        self._scheduler = scheduler
        self._calls = calls
        self.results: list[ToolResultPart] = []

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._run()

    async def _run(self) -> AsyncIterator[Event]:
        s = self._scheduler
        slots: list[ToolResultPart | None] = [None] * len(self._calls)
        groups: list[list[int]] = []
        prepared_all = [s.prepare(call) for call in self._calls[:MAX_CALLS_PER_TURN]]
        reads = [p.args is not None and p.error is None and s.still_reads(p) for p in prepared_all]
        for i, is_read in enumerate(reads):
            if is_read and groups and all(reads[j] for j in groups[-1]):
                groups[-1].append(i)
            else:
                groups.append([i])
        for number, group in enumerate(groups):
            prepared = [prepared_all[i] for i in group]
            verdicts = await bounded([s.before_hooks(p) for p in prepared])
            # Whether the group's calls may run at once, as their arguments now stand: the
            # grouping's answer holds for the first group when no hook ran (nothing has run
            # since it was worked out); else it is worked out again (a hook may have rewritten
            # a call, an earlier call may have put a program in the workspace).
            fresh = number == 0 and all(v is None for v in verdicts)
            together = len(prepared) > 1 and (fresh or all(s.still_reads(p) for p in prepared))
            running: Running[Outcome] = Running(together)
            try:
                for p, verdict in zip(prepared, verdicts, strict=True):
                    if verdict is not None:
                        for event in verdict.events:
                            yield event
                        if verdict.decision != "continue" and verdict.hook is not None:
                            rule = verdict.hook.rule
                            yield ToolCallDecision(
                                call_id=p.call.id,
                                name=p.call.name,
                                decision="deny",
                                rule=rule,
                                reason=verdict.reason,
                            )
                            p.error = f"denied by hook ({rule}): {verdict.reason}"
                            if verdict.decision == "stop":
                                raise HookStopped(
                                    f"stopped by {rule}: {verdict.reason}", hook=verdict.hook.label
                                )
                    if p.error is None:
                        assert p.tool is not None and p.args is not None
                        d = s.policy.decide(p.tool.name, p.tool.accesses(p.args))
                        yield ToolCallDecision(
                            call_id=p.call.id,
                            name=p.call.name,
                            decision=d.decision,
                            rule=d.rule,
                            reason=d.reason,
                        )
                        if not d.allowed:
                            p.error = f"denied by policy ({d.rule}): {d.reason}"
                        p.env = d.env
                        p.confine = d.confine
                    # a read starts once its decision is out, while the next one is judged
                    await running.start(s.run_call(p))
                outcomes = await running.results()
            finally:
                await running.cancel()
            stop: HookVerdict | None = None
            for i, p, (result, ms, after) in zip(group, prepared, outcomes, strict=True):
                notes = list(p.notes)
                if after is not None:
                    for event in after.events:
                        yield event
                    notes += after.notes
                if s.ctx.redact is not None:  # the output is redacted (execute), notes not yet
                    notes = [s.ctx.redact(n) for n in notes]
                text = "\n\n".join(t for t in (result.output, *notes) if t)
                if after is not None and after.decision == "stop" and stop is None:
                    stop = after
                output, saved = s.cap(text, p.call.name)
                slots[i] = ToolResultPart(
                    id=p.call.id, name=p.call.name, output=output, error=result.error, saved=saved
                )
                yield ToolCallResponse(
                    call_id=p.call.id,
                    name=p.call.name,
                    ok=result.ok,
                    output=output,
                    error=result.error,
                    duration_ms=ms,
                    exit_code=result.exit_code,
                )
            if stop is not None and stop.hook is not None:
                raise HookStopped(
                    f"stopped by {stop.hook.rule}: {stop.reason}", hook=stop.hook.label
                )
        for i, call in enumerate(self._calls[MAX_CALLS_PER_TURN:], start=MAX_CALLS_PER_TURN):
            error = (
                f"not run: this turn asked for {len(self._calls)} tool calls and at most "
                f"{MAX_CALLS_PER_TURN} run per turn; ask for this one again in the next turn"
            )
            slots[i] = ToolResultPart(id=call.id, name=call.name, output="", error=error)
            yield ToolCallResponse(
                call_id=call.id, name=call.name, ok=False, output="", error=error, duration_ms=0
            )
        self.results = [r for r in slots if r is not None]


class Scheduler:
    """Runs tool calls for one task with its tools, policy and context."""

    def __init__(
        self,
        tools: Mapping[str, Tool],
        policy: PolicyEngine,
        ctx: ToolContext,
        hooks: HookRunner | None = None,
    ) -> None:
        self.tools = dict(tools)
        self.policy = policy
        self.ctx = ctx
        self.hooks = hooks

    def cap(self, text: str, tool: str) -> tuple[str, str | None]:
        """A tool's output as the model sees it, and the saved whole output's name if cut
        (saved as it is when the context redacts: :func:`~agentci.tools.calls.execute` did it,
        once per output)."""
        if self.ctx.outputs is not None:
            return self.ctx.outputs.cap(text, tool, redacted=self.ctx.redact is not None)
        return truncate_middle(text, self.ctx.output_cap_chars), None

    def batch(self, calls: list[ToolCallPart]) -> ToolBatch:
        """The calls of one model turn, to be iterated."""
        return ToolBatch(self, calls)

    def prepare(self, call: ToolCallPart) -> Prepared:
        """Find the tool and validate the arguments (:func:`agentci.tools.calls.prepare`)."""
        return prepare(self.tools, call)

    def accesses(self, call: ToolCallPart) -> Sequence[Access]:
        """What ``call`` touches, as its tool says (nothing for an unknown tool or invalid
        arguments: such a call never ran)."""
        p = self.prepare(call)
        return (
            ()
            if p.error is not None or p.tool is None or p.args is None
            else p.tool.accesses(p.args)
        )

    def only_reads(self, call: ToolCallPart) -> bool:
        """Whether ``call`` only reads (as its tool says), so it may run with other reads."""
        p = self.prepare(call)
        return p.args is not None and p.error is None and self.still_reads(p)

    def still_reads(self, p: Prepared) -> bool:
        """Whether a prepared call (its arguments as the before_tool hooks left them) only
        reads; a refused call runs nothing."""
        if p.tool is None or p.args is None or p.error is not None:
            return True
        return p.tool.only_reads(p.args, self.policy)

    async def before_hooks(self, p: Prepared) -> HookVerdict | None:
        """Run the before_tool hooks of a valid call (None: no hook applies)."""
        if self.hooks is None or p.error is not None or p.args is None:
            return None
        if not self.hooks.matching("before_tool", p.call.name):
            return None
        tool = p.tool
        assert tool is not None

        def validate(args: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
            too_deep = refusal(args)
            if too_deep is not None:
                return None, too_deep
            try:
                return tool.Args.model_validate(args).model_dump(mode="json"), ""
            except ValidationError as exc:
                return None, format_validation(exc)

        verdict = await before_tool(
            self.hooks,
            tool_name=p.call.name,
            call_id=p.call.id,
            args=p.args.model_dump(mode="json"),
            validate=validate,
        )
        if verdict.args is not None:  # rewritten: the policy judges and the tool runs these
            p.args = tool.Args.model_validate(verdict.args)
            p.notes.extend(verdict.notes)
        return verdict

    async def run_call(self, p: Prepared) -> Outcome:
        """Execute a prepared call (:func:`agentci.tools.calls.execute`), then its after_tool
        hooks if it ran."""
        result, ms = await execute(p, self.ctx)
        if self.hooks is None or p.error is not None or p.args is None:
            return result, ms, None
        if not self.hooks.matching("after_tool", p.call.name):
            return result, ms, None
        after = await after_tool(
            self.hooks,
            tool_name=p.call.name,
            call_id=p.call.id,
            args=p.args.model_dump(mode="json"),
            output=result.output,
            error=result.error,
            exit_code=result.exit_code,
        )
        return result, ms, after
