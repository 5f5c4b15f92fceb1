"""How a hook's exit code and output are read at each stage (docs/hooks.md, "What the hook
answers"): the deciding stages never let a broken hook through, the observing ones warn."""

from __future__ import annotations

import pytest

from agentci.hooks.answer import interpret


@pytest.mark.parametrize(
    ("code", "timed_out", "output", "decision", "reason"),
    [
        (0, False, "", "continue", ""),
        (0, False, "looks fine", "continue", ""),
        (0, False, '{"decision": "continue"}', "continue", "continue by the hook"),
        (
            0,
            False,
            'log\n{"decision": "block", "reason": "run the tests"}',
            "block",
            "run the tests",
        ),
        (0, False, '{"decision": "deny", "reason": "no"}', "block", "no"),
        (2, False, "tests were not run", "block", "tests were not run"),
        (0, False, '{"decision": "stop", "reason": "freeze"}', "stop", "freeze"),
        (1, False, "Traceback", "stop", "the hook failed (exit 1): Traceback"),
        (None, True, "", "stop", "the hook timed out after 30s"),
        (
            0,
            False,
            '{"decision": "allow"}',
            "stop",
            "the hook answered an unknown decision 'allow' (continue, block or stop)",
        ),
    ],
)
def test_after_agent_answers(code, timed_out, output, decision, reason):
    answer = interpret("after_agent", code, timed_out, output, 30)
    assert (answer.decision, answer.reason) == (decision, reason)


@pytest.mark.parametrize("stage", ["session_start", "before_model"])
def test_context_is_read_from_the_last_json_line(stage):
    answer = interpret(stage, 0, False, 'note\n{"additionalContext": "branch main"}', 30)
    assert (answer.decision, answer.context, answer.failed) == ("continue", "branch main", False)


@pytest.mark.parametrize("stage", ["pre_compress", "session_end"])
def test_context_from_a_stage_that_takes_none_is_a_warning(stage):
    answer = interpret(stage, 0, False, '{"additionalContext": "x"}', 30)
    assert (answer.decision, answer.context, answer.failed) == ("continue", "", True)
    assert answer.reason == f"{stage} hooks cannot add context; additionalContext ignored"


@pytest.mark.parametrize("stage", ["session_start", "before_model", "pre_compress", "session_end"])
@pytest.mark.parametrize(("code", "timed_out"), [(1, False), (2, False), (None, True)])
def test_an_observing_hook_that_fails_continues_with_a_warning(stage, code, timed_out):
    answer = interpret(stage, code, timed_out, "boom", 5)
    assert (answer.decision, answer.failed) == ("continue", True)
    assert answer.reason.endswith("; the hook only observes, the run goes on")


def test_before_tool_args_rewrite_the_call_only_with_continue():
    rewrite = interpret("before_tool", 0, False, '{"args": {"command": "pytest -q"}}', 30)
    assert (rewrite.decision, rewrite.args) == ("rewrite", {"command": "pytest -q"})
    deny = interpret("before_tool", 0, False, '{"decision": "deny", "args": {"a": 1}}', 30)
    assert (deny.decision, deny.args) == ("deny", None)
    after = interpret("after_tool", 0, False, '{"args": {"command": "x"}}', 30)
    assert (after.decision, after.args) == ("continue", None)
