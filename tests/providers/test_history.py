"""history.jsonl's messages: written and read back unchanged; a half turn is dropped."""

from __future__ import annotations

import json

import pytest

from agentci.providers.base import Message, TextPart, ToolCallPart, ToolResultPart
from agentci.providers.history import (
    complete_turns,
    earlier_answers,
    message_dict,
    message_from_dict,
)

CONVERSATION = [
    Message("user", [TextPart("Fix the tests.")]),
    Message("model", [TextPart("thinking", thought=True), TextPart("Looking."),
                      ToolCallPart("c1", "read_file", {"file_path": "a.py"}, signature="c2ln")]),
    Message("user", [ToolResultPart("c1", "read_file", "x = 1\n", saved="0001-read_file.txt")]),
    Message("model", [ToolCallPart("c2", "run_shell_command", {"command": "pytest"})]),
]  # fmt: skip


def test_a_message_survives_a_json_line_unchanged():
    lines = [json.dumps(message_dict(m)) for m in CONVERSATION]
    assert [message_from_dict(json.loads(line)) for line in lines] == CONVERSATION


def test_default_values_are_left_out_of_a_line():
    assert message_dict(CONVERSATION[0]) == {
        "role": "user",
        "parts": [{"text": "Fix the tests.", "kind": "text"}],
    }


def test_a_trailing_model_message_whose_calls_have_no_results_is_dropped():
    assert complete_turns(CONVERSATION) == CONVERSATION[:3]
    assert complete_turns(CONVERSATION[:3]) == CONVERSATION[:3]
    final = [*CONVERSATION[:3], Message("model", [TextPart("Done.")])]
    assert complete_turns(final) == final


def test_the_answers_a_history_holds_are_its_model_messages():
    assert earlier_answers(CONVERSATION[:3]) == 1
    assert earlier_answers(CONVERSATION[:1]) == 0


@pytest.mark.parametrize(
    ("line", "complaint"),
    [
        ({"role": "system", "parts": []}, "role 'user' or 'model'"),
        ({"role": "user", "parts": "text"}, "a list of parts"),
        ({"role": "user", "parts": [{"kind": "image"}]}, "unknown part kind 'image'"),
        ({"role": "user", "parts": [{"kind": "text", "text": "a", "x": 1}]}, "unknown fields"),
        ({"role": "user", "parts": [{"kind": "tool_call", "name": "a"}]}, "a tool_call part"),
    ],
)
def test_a_line_that_is_no_message_is_refused_by_name(line, complaint):
    with pytest.raises(ValueError, match=complaint):
        message_from_dict(line)
