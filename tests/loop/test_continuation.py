"""A final answer cut by the output limit (MAX_TOKENS) is continued, joined, or refused."""

from __future__ import annotations

import asyncio

import pytest
from test_session import make_session

from agentci.errors import BudgetExhausted
from agentci.events import types as ev
from agentci.loop.continuation import CONTINUE_PROMPT
from agentci.providers.scripted import Reply, ScriptedProvider, call
from agentci.recipe.model_config import ModelConfig


def cut(text: str) -> Reply:
    return Reply(text=text, finish_reason="MAX_TOKENS")


def collect(session) -> list[ev.Event]:
    async def go() -> list[ev.Event]:
        return [e async for e in session.run("Explain the bug.")]

    return asyncio.run(go())


def test_a_cut_answer_is_continued_and_the_pieces_joined(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider(
        [cut("The bug is in the pars"), cut("er: it drops the last "), Reply(text="line.")]
    )
    session = make_session(repo, provider)
    events = collect(session)

    assert session.state.final_text == "The bug is in the parser: it drops the last line."
    assert len(provider.requests) == 3
    second = provider.requests[1].messages
    assert [m.role for m in second] == ["user", "model", "user"]
    assert second[1].text == "The bug is in the pars"
    assert second[2].text == CONTINUE_PROMPT
    finishes = [e.finish_reason for e in events if isinstance(e, ev.TurnFinished)]
    assert finishes == ["MAX_TOKENS", "MAX_TOKENS", "STOP"]
    assert session.state.turns == 3 and session.state.usage.model_calls == 3


def test_an_answer_still_cut_after_the_last_continuation_exhausts_the_budget(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider(lambda request, i: cut(f"piece {i}; "))
    session = make_session(repo, provider, model=ModelConfig(name="s", max_continuations=2))
    with pytest.raises(BudgetExhausted) as stop:
        collect(session)
    assert stop.value.limit == "max_output_tokens"
    assert (stop.value.used, stop.value.cap) == (2, 2)
    assert len(provider.requests) == 3  # the answer and two continuations, no more
    assert session.state.final_text == "piece 0; piece 1; piece 2;"


def test_without_continuations_a_cut_answer_ends_the_task_at_once(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider([cut("Half an answ")])
    session = make_session(repo, provider, model=ModelConfig(name="s", max_continuations=0))
    with pytest.raises(BudgetExhausted, match="max_output_tokens"):
        collect(session)
    assert len(provider.requests) == 1


def test_a_tool_call_after_a_continuation_drops_the_cut_pieces(repo_factory):
    repo = repo_factory({"a.txt": "alpha\n"})
    provider = ScriptedProvider(
        [
            cut("I think the answer is"),
            Reply(calls=[call("read_file", file_path="a.txt")]),
            Reply(text="It says alpha."),
        ]
    )
    session = make_session(repo, provider)
    collect(session)
    assert session.state.final_text == "It says alpha."


def test_three_continuations_by_default(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider(lambda request, i: cut("more "))
    with pytest.raises(BudgetExhausted):
        collect(make_session(repo, provider))
    assert len(provider.requests) == 4


def test_a_continuation_that_chants_is_not_joined_to_the_next_answer(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    chant = "I will now run the tests again to see whether they pass. " * 30
    provider = ScriptedProvider([cut("The cause is"), Reply(text=chant), Reply(text="Done.")])
    session = make_session(repo, provider)
    events = collect(session)
    loops = [e for e in events if isinstance(e, ev.LoopDetectedEvent)]
    assert [(e.kind, e.recovering) for e in loops] == [("content", True)]
    assert session.state.final_text == "Done."
