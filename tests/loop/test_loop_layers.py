"""Loop detection inside the agent loop: tool-call cycles and the recovery protocol, with a
scripted model and the real tools on a real git repository."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from test_session import make_session

from agentci.errors import LoopDetected
from agentci.events import types as ev
from agentci.loop.session import Session
from agentci.providers.base import ModelRequest, TextPart, ToolCallPart
from agentci.providers.scripted import Reply, ScriptedProvider, call

FILES = {"a.txt": "alpha\n", "b.txt": "beta\n", "c.txt": "gamma\n"}


def collect(session: Session, prompt: str = "Go") -> tuple[list[ev.Event], BaseException | None]:
    events: list[ev.Event] = []

    async def go() -> None:
        async for event in session.run(prompt):
            events.append(event)

    try:
        asyncio.run(go())
    except LoopDetected as stop:
        return events, stop
    return events, None


def cycling(*steps: Callable[[], ToolCallPart]) -> Callable[[ModelRequest, int], Reply]:
    """A model that repeats ``steps`` forever, one call per answer."""
    return lambda request, i: Reply(calls=[steps[i % len(steps)]()])


def loops_of(events: list[ev.Event]) -> list[ev.LoopDetectedEvent]:
    return [e for e in events if isinstance(e, ev.LoopDetectedEvent)]


def read(path: str) -> Callable[[], ToolCallPart]:
    return lambda: call("read_file", file_path=path)


def test_an_a_b_a_b_cycle_is_caught_after_five_rounds_then_stopped(repo_factory):
    repo = repo_factory(FILES)
    provider = ScriptedProvider(cycling(read("a.txt"), read("b.txt")))
    events, stop = collect(make_session(repo, provider))

    assert isinstance(stop, LoopDetected)
    found = loops_of(events)
    assert [(e.kind, e.recovering) for e in found] == [("tool_call", True), ("tool_call", False)]
    assert "cycle of 2 calls repeated 5 times" in found[0].detail
    # 10 calls make five A-B rounds: nudge; the count starts again: 10 more calls, stop.
    assert len(provider.requests) == 20
    nudge = provider.requests[10].messages[-1].parts[-1]
    assert isinstance(nudge, TextPart) and "repeating the same step" in nudge.text


def test_an_a_b_c_cycle_is_caught(repo_factory):
    repo = repo_factory(FILES)
    provider = ScriptedProvider(cycling(read("a.txt"), read("b.txt"), read("c.txt")))
    events, stop = collect(make_session(repo, provider))
    assert isinstance(stop, LoopDetected)
    assert "cycle of 3 calls repeated 5 times" in loops_of(events)[0].detail
    assert len(provider.requests) == 30


def test_the_same_command_with_a_different_description_is_the_same_call(repo_factory):
    repo = repo_factory(FILES)
    provider = ScriptedProvider(
        lambda request, i: Reply(
            calls=[call("run_shell_command", command="git status", description=f"check #{i}")]
        )
    )
    events, stop = collect(make_session(repo, provider))
    assert isinstance(stop, LoopDetected)
    assert [e.recovering for e in loops_of(events)] == [True, False]
    assert len(provider.requests) == 10


def test_the_same_tool_on_different_files_is_not_a_loop(repo_factory):
    files = {f"f{n}.txt": f"{n}\n" for n in range(12)}
    repo = repo_factory(files)
    script: list[Reply] = [
        Reply(calls=[call("read_file", file_path=f"f{n}.txt")]) for n in range(12)
    ]
    provider = ScriptedProvider([*script, Reply(text="Read them all.")])
    session = make_session(repo, provider)
    events, stop = collect(session)
    assert stop is None and loops_of(events) == []
    assert session.state.final_text == "Read them all."


def test_every_call_of_a_batch_is_observed(repo_factory):
    """Five turns that each ask for [A, B] in one answer make the A-B cycle of ten calls."""
    repo = repo_factory(FILES)
    provider = ScriptedProvider(
        lambda request, i: Reply(
            calls=[call("read_file", file_path="a.txt"), call("read_file", file_path="b.txt")]
        )
    )
    events, stop = collect(make_session(repo, provider))
    assert isinstance(stop, LoopDetected)
    assert len(provider.requests) == 10


def test_the_path_spelling_does_not_hide_a_repeat(repo_factory):
    repo = repo_factory(FILES)
    spellings = ["a.txt", "./a.txt", "a.txt ", "./a.txt", "a.txt"]
    provider = ScriptedProvider(
        lambda request, i: Reply(calls=[call("read_file", file_path=spellings[i % 5])])
    )
    events, stop = collect(make_session(repo, provider))
    assert isinstance(stop, LoopDetected)
    assert len(provider.requests) == 10


def test_a_cycle_broken_by_a_new_call_is_not_a_loop(repo_factory):
    """Nine A-B calls, then C, then A-B again: no five full rounds in a row."""
    repo = repo_factory(FILES)
    names = ["a.txt", "b.txt"] * 4 + ["a.txt", "c.txt"] + ["a.txt", "b.txt"] * 4
    script = [Reply(calls=[call("read_file", file_path=n)]) for n in names]
    provider = ScriptedProvider([*script, Reply(text="done")])
    events, stop = collect(make_session(repo, provider))
    assert stop is None and loops_of(events) == []


def test_the_same_call_five_times_is_still_a_loop(repo_factory):
    repo = repo_factory(FILES)
    provider = ScriptedProvider(cycling(read("a.txt")))
    events, stop = collect(make_session(repo, provider))
    assert isinstance(stop, LoopDetected)
    assert "read_file called 5 times in a row" in loops_of(events)[0].detail
    assert len(provider.requests) == 10
