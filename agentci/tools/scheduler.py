"""The scheduler: runs one turn's tool calls (docs/architecture.md).

For each call: validate the arguments with the tool's model → before_tool hooks (a deny is
a ``tool_call_decision`` naming the hook) → policy decision (a ``tool_call_decision``
event) → execute (the run's secrets masked in the output, once) → after_tool hooks (notes on
the result) → cap the output → ``tool_call_response`` event (an output over the cap is saved whole, see
:mod:`agentci.tools.truncation`). Consecutive read-only calls run concurrently (their hooks
too; a shell command made only of built-in read-only commands counts as one), at most :data:`MAX_CONCURRENT_CALLS` at once, so at most that many hook processes run
at a time; a call that edits or executes runs alone, in the model's order. A turn runs at
most :data:`MAX_CALLS_PER_TURN` calls; each call beyond that gets a tool error back (the
model can ask again in its next turn). Every failure
(unknown tool, bad arguments, a deny, a broken hook, an exception in the tool) becomes a
tool error the model reads; none of them ends the run. Only a hook answering ``stop``
does: :class:`~agentci.errors.HookStopped` leaves the batch.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from agentci.errors import HookStopped, ToolFailure
from agentci.events.hook_events import HookResult
from agentci.events.tool_events import ToolCallDecision, ToolCallResponse
from agentci.hooks.tool_stages import after_tool, before_tool
from agentci.policy.access import Access
from agentci.policy.rules import PolicyEngine
from agentci.providers.base import ToolCallPart, ToolResultPart
from agentci.tools.arg_depth import refusal
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult
from agentci.tools.not_utf8 import for_model
from agentci.tools.truncation import truncate_middle

if TYPE_CHECKING:
    from agentci.hooks.runner import HookRunner, HookVerdict

Event = HookResult | ToolCallDecision | ToolCallResponse
T = TypeVar("T")
#: What running one call gives: its result, its time in ms, the after_tool hooks' verdict.
Outcome = tuple[ToolResult, int, "HookVerdict | None"]

#: Calls of one model turn that are run; the rest get a tool error back.
MAX_CALLS_PER_TURN = 64
#: Read-only calls (with their hooks, one hook process per call at a time) run at once.
MAX_CONCURRENT_CALLS = 8


@dataclass
class _Prepared:
    call: ToolCallPart
    tool: Tool | None = None
    args: BaseModel | None = None
    error: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)  # the policy's additions (git pinned)
    notes: list[str] = field(default_factory=list)  # before_tool hooks' (a rewrite) for the model


def _format_validation(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "arguments"
        parts.append(f"{loc}: {err['msg']}")
    return "invalid arguments: " + "; ".join(parts)


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
            verdicts = await _bounded([s.before_hooks(p) for p in prepared])
            # Whether the group's calls may run at once, as their arguments now stand: the
            # grouping's answer holds for the first group when no hook ran (nothing has run
            # since it was worked out); else it is worked out again (a hook may have rewritten
            # a call, an earlier call may have put a program in the workspace).
            fresh = number == 0 and all(v is None for v in verdicts)
            together = len(prepared) > 1 and (fresh or all(s.still_reads(p) for p in prepared))
            running = _Running(together)
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


async def _bounded(jobs: list[Coroutine[Any, Any, T]]) -> list[T]:
    """``asyncio.gather`` with at most :data:`MAX_CONCURRENT_CALLS` jobs running at once."""
    gate = asyncio.Semaphore(MAX_CONCURRENT_CALLS)

    async def one(job: Coroutine[Any, Any, T]) -> T:
        async with gate:
            return await job

    return list(await asyncio.gather(*(one(job) for job in jobs)))


class _Running:
    """The calls of one group as they start: at once (as tasks, at most
    :data:`MAX_CONCURRENT_CALLS` running) when ``together``, else one after the other, each
    run when its outcome is asked for (:meth:`results`), in the model's order."""

    def __init__(self, together: bool) -> None:
        self._together = together
        self._gate = asyncio.Semaphore(MAX_CONCURRENT_CALLS)
        self._jobs: list[Coroutine[Any, Any, Outcome]] = []
        self._tasks: list[asyncio.Future[Outcome]] = []

    async def start(self, job: Coroutine[Any, Any, Outcome]) -> None:
        """Start ``job`` now (together: it runs up to its command's start before this returns,
        which happens in a thread, see :mod:`agentci.spawn`) or keep it for :meth:`results`
        (one by one)."""
        if not self._together:
            self._jobs.append(job)
            return

        async def gated() -> Outcome:
            async with self._gate:
                return await job

        self._tasks.append(asyncio.ensure_future(gated()))
        await asyncio.sleep(0)  # let it begin while the next call is judged

    async def results(self) -> list[Outcome]:
        """Every call's outcome, in the order they were started."""
        if not self._together:
            done = []
            while self._jobs:
                done.append(await self._jobs.pop(0))
            return done
        return list(await asyncio.gather(*self._tasks))

    async def cancel(self) -> None:
        """End what still runs (the batch left early: a hook's stop, a cancellation) and wait
        for it; close what never started."""
        for job in self._jobs:
            job.close()
        self._jobs.clear()
        pending = [t for t in self._tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


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
        (saved as it is when the context redacts: :meth:`execute` did it, once per output)."""
        if self.ctx.outputs is not None:
            return self.ctx.outputs.cap(text, tool, redacted=self.ctx.redact is not None)
        return truncate_middle(text, self.ctx.output_cap_chars), None

    def batch(self, calls: list[ToolCallPart]) -> ToolBatch:
        """The calls of one model turn, to be iterated."""
        return ToolBatch(self, calls)

    def prepare(self, call: ToolCallPart) -> _Prepared:
        """Find the tool and validate the arguments."""
        tool = self.tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(self.tools))
            return _Prepared(call, error=f"unknown tool {call.name!r}; available: {known}")
        too_deep = refusal(call.args)
        if too_deep is not None:
            return _Prepared(call, tool=tool, error=tool.refuse(too_deep))
        try:
            args = tool.Args.model_validate(call.args or {})
        except ValidationError as exc:
            return _Prepared(call, tool=tool, error=_format_validation(exc))
        return _Prepared(call, tool=tool, args=args)

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

    def still_reads(self, p: _Prepared) -> bool:
        """Whether a prepared call (its arguments as the before_tool hooks left them) only
        reads; a refused call runs nothing."""
        if p.tool is None or p.args is None or p.error is not None:
            return True
        return p.tool.only_reads(p.args, self.policy)

    async def before_hooks(self, p: _Prepared) -> HookVerdict | None:
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
                return None, _format_validation(exc)

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

    async def run_call(self, p: _Prepared) -> tuple[ToolResult, int, HookVerdict | None]:
        """Execute a prepared call, then its after_tool hooks if it ran."""
        result, ms = await self.execute(p)
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

    async def execute(self, p: _Prepared) -> tuple[ToolResult, int]:
        """Run a prepared call; never raises except for cancellation."""
        start = time.monotonic()
        if p.error is not None:
            return ToolResult(error=p.error), 0
        assert p.tool is not None and p.args is not None
        ctx = self.ctx
        if p.env:
            ctx = dataclasses.replace(ctx, env={**ctx.env, **p.env})
        try:
            if p.tool.kind is ToolKind.execute:
                result = await p.tool.run(p.args, ctx)
            else:
                result = await asyncio.wait_for(p.tool.run(p.args, ctx), ctx.timeout_seconds)
        except ToolFailure as exc:
            result = ToolResult(error=str(exc))
        except asyncio.TimeoutError:
            result = ToolResult(error=f"timed out after {self.ctx.timeout_seconds:g}s")
        except Exception as exc:  # a tool bug must not end the run
            result = ToolResult(error=f"{type(exc).__name__}: {exc}")
        # names that are not UTF-8: U+FFFD and a note, never a lone surrogate (not_utf8)
        result.output = for_model(result.output) if result.output else result.output
        result.error = for_model(result.error) if result.error else result.error
        if ctx.redact is not None:
            # once per output: the model, the after_tool hooks and the events all get this text
            result.output = ctx.redact(result.output) if result.output else result.output
            result.error = ctx.redact(result.error) if result.error else result.error
        return result, int((time.monotonic() - start) * 1000)
