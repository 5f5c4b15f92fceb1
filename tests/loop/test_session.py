"""The agent loop with a scripted model and the real tools on a real git repository."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentci.errors import BudgetExhausted, ProviderFailed
from agentci.events import types as ev
from agentci.loop.budget import BudgetTracker
from agentci.loop.chat import Chat
from agentci.loop.session import Session
from agentci.policy.rules import PolicyEngine
from agentci.providers.base import ModelRequest, TextPart, ToolCallPart, ToolResultPart
from agentci.providers.scripted import Reply, ScriptedProvider, call
from agentci.recipe.budget_config import Budget
from agentci.recipe.model_config import ModelConfig
from agentci.recipe.policy_config import Policy
from agentci.tools.base import ToolContext
from agentci.tools.registry import default_tools
from agentci.tools.scheduler import Scheduler


def make_session(
    repo: Path,
    provider: ScriptedProvider,
    *,
    policy: Policy | None = None,
    budget: Budget | None = None,
    model: ModelConfig | None = None,
) -> Session:
    tools = default_tools()
    model = model or ModelConfig(name="scripted")
    return Session(
        chat=Chat(provider, model),
        scheduler=Scheduler(
            tools,
            PolicyEngine.from_recipe(policy or Policy(), workspace=repo, recipe_path=None),
            ToolContext(workspace=repo.resolve()),
        ),
        tools=[t.spec() for t in tools.values()],
        system="system prompt",
        model=model,
        budget=BudgetTracker(budget or Budget()),
        price=lambda model, usage: None,
    )


def run(session: Session, prompt: str) -> list[ev.Event]:
    async def collect() -> list[ev.Event]:
        return [e async for e in session.run(prompt)]

    return asyncio.run(collect())


def test_tool_results_go_back_to_the_model_with_the_call_ids(repo_factory):
    repo = repo_factory({"a.txt": "alpha\n"})
    first = call("read_file", file_path="a.txt")
    provider = ScriptedProvider([Reply(calls=[first]), Reply(text="It says alpha.")])
    session = make_session(repo, provider)
    run(session, "What does a.txt say?")

    second_request: ModelRequest = provider.requests[1]
    results = second_request.messages[-1].parts
    assert len(results) == 1
    assert isinstance(results[0], ToolResultPart)
    assert (results[0].id, results[0].name, results[0].error) == (first.id, "read_file", None)
    assert "alpha" in results[0].output
    assert session.state.final_text == "It says alpha."


def test_the_history_alternates_user_model_user_model(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider(
        [Reply(text="Looking.", calls=[call("list_directory", dir_path=".")]), Reply(text="Done.")]
    )
    session = make_session(repo, provider)
    run(session, "Go")
    roles = [m.role for m in session.state.messages]
    assert roles == ["user", "model", "user", "model"]
    assert isinstance(session.state.messages[0].parts[0], TextPart)
    assert isinstance(session.state.messages[1].parts[1], ToolCallPart)


def test_events_come_in_loop_order(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider(
        [Reply(calls=[call("read_file", file_path="a.txt")]), Reply(text="ok")]
    )
    types = [e.type for e in run(make_session(repo, provider), "Go")]
    assert types == [
        "turn_started", "model_info", "tool_call_request", "usage", "turn_finished",
        "tool_call_decision", "tool_call_response",
        "turn_started", "model_info", "content", "usage", "turn_finished",
    ]  # fmt: skip


def test_a_denied_call_returns_the_reason_to_the_model_and_the_loop_goes_on(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider(
        [Reply(calls=[call("write_file", file_path="b.txt", content="new")]), Reply(text="Cannot.")]
    )
    session = make_session(repo, provider, policy=Policy(mode="read_only"))
    events = run(session, "Write b.txt")
    decision = next(e for e in events if isinstance(e, ev.ToolCallDecision))
    assert decision.decision == "deny"
    result = provider.requests[1].messages[-1].parts[0]
    assert isinstance(result, ToolResultPart) and result.error
    assert not (repo / "b.txt").exists()
    assert [d.tool for d in session.state.denials] == ["write_file"]


def test_an_unknown_tool_is_an_error_for_the_model_not_a_crash(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider([Reply(calls=[call("delete_everything")]), Reply(text="Sorry.")])
    session = make_session(repo, provider)
    run(session, "Go")
    result = provider.requests[1].messages[-1].parts[0]
    assert isinstance(result, ToolResultPart)
    assert "delete_everything" in (result.error or "")
    assert session.state.final_text == "Sorry."


def test_max_turns_stops_before_the_next_model_call(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider(
        lambda request, i: Reply(calls=[call("list_directory", dir_path=".")])
    )
    session = make_session(repo, provider, budget=Budget(max_turns=3))
    with pytest.raises(BudgetExhausted) as stop:
        run(session, "Go")
    assert (stop.value.limit, stop.value.used, stop.value.cap) == ("max_turns", 3, 3)
    assert len(provider.requests) == 3


def test_tool_calls_past_the_cap_are_not_started(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    calls = [call("write_file", file_path=f"f{i}.txt", content="x") for i in range(3)]
    provider = ScriptedProvider([Reply(calls=calls)])
    session = make_session(repo, provider, budget=Budget(max_tool_calls=2))
    with pytest.raises(BudgetExhausted) as stop:
        run(session, "Go")
    assert stop.value.limit == "max_tool_calls"
    assert sorted(p.name for p in repo.glob("f*.txt")) == ["f0.txt", "f1.txt"]


def test_a_script_that_runs_out_is_a_provider_failure(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider([Reply(calls=[call("list_directory", dir_path=".")])])
    with pytest.raises(ProviderFailed, match="no reply for call 2"):
        run(make_session(repo, provider), "Go")


def test_a_follow_up_prompt_continues_the_same_conversation(repo_factory):
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider([Reply(text="First."), Reply(text="Second.")])
    session = make_session(repo, provider)
    run(session, "one")
    run(session, "two")
    assert [m.text for m in provider.requests[1].messages] == ["one", "First.", "two"]
    assert session.state.turns == 2
    assert session.state.final_text == "Second."


def test_a_repeated_call_gets_one_recovery_nudge_then_stops_the_loop(repo_factory):
    from agentci.errors import LoopDetected

    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider(
        lambda request, i: Reply(calls=[call("read_file", file_path="a.txt")])
    )
    session = make_session(repo, provider)
    events: list[ev.Event] = []

    async def collect() -> None:
        async for e in session.run("Go"):
            events.append(e)

    with pytest.raises(LoopDetected):
        asyncio.run(collect())
    loops = [e for e in events if isinstance(e, ev.LoopDetectedEvent)]
    assert [e.recovering for e in loops] == [True, False]
    assert len(provider.requests) == 10
    nudge = provider.requests[5].messages[-1].parts[-1]
    assert isinstance(nudge, TextPart) and "repeating the same step" in nudge.text
