"""The tool stages: ``before_tool`` (deny, stop or rewrite a call before the policy judges it)
and ``after_tool`` (notes on the result, or stop) — docs/hooks.md.

A ``before_tool`` hook that answers ``{"decision": "continue", "args": {...}}`` rewrites the
call: the keys it gives replace the model's (the others stay), the result is validated against
the tool's parameters again (invalid: the call is denied), the later hooks of the chain see the
rewritten arguments, and the policy judges the rewritten call, never the model's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from agentci.hooks.answer import NOTE_CAP, Answer, cap
from agentci.hooks.verdict import CompiledHook, HookVerdict


class Stages(Protocol):
    """What the tool stages use of a :class:`~agentci.hooks.runner.HookRunner`."""

    def matching(self, stage: str, tool_name: str | None = None) -> list[CompiledHook]:
        """The hooks of ``stage`` that apply to ``tool_name``, in order."""
        ...

    def payload(self, stage: str, **fields: Any) -> bytes:
        """The JSON document a hook of ``stage`` reads on stdin."""
        ...

    async def run(self, hook: CompiledHook, payload: bytes, verdict: HookVerdict) -> Answer:
        """Run one hook; its answer, read for its stage."""
        ...


#: Checks rewritten arguments against the tool: (the arguments as validated, "") or
#: (None, why they are invalid).
Validate = Callable[[dict[str, Any]], tuple[dict[str, Any] | None, str]]


async def before_tool(
    runner: Stages,
    *,
    tool_name: str,
    call_id: str,
    args: Any,
    validate: Validate | None = None,
) -> HookVerdict:
    """Run the matching before_tool hooks in order; the first deny or stop ends the chain; a
    rewrite changes the arguments the next hooks and the policy see."""
    verdict = HookVerdict()
    current = dict(args) if isinstance(args, dict) else args
    for hook in runner.matching("before_tool", tool_name):
        payload = runner.payload("before_tool", tool_name=tool_name, call_id=call_id, args=current)
        answer = await runner.run(hook, payload, verdict)
        if answer.decision == "rewrite" and answer.args is not None:
            merged = {**(current if isinstance(current, dict) else {}), **answer.args}
            checked, why = validate(merged) if validate is not None else (merged, "")
            event = verdict.events[-1]
            if checked is None:
                answer.decision = "deny"
                answer.reason = f"the hook rewrote the arguments into an invalid call: {why}"
                event.decision, event.reason = "deny", cap(answer.reason, NOTE_CAP)
            else:
                current, event.args = checked, checked
                verdict.args = checked
                shown = cap(json.dumps(checked, ensure_ascii=False), NOTE_CAP)
                verdict.notes.append(f"[{hook.label} changed the arguments to: {shown}]")
                continue
        if answer.decision not in ("continue", "rewrite"):
            verdict.decision, verdict.hook = answer.decision, hook
            verdict.reason = cap(answer.reason, NOTE_CAP)
            break
    return verdict


async def after_tool(
    runner: Stages,
    *,
    tool_name: str,
    call_id: str,
    args: Any,
    output: str,
    error: str | None,
    exit_code: int | None,
) -> HookVerdict:
    """Run the matching after_tool hooks; their output becomes notes; stop ends the run."""
    result = {"ok": error is None, "output": output, "error": error, "exit_code": exit_code}
    payload = runner.payload(
        "after_tool", tool_name=tool_name, call_id=call_id, args=args, result=result
    )
    verdict = HookVerdict()
    for hook in runner.matching("after_tool", tool_name):
        answer = await runner.run(hook, payload, verdict)
        if answer.decision == "stop":
            verdict.decision, verdict.hook = "stop", hook
            verdict.reason = cap(answer.reason, NOTE_CAP)
            break
        if answer.decision == "deny":
            verdict.notes.append(f"[{hook.label} objected: {cap(answer.reason, NOTE_CAP)}]")
        elif answer.text:
            verdict.notes.append(f"[{hook.label}]: {cap(answer.text, NOTE_CAP)}")
    return verdict
