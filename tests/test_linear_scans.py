"""Text from the prompt, the model and the repository meets regular expressions in a few places.
Each of those scans is linear: a hostile input of hundreds of thousands of characters is handled
at once, where a backtracking pattern stalled the run (and a SIGTERM) for minutes.

The inputs are large enough that the old quadratic patterns took many minutes; the timeout
only stops a regression from hanging the suite, no test measures time."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentci.context.loop_judge import Verdict, parse_verdict
from agentci.context.named_folders import named_paths
from agentci.policy.gitconfig import sanitise
from agentci.verify.locations import Location, find_locations
from agentci.verify.run import VerifyRun

BIG = 400_000

pytestmark = pytest.mark.timeout(90)


def test_a_prompt_with_a_huge_word_still_names_its_paths():
    prompt = "Fix " + "a" * BIG + " in src/app.py and ./docs/x.md."
    assert named_paths(prompt) == ["src/app.py", "docs/x.md"]


def test_path_words_are_whole_runs_of_path_characters():
    assert named_paths("see `src/a-b@1.py`, .github/ and v1.2 or x") == [
        "src/a-b@1.py",
        ".github/",
        "v1.2",
    ]


def test_a_judge_answer_of_open_braces_is_no_verdict():
    assert parse_verdict("{" * BIG) is None


def test_a_judge_answer_nested_too_deep_is_no_verdict():
    assert parse_verdict('{"analysis": ' + "[" * BIG + "]" * BIG + "}") is None


def test_a_judge_verdict_is_read_between_the_first_and_last_brace():
    text = 'Here: ```json\n{"analysis": "same {edit}", "confidence": 0.9}\n```'
    assert parse_verdict(text) == Verdict(analysis="same {edit}", confidence=0.9)


def test_a_git_config_line_of_a_huge_dotted_word_is_kept():
    line = "a." * BIG + "\n"
    assert sanitise(line) == (line, [])


def test_a_url_with_credentials_after_a_dotted_word_is_still_masked():
    text = '[remote "o"]\n\turl = x.https://user:tok@example.com/r.git\n'
    masked, found = sanitise(text)
    assert masked == '[remote "o"]\n\turl = x.https://***@example.com/r.git\n'
    assert found == ["remote.o (a URL with credentials)"]


def test_a_verify_message_with_a_huge_run_of_spaces_is_read(tmp_path: Path):
    (tmp_path / "app.py").write_text("x = 1\n")
    output = "app.py:1: error: bad" + " " * BIG + "value  [assignment]\n"
    run = VerifyRun("mypy .", 1, False, output, 1)
    [loc] = find_locations(run, tmp_path)
    assert (loc.file, loc.line, loc.rule, loc.tool) == ("app.py", 1, "assignment", "mypy")
    assert loc.message.startswith("bad") and loc.message.endswith("value")


def test_a_mypy_code_after_spaces_is_the_rule(tmp_path: Path):
    (tmp_path / "app.py").write_text("x = 1\n")
    output = "app.py:1: error: Incompatible types  [assignment]\n"
    run = VerifyRun("mypy .", 1, False, output, 1)
    assert find_locations(run, tmp_path) == [
        Location("app.py", 1, "Incompatible types", rule="assignment", tool="mypy")
    ]
