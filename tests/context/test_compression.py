"""Compression, masking and the overflow guard, with the real tools and a scripted model."""

from __future__ import annotations

import io
import json
from pathlib import Path

from context_session import context_session, run, run_until_stop

from agentci.context.compression import (
    ORIGIN_INTRO,
    SNAPSHOT_INTRO,
    SNAPSHOT_REQUEST,
    SNAPSHOT_SYSTEM,
)
from agentci.errors import BudgetExhausted, ContextWindowFull
from agentci.events import types as ev
from agentci.events.console import ConsoleSink
from agentci.providers.base import (
    Message,
    ModelRequest,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    TransientProviderError,
)
from agentci.providers.gemini_wire import message_to_json, request_body
from agentci.providers.scripted import Reply, ScriptedProvider, call
from agentci.recipe.budget_config import Budget
from agentci.recipe.schema import Context
from agentci.usage import Usage

# 300 lines of 40 characters: a read of it is about 3,000 tokens
BIG = "".join(f"{i:04d} " + "abcdefghij" * 3 + "abcd\n" for i in range(300))
SNAPSHOT = (
    "<state_snapshot><goal>read big.txt</goal><next_step>read on</next_step></state_snapshot>"
)


class Agent:
    """Reads big.txt ``turns`` times (a different range each time), then answers; answers a
    summary request with ``summary``."""

    def __init__(self, turns: int, summary: str = SNAPSHOT) -> None:
        self.turns = turns
        self.summary = summary
        self.done = 0

    def __call__(self, request: ModelRequest, index: int) -> Reply:
        if request.system == SNAPSHOT_SYSTEM:
            return Reply(text=self.summary)
        self.done += 1
        if self.done > self.turns:
            return Reply(text="finished")
        return Reply(calls=[call("read_file", file_path="big.txt", start_line=self.done)])


def summaries(provider: ScriptedProvider) -> list[int]:
    return [i for i, r in enumerate(provider.requests) if r.system == SNAPSHOT_SYSTEM]


def calls_in(messages: list[Message]) -> list[int]:
    return [p.args["start_line"] for m in messages for p in m.parts if isinstance(p, ToolCallPart)]


def assert_pairs_whole(messages: list[Message]) -> None:
    """Every function call is answered by the next message, and every answer has its call."""
    assert messages[0].role == "user"
    for i, m in enumerate(messages):
        assert m.role == ("user" if i % 2 == 0 else "model")
        ids = [p.id for p in m.parts if isinstance(p, ToolCallPart)]
        if ids:
            answers = [p.id for p in messages[i + 1].parts if isinstance(p, ToolResultPart)]
            assert answers == ids
        results = [p.id for p in m.parts if isinstance(p, ToolResultPart)]
        if results:
            assert [p.id for p in messages[i - 1].parts if isinstance(p, ToolCallPart)] == results


def test_compression_replaces_older_turns_by_a_snapshot_and_keeps_calls_with_responses(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": BIG})
    provider = ScriptedProvider(Agent(turns=12))
    session = context_session(repo, tmp_path / "out", provider, window=24_000)
    events = run(session, "Read big.txt again and again.")

    compressed = [e for e in events if isinstance(e, ev.ChatCompressed)]
    assert compressed and all(e.status == "compressed" for e in compressed)
    assert all(e.tokens_after < e.tokens_before for e in compressed)
    assert all(e.tokens_before >= 12_000 for e in compressed)  # compress_at 0.5 of 24,000
    line = ConsoleSink(io.StringIO(), sanitize=str).format(compressed[0])
    assert line == (
        f"  history compressed: about {compressed[0].tokens_before:,} → "
        f"{compressed[0].tokens_after:,} tokens"
    )
    first = summaries(provider)[0]
    asked = provider.requests[first]
    assert asked.tools == [] and asked.messages[-1].parts[-1] == TextPart(SNAPSHOT_REQUEST)
    assert asked.messages[0].parts[0] == TextPart("Read big.txt again and again.")
    after = provider.requests[first + 1].messages
    assert after[0].parts == [
        TextPart(SNAPSHOT_INTRO + SNAPSHOT),
        TextPart(ORIGIN_INTRO + "Read big.txt again and again."),
    ]
    older = calls_in(asked.messages)
    assert older and not set(older) & set(calls_in(after))  # the old turns are gone
    assert calls_in(after) == list(range(max(older) + 1, max(older) + 1 + len(calls_in(after))))
    for request in provider.requests:
        if request.system != SNAPSHOT_SYSTEM:
            assert_pairs_whole(request.messages)
    # the summary calls are counted like any other
    assert session.state.usage.model_calls == len(provider.requests)
    assert session.state.turns == len(provider.requests) - len(summaries(provider))
    assert session.state.final_text == "finished"


def test_a_300_turn_session_stays_under_the_window_in_the_bytes_it_sends(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": BIG})
    provider = ScriptedProvider(Agent(turns=300))
    budget = Budget(max_turns=301)
    session = context_session(repo, tmp_path / "out", provider, window=24_000, budget=budget)
    events = run(session, "Read big.txt again and again.")

    sizes = [
        len(json.dumps(request_body(r, [message_to_json(m) for m in r.messages])))
        for r in provider.requests
    ]
    assert max(sizes) // 4 < 24_000
    assert max(sizes[-50:]) < 2 * max(sizes[:50])  # bounded: not growing with the session
    statuses = {e.status for e in events if isinstance(e, ev.ChatCompressed)}
    assert statuses == {"compressed"}
    assert session.state.turns == 301 and session.state.final_text == "finished"


def test_an_inflated_snapshot_keeps_the_history_and_later_only_old_turns_are_dropped(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": BIG})
    provider = ScriptedProvider(Agent(turns=12, summary="<state_snapshot>" + "x" * 200_000))
    session = context_session(repo, tmp_path / "out", provider, window=24_000)
    events = run(session, "Read big.txt again and again.")

    statuses = [e.status for e in events if isinstance(e, ev.ChatCompressed)]
    assert statuses[0] == "failed_inflated"
    assert set(statuses[1:]) == {"content_truncated"}
    assert len(summaries(provider)) == 1  # no second attempt
    first = summaries(provider)[0]
    kept = provider.requests[first + 1].messages
    assert kept[0].parts == [TextPart("Read big.txt again and again.")]  # the original history
    truncated = provider.requests[-1].messages
    note = truncated[0].text
    assert (
        note.startswith("agentci: the ") and "oldest messages of this session were dropped" in note
    )
    assert "Read big.txt again and again." in note
    assert note.count("dropped") == 1  # a later drop keeps the task, not the earlier note
    assert_pairs_whole(truncated)


def test_an_empty_snapshot_is_failed_empty_and_its_tries_are_counted(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": BIG})
    provider = ScriptedProvider(Agent(turns=8, summary=""))
    session = context_session(repo, tmp_path / "out", provider, window=24_000)
    events = run(session, "Read big.txt again and again.")

    statuses = [e.status for e in events if isinstance(e, ev.ChatCompressed)]
    assert statuses[0] == "failed_empty"
    assert "compressed" not in statuses
    assert len(summaries(provider)) == 3  # the first try and two corrective retries, no more
    assert session.state.usage.model_calls == len(provider.requests)


def test_the_summary_call_counts_toward_the_token_budget(repo_factory, tmp_path: Path) -> None:
    repo = repo_factory({"big.txt": BIG})
    heavy = Usage(prompt_tokens=100_000, output_tokens=1_000)

    class Costly(Agent):
        def __call__(self, request: ModelRequest, index: int) -> Reply:
            reply = super().__call__(request, index)
            if request.system == SNAPSHOT_SYSTEM:
                reply.usage = heavy
            return reply

    provider = ScriptedProvider(Costly(turns=12))
    budget = Budget(max_tokens=100_000)  # the turns alone use far less
    session = context_session(repo, tmp_path / "out", provider, window=24_000, budget=budget)
    events, stop = run_until_stop(session, "Read big.txt again and again.")

    assert isinstance(stop, BudgetExhausted) and stop.limit == "max_tokens"
    (first,) = summaries(provider)
    assert len(provider.requests) == first + 1  # no call after the summary could be paid for
    assert stop.used == session.state.usage.total_tokens
    assert stop.used - heavy.total_tokens < 100_000  # without the summary it would go on
    assert session.state.usage.model_calls == len(provider.requests)
    usage = [e for e in events if isinstance(e, ev.Usage)]
    assert usage[-1].prompt_tokens == 100_000 and usage[-1].totals.total_tokens == stop.used


def test_old_tool_outputs_are_masked_beyond_the_budget_and_the_newest_kept_whole(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": BIG})
    provider = ScriptedProvider(Agent(turns=3))
    out = tmp_path / "out"
    config = Context(mask_tool_output_after_tokens=4_000)
    run(context_session(repo, out, provider, context=config), "Read big.txt three times.")

    last = provider.requests[-1].messages
    outputs = [p for m in last for p in m.parts if isinstance(p, ToolResultPart)]
    assert [p.masked for p in outputs] == [True, True, False]
    assert outputs[0].saved == "@tool-outputs/0001-read_file.txt"
    assert outputs[0].output.endswith("; read_file @tool-outputs/0001-read_file.txt]")
    assert outputs[0].output.startswith(BIG.splitlines()[0])
    assert len(outputs[0].output) < 600
    assert outputs[2].output.endswith(BIG.split("\n", 2)[2])  # read from line 3: whole
    assert (out / "tool-outputs" / "0001-read_file.txt").read_text() == BIG
    # masking starts once the outputs kept pass the budget: one output fits, two do not
    for request, masked in ((1, [False]), (2, [True, False])):
        sent = provider.requests[request].messages
        assert [p.masked for m in sent for p in m.parts if isinstance(p, ToolResultPart)] == masked


def test_a_first_request_that_cannot_fit_is_never_sent(repo_factory, tmp_path: Path) -> None:
    repo = repo_factory({"a.txt": "x\n"})
    provider = ScriptedProvider([Reply(text="never")])
    session = context_session(repo, tmp_path / "out", provider, window=2_000)
    events, stop = run_until_stop(session, "Fix it. " + "context " * 2_000)

    assert isinstance(stop, ContextWindowFull)
    assert (stop.status, stop.limit, stop.cap) == ("budget_exhausted", "context_window", 2_000)
    (overflow,) = [e for e in events if isinstance(e, ev.ContextWindowWillOverflow)]
    assert overflow.limit == 2_000 and overflow.estimated_tokens > 2_000
    assert provider.requests == []


def test_an_output_too_big_for_the_window_even_after_dropping_turns_stops_the_task(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": BIG * 3})
    provider = ScriptedProvider(
        [Reply(calls=[call("read_file", file_path="big.txt")]), Reply(text="never")]
    )
    session = context_session(repo, tmp_path / "out", provider, window=6_000)
    events, stop = run_until_stop(session, "Read big.txt")

    assert isinstance(stop, ContextWindowFull)
    assert len(provider.requests) == 1  # the doomed second request was not sent
    assert [e.type for e in events][-1] == "context_window_will_overflow"


def test_the_task_and_its_project_context_survive_every_compression(
    repo_factory, tmp_path: Path
) -> None:
    """A snapshot is a paraphrase: the session's first message (the task and the project's
    AGENTS.md text it carries) is kept as it was beside each one."""
    repo = repo_factory({"big.txt": BIG})
    provider = ScriptedProvider(Agent(turns=20))
    session = context_session(repo, tmp_path / "out", provider, window=24_000)
    task = (
        "Read big.txt.\n<project_context>AGENTS.md: run tests with `make check`</project_context>"
    )
    run(session, task)

    after_each = [provider.requests[i + 1] for i in summaries(provider)]
    assert len(after_each) >= 2  # compressed again after an earlier snapshot
    for request in after_each:
        texts = [p.text for p in request.messages[0].parts if isinstance(p, TextPart)]
        assert texts[1] == ORIGIN_INTRO + task


class Failing(Agent):
    """An :class:`Agent` whose summary call answers ``summary`` (a Reply) or raises ``error``."""

    def __init__(self, turns: int, summary: Reply | None = None, error: Exception | None = None):
        super().__init__(turns)
        self.reply, self.error = summary, error

    def __call__(self, request: ModelRequest, index: int) -> Reply:
        if request.system == SNAPSHOT_SYSTEM:
            if self.error is not None:
                raise self.error
            assert self.reply is not None
            return self.reply
        return super().__call__(request, index)


def _snapshot_sent(provider: ScriptedProvider) -> bool:
    return any(
        r.messages[0].text.startswith(SNAPSHOT_INTRO) for r in provider.requests if r.messages
    )


def test_a_snapshot_cut_at_the_output_limit_never_replaces_the_history(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": BIG})
    cut = Reply(
        text="<state_snapshot><goal>read big.txt</goal><files>big", finish_reason="MAX_TOKENS"
    )
    provider = ScriptedProvider(Failing(turns=12, summary=cut))
    session = context_session(repo, tmp_path / "out", provider, window=24_000)
    events = run(session, "Read big.txt again and again.")

    statuses = [e.status for e in events if isinstance(e, ev.ChatCompressed)]
    assert statuses[0] == "failed_truncated"
    assert "compressed" not in statuses
    assert len(summaries(provider)) == 1
    assert not _snapshot_sent(provider)
    assert provider.requests[summaries(provider)[0] + 1].messages[0].parts == [
        TextPart("Read big.txt again and again.")
    ]
    assert events[-1].type != "error" and session.state.messages[-1].text == "finished"


def test_a_blocked_summary_call_is_reported_and_the_task_goes_on(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": BIG})
    blocked = Reply(text="", finish_reason="SAFETY")
    provider = ScriptedProvider(Failing(turns=12, summary=blocked))
    session = context_session(repo, tmp_path / "out", provider, window=24_000)
    events = run(session, "Read big.txt again and again.")

    first = next(e for e in events if isinstance(e, ev.ChatCompressed))
    assert first.status == "failed_error"
    assert first.reason == "blocked: the model's output was blocked (SAFETY)"
    assert not _snapshot_sent(provider)
    assert session.state.messages[-1].text == "finished"


def test_a_summary_call_that_fails_for_good_is_reported_and_the_task_goes_on(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": BIG})
    provider = ScriptedProvider(Failing(turns=12, error=TransientProviderError("HTTP 500")))
    session = context_session(repo, tmp_path / "out", provider, window=24_000)
    events = run(session, "Read big.txt again and again.")

    first = next(e for e in events if isinstance(e, ev.ChatCompressed))
    assert first.status == "failed_error"
    assert first.reason is not None and first.reason.startswith("provider_unavailable: ")
    assert "HTTP 500" in first.reason
    assert session.state.messages[-1].text == "finished"
