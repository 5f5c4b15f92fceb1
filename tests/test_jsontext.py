"""agentci.jsontext.loads: one JSON document from text agentci did not write, bounded."""

from __future__ import annotations

import pytest

from agentci.jsontext import MAX_DEPTH, NotJson, loads


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_a_document_at_the_depth_limit_is_read():
    value = loads(nested(MAX_DEPTH))
    for _ in range(MAX_DEPTH - 1):
        [value] = value
    assert value == []


def test_one_level_past_the_limit_is_not_json():
    with pytest.raises(NotJson, match=f"nested more than {MAX_DEPTH} levels deep"):
        loads(nested(MAX_DEPTH + 1))


def test_a_document_deeper_than_pythons_parser_reads_is_not_json():
    with pytest.raises(NotJson, match="nested more than"):
        loads(b'{"a": ' + nested(100_000).encode() + b"}")


def test_brackets_inside_strings_are_not_levels():
    text = '{"code": "' + "[" * (MAX_DEPTH * 2) + '"}'
    assert loads(text) == {"code": "[" * (MAX_DEPTH * 2)}


def test_bytes_that_are_not_utf8_are_not_json():
    with pytest.raises(NotJson, match="not UTF-8"):
        loads(b'{"text": "caf\xe9"}')


def test_text_that_is_not_json_says_where():
    with pytest.raises(NotJson, match="Expecting value: line 1 column 1"):
        loads("garbage")


def test_not_json_is_a_value_error():
    assert issubclass(NotJson, ValueError)
