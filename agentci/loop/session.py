"""One task's conversation: the ReAct loop, readable in one screen.

    prompt → [budget check → context kept in the window → model call(s) → tool calls
              → results into history] … → final answer

The loop ends when the model answers without tool calls (``run`` returns), or when a typed
:class:`~agentci.errors.StopRun` is raised (budget, loop, block, provider failure, cancel).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from agentci.context.loop_detection import LoopDetector, LoopHit
from agentci.context.loop_judge import LoopJudge, judge_model
from agentci.errors import BudgetExhausted, LoopDetected
from agentci.events import types as ev
from agentci.hooks.loop_stages import LoopHooks, reported
from agentci.loop.budget import BudgetTracker
from agentci.loop.chat import Chat
from agentci.loop.continuation import Continuation, was_cut
from agentci.loop.meter import Meter, PriceFn
from agentci.loop.state import Denial, State
from agentci.loop.turn import Turn
from agentci.loop.window import ContextKeeper
from agentci.providers.base import Message, ModelRequest, Part, TextPart, ToolResultPart, ToolSpec
from agentci.recipe.model_config import ModelConfig
from agentci.recipe.schema import Context
from agentci.tools.not_utf8 import replaced
from agentci.tools.scheduler import Scheduler
from agentci.tools.submit import Answer


class Session:
    """Runs prompts against the model until it is done, within the budget."""

    def __init__(
        self,
        *,
        chat: Chat,
        scheduler: Scheduler,
        tools: list[ToolSpec],
        system: str,
        model: ModelConfig,
        budget: BudgetTracker,
        price: PriceFn,
        state: State | None = None,
        loops: LoopDetector | None = None,
        context: Context | None = None,
        answer: Answer | None = None,
    ) -> None:
        self.chat = chat
        self.scheduler = scheduler
        self.tools = tools
        self.system = replaced(system)  # a checkout whose folder name is not UTF-8 (U+FFFD)
        self.model = model
        self.budget = budget
        self.price = price
        self.state = state or State()
        self.loops = loops or LoopDetector()
        self.meter = Meter(self.state, budget, price)
        self.answer = answer  # output.schema: the session ends once a valid answer is handed in
        self.continuation = Continuation(model.max_continuations)
        check = self.loops.config.model_check
        self.judge: LoopJudge | None = None
        if check.enabled:
            judge = Chat(chat.provider, judge_model(check, chat.config))
            side = self.meter.beside()
            self.judge = LoopJudge(check, judge.model, lambda r: judge.stream(r, side))
        self.task_prompt = ""  # the first prompt, for the judge
        outputs = scheduler.ctx.outputs
        self.context = ContextKeeper(context or Context(), model.context_window, outputs)
        self.hooks = LoopHooks(scheduler.hooks)  # the loop's hook stages (docs/hooks.md)

    def _request(self, extra: list[str] | None = None) -> ModelRequest:
        """The next request; ``extra`` (before_model hooks' context) is added to its last
        user message, for this request only (the history is not changed)."""
        messages = list(self.state.messages)  # a snapshot: history grows after the call
        if extra and messages and messages[-1].role == "user":
            last = messages[-1]
            messages[-1] = Message(role="user", parts=[*last.parts, *map(TextPart, extra)])
        elif extra:
            messages.append(Message(role="user", parts=list(map(TextPart, extra))))
        return ModelRequest(
            model=self.chat.model,
            system=self.system,
            messages=messages,
            tools=self.tools,
            temperature=self.model.temperature,
            max_output_tokens=self.model.max_output_tokens,
            thinking_budget=self.model.thinking_budget,
        )

    async def run(self, prompt: str, *, context: str = "") -> AsyncIterator[ev.Event]:
        """Send ``prompt`` (after the project ``context`` block, if any) and loop until the
        model answers without calling a tool, or hands in its structured answer."""
        state = self.state
        # a follow-up naming a file that is not UTF-8 (a guard's reverted files): U+FFFD
        prompt, context = replaced(prompt), replaced(context)
        first = [TextPart(context)] if context else []
        start = await self.hooks.session_start(prompt=prompt, model=self.chat.model)
        for event in reported(start):
            yield event
        first += map(TextPart, start.context)  # after the project context, before the prompt
        state.messages.append(Message(role="user", parts=[*first, TextPart(prompt)]))
        self.task_prompt = self.task_prompt or prompt
        self.loops.new_prompt()
        async for event in self._loop():
            yield event

    async def resume(self) -> AsyncIterator[ev.Event]:
        """Go on from the conversation already in the state (``agentci run --resume``, which
        keeps it up to its last complete turn): the model answers its last user message; a
        conversation that ends with the model's final answer needs no model call."""
        state = self.state
        first = next((m for m in state.messages if m.role == "user"), None)
        self.task_prompt = self.task_prompt or (first.text if first else "")
        self.loops.new_prompt()
        last = state.messages[-1] if state.messages else None
        if last is not None and last.role == "model" and not last.tool_calls:
            state.final_text = last.text.strip()
            return
        async for event in self._loop():
            yield event

    async def _loop(self) -> AsyncIterator[ev.Event]:
        """Model turns until the model answers without tool calls (see :meth:`run`)."""
        state = self.state
        while True:
            self.budget.before_turn(state)
            if self.judge is not None and self.judge.due(state.turns):
                async for event in self._judge():
                    yield event
            async for event in self.context.before_request(self):  # mask, compress, guard
                yield event
            before = await self.hooks.before_model(turn=state.turns + 1, model=self.chat.model)
            for event in reported(before):
                yield event
            request = self._request(before.context)
            self.meter.before_call(request)  # a turn that cannot make its first call never starts
            state.turns += 1
            yield ev.TurnStarted(turn=state.turns)
            turn = Turn(self.chat, request, state.turns, self.meter, watch=self.loops)
            async for event in turn.run():
                yield event
            calls = turn.tool_calls
            yield ev.TurnFinished(
                turn=state.turns,
                finish=turn.finish,
                finish_reason=turn.finish_reason,
                tool_calls=len(calls),
            )
            self.budget.after_turn(state)
            if turn.parts:
                state.messages.append(turn.message)
            if isinstance(turn.stopped, LoopHit):  # the answer was cut off: it chanted
                self.continuation.drop()
                async for event in self._recover(turn.stopped, []):
                    yield event
                continue
            if not calls:
                text = turn.message.text
                if was_cut(turn.finish):  # unfinished: ask for the rest
                    state.final_text = (self.continuation.text + text).strip()
                    nudge = self.continuation.cut(text)
                    state.messages.append(Message(role="user", parts=[TextPart(nudge)]))
                    continue
                state.final_text = self.continuation.finish(text).strip()
                reminder = self.answer.missing() if self.answer else None  # may raise OutputInvalid
                if reminder is None:
                    gate = await self.hooks.after_agent(answer=state.final_text, turn=state.turns)
                    for event in gate.events:
                        yield event
                    if gate.stop is not None:
                        raise gate.stop
                    if gate.prompt is None:
                        return  # accepted
                    state.messages.append(Message(role="user", parts=[TextPart(gate.prompt)]))
                    continue
                state.messages.append(Message(role="user", parts=[TextPart(reminder)]))
                continue
            self.continuation.drop()
            allowed = self.budget.tool_calls_allowed(state, len(calls))
            state.calls_started += allowed  # before they run: a write then a stop still counts
            batch = self.scheduler.batch(calls[:allowed])
            async for event in batch:
                if isinstance(event, ev.ToolCallDecision) and event.decision == "deny":
                    state.denials.append(Denial(event.name, event.rule, event.reason))
                yield event
            state.tool_calls += allowed
            results: list[Part] = list(batch.results)
            results += [
                ToolResultPart(c.id, c.name, "", error="not started: the tool-call budget is spent")
                for c in calls[allowed:]
            ]
            if hit := self.loops.observe(calls, self.scheduler.accesses):
                async for event in self._recover(hit, results):
                    yield event
            else:
                state.messages.append(Message(role="user", parts=results))
            if self.answer is not None and self.answer.handed_in():  # may raise OutputInvalid
                state.final_text = turn.message.text.strip()
                return
            if allowed < len(calls):
                cap = self.budget.budget.max_tool_calls or 0
                raise BudgetExhausted("max_tool_calls", state.tool_calls + 1, cap)
            self.budget.check_wall()

    async def _judge(self) -> AsyncIterator[ev.Event]:
        """The model-judged check (its call's events), and the recovery if it says stuck."""
        assert self.judge is not None
        hit = None
        state = self.state
        async for item in self.judge.check(state.turns, self.task_prompt, state.messages):
            if isinstance(item, LoopHit):
                hit = item
            else:
                yield item
        if hit is not None:
            async for event in self._recover(hit, None):
                yield event

    async def _recover(self, hit: LoopHit, results: list[Part] | None) -> AsyncIterator[ev.Event]:
        """Report ``hit``; nudge the model once (with ``results``; None: added to the last
        user message, not sent yet), or stop the task."""
        event, nudge = self.loops.recover(hit)
        yield event
        if nudge is None:
            raise LoopDetected(f"loop detected ({hit.kind}): {hit.detail}")
        messages = self.state.messages
        if results is None and messages and messages[-1].role == "user":
            last = messages[-1]  # a new object: a message already serialised is never changed
            messages[-1] = Message(role="user", parts=[*last.parts, TextPart(nudge)])
        else:
            messages.append(Message(role="user", parts=[*(results or []), TextPart(nudge)]))
