"""The redactor's literal prefilter never changes what is masked.

:meth:`Redactor.redact` runs only the alternatives whose anchors occur in the text, and only on
the lines holding one when all of them match within a line; :meth:`Redactor.redact_full` runs
the whole pattern on the whole text. On generated text made of secret shapes, secret values
(and their encoded forms), near misses, line ends and filler, both give the same result.
"""

from __future__ import annotations

import base64

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentci.reports.redact import Redactor

VALUES = ["hunter2hunter2", "line one secret\nline two secret", "p@ss:w/rd+=="]
REDACTOR = Redactor(VALUES)

PIECES = [
    "ghp_" + "A1b2" * 9, "gho_short", "github_pat_" + "x_" * 12, "AIza" + "Q" * 35, "AIza",
    "AKIA" + "ABCDEFGHIJKLMNOP", "ASIA", "xoxb-" + "1234567890ab", "xox", "sk-" + "k" * 24,
    "sk-ant-" + "z" * 20, "eyJhbGciOi.eyJzdWIiOi.sig", "eyJ", "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----", "-----BEGIN", "https://user:pa55word@example.com",
    "git+ssh://bot:tok3n@host/x", "://", "a://b:c@d", "Authorization: Bearer abcdef123456",
    "AUTHORIZATION = 'token zyxwvu987'", "authorization\n:\nbasic QWxhZGRpbjpvcGVu", "Bearer",
    "hunter2hunter2", "hunter2", "line one secret", "line two secret", "p%40ss%3Aw%2Frd%2B%3D%3D",
    base64.b64encode(b"hunter2hunter2").decode(), b"hunter2hunter2".hex(),
    "\n", "\r\n", " ", "@", ":", "/", "'", '"', "=", "_", "-", ".", "ıİſK",
]  # fmt: skip

texts = st.lists(
    st.one_of(st.sampled_from(PIECES), st.text(alphabet="aZ09_-.:/@ \n'\"=+", max_size=8)),
    max_size=30,
).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_prefiltered_redaction_equals_the_full_pattern(text: str) -> None:
    assert REDACTOR.redact(text) == REDACTOR.redact_full(text)


@settings(max_examples=80, deadline=None)
@given(texts)
def test_without_secret_values_the_prefilter_still_equals_the_full_pattern(text: str) -> None:
    plain = Redactor()
    assert plain.redact(text) == plain.redact_full(text)


def test_a_text_without_any_anchor_comes_back_as_the_same_object() -> None:
    text = "def add(a, b):\n    return a + b\n" * 100
    assert REDACTOR.redact(text) is text


def test_a_token_on_one_line_of_a_long_output_is_masked() -> None:
    text = "x = 1\n" * 500 + "url = 'https://bot:hunter2hunter2@h/x'\n" + "y = 2\n" * 500
    out = REDACTOR.redact(text)
    assert "url = 'https://bot:***@h/x'" in out
    assert out.count("\n") == text.count("\n")


JSON_REDACTOR = Redactor(["hunter2hunter2", "p@ss:w/rd+=="])  # no value JSON would escape

objects = st.recursive(
    st.one_of(texts, st.integers(), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(objects)
def test_the_whole_object_prefilter_masks_what_redact_obj_masks(obj: object) -> None:
    for redactor in (JSON_REDACTOR, REDACTOR, Redactor()):  # REDACTOR: a multi-line value
        assert redactor.redact_json(obj) == redactor.redact_obj(obj)


def test_an_object_without_any_anchor_comes_back_unwalked() -> None:
    data = {"type": "tool_call_response", "output": "def add(a, b):\n    return a + b\n"}
    assert JSON_REDACTOR.redact_json(data) is data


def test_a_value_with_a_quote_is_masked_inside_an_object() -> None:
    quoted = Redactor(['pa"ss\\word9'])
    assert quoted.redact_json({"out": ['x pa"ss\\word9 y']}) == {"out": ["x *** y"]}


def test_a_redactor_compiles_its_full_pattern_only_when_redact_full_runs() -> None:
    """Every run and hook makes a redactor; only the reference, redact_full, needs the whole
    pattern (a few milliseconds to compile), so it is not compiled before."""
    plain = Redactor(VALUES)
    before = plain._full
    plain.redact_full("hunter2hunter2")
    assert (before, plain._full is not None) == (None, True)
