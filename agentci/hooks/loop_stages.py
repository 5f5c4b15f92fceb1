"""The loop's stages: ``session_start``, ``before_model``, ``after_agent``, ``pre_compress`` and
``session_end`` (docs/hooks.md).

* ``session_start`` runs once per task, before its first model call; each hook's
  ``additionalContext`` goes into the first user message, after the project context and before
  the prompt. From then on the task counts as started: ``session_end`` runs when it ends,
  however it ends (success, a budget, a stop, a signal, a crash).
* ``before_model`` runs before each model call of the agent loop (not the calls that
  summarise the history or judge a loop); its ``additionalContext`` is added to the end of
  **that request only** (the last user message, as extra text), never kept in the history: a
  hook that wants the model to see something on every call says it on every call.
* ``after_agent`` runs when the model answers without calling a tool. It accepts (exit 0),
  blocks (``{"decision": "block", "reason": …}`` or exit 2: the reason is sent to the model as
  a new user message and the loop goes on, with ``stop_hook_active: true`` in the next input)
  or stops (status ``blocked``). A hook that fails stops the task: the answer is never
  accepted silently. At most ``hooks.max_continuations`` blocks in a row; one more ends the
  task ``blocked`` (exit 5). The turn budget bounds the continuations too.
* ``pre_compress`` runs before the history is compressed (a summary or dropped turns).

The observing stages never end the run: a hook that fails is a ``warning`` event
of kind ``hook_warning`` and the loop goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentci.errors import HookStopped
from agentci.events import types as ev
from agentci.hooks.answer import NOTE_CAP, cap
from agentci.hooks.runner import HookVerdict

if TYPE_CHECKING:
    from agentci.hooks.runner import HookRunner, HookVerdict

BLOCKED_PROMPT = (
    "agentci: your answer was not accepted by the recipe's check ({rule}): {reason}\n"
    "Go on with the task and answer again when this is done."
)


def reported(verdict: HookVerdict) -> list[ev.Event]:
    """The events of ``verdict``: each hook's ``hook_result``, then a ``hook_warning`` for
    each observing hook that failed."""
    warnings = [ev.WarningEvent(kind="hook_warning", message=why) for why in verdict.failures]
    return [*verdict.events, *warnings]


async def observe(runner: HookRunner | None, stage: str, **fields: Any) -> HookVerdict:
    """Run the hooks of an observing ``stage``; their context, labelled, in recipe order."""
    verdict = HookVerdict()
    hooks = runner.matching(stage) if runner is not None else []
    if runner is None or not hooks:
        return verdict
    payload = runner.payload(stage, **fields)
    for hook in hooks:
        answer = await runner.run(hook, payload, verdict)
        if answer.context:
            verdict.context.append(f"[{hook.label}]: {answer.context}")
    return verdict


class LoopHooks:
    """The hooks one session calls, and how many times in a row after_agent blocked."""

    def __init__(self, runner: HookRunner | None) -> None:
        self.runner = runner if runner else None
        self.blocks = 0  # after_agent blocks since the last accepted answer

    async def session_start(self, *, prompt: str, model: str) -> HookVerdict:
        """Once per task: the session_start hooks (none after the first call)."""
        if self.runner is None or self.runner.started:
            return HookVerdict()
        self.runner.started = True
        return await observe(self.runner, "session_start", prompt=prompt, model=model)

    async def before_model(self, *, turn: int, model: str) -> HookVerdict:
        """Before each model call of the loop: its context goes into that request only."""
        return await observe(self.runner, "before_model", turn=turn, model=model)

    async def pre_compress(self, *, turn: int, tokens: int, window: int) -> HookVerdict:
        """Before the history is compressed (observing)."""
        return await observe(self.runner, "pre_compress", turn=turn, tokens=tokens, window=window)

    async def after_agent(self, *, answer: str, turn: int) -> AfterAgent:
        """The after_agent hooks on a final answer (see :class:`AfterAgent`)."""
        verdict = HookVerdict()
        runner = self.runner
        if runner is None or not runner.matching("after_agent"):
            return AfterAgent(verdict)
        payload = runner.payload(
            "after_agent",
            turn=turn,
            answer=answer,
            stop_hook_active=self.blocks > 0,
            continuations=self.blocks,
        )
        for hook in runner.matching("after_agent"):
            got = await runner.run(hook, payload, verdict)
            if got.decision in ("block", "stop"):
                verdict.decision, verdict.hook = got.decision, hook
                verdict.reason = cap(got.reason, NOTE_CAP)
                break
        blocker = verdict.hook
        if verdict.decision == "continue" or blocker is None:
            self.blocks = 0
            return AfterAgent(verdict)
        if verdict.decision == "stop":
            why = f"stopped by {blocker.rule}: {verdict.reason}"
            return AfterAgent(verdict, stop=HookStopped(why, hook=blocker.label))
        self.blocks += 1
        if self.blocks > runner.max_continuations:
            why = (
                f"stopped by {blocker.rule}: it did not accept the answer {self.blocks} times in a "
                f"row (hooks.max_continuations is {runner.max_continuations}): {verdict.reason}"
            )
            return AfterAgent(verdict, stop=HookStopped(why, hook=blocker.label))
        prompt = BLOCKED_PROMPT.format(rule=blocker.rule, reason=verdict.reason)
        return AfterAgent(verdict, prompt=prompt)


@dataclass
class AfterAgent:
    """What the after_agent hooks made of a final answer: accepted (no ``prompt``, no
    ``stop``), blocked (``prompt`` goes back to the model) or stopped (raise ``stop`` once
    the events are out)."""

    verdict: HookVerdict
    prompt: str | None = None
    stop: HookStopped | None = None

    @property
    def events(self) -> list[ev.Event]:
        return reported(self.verdict)


async def session_end(
    runner: HookRunner | None,
    verdict: HookVerdict,
    timeout_cap: float | None = None,
    **fields: Any,
) -> None:
    """The session_end hooks of a task that started (none otherwise), one after the other,
    into ``verdict`` (:func:`reported` makes their events); ``verdict.running`` is the hook
    running now, for the caller to report it stopped when a signal cancels this.
    ``timeout_cap``: at most this long each (a task a signal ended)."""
    if runner is None or not runner.started:
        return
    payload = runner.payload("session_end", **fields)
    for hook in runner.matching("session_end"):
        verdict.running = hook
        await runner.run(hook, payload, verdict, timeout_cap)
        verdict.running = None
