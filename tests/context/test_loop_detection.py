"""The loop detectors on their own: tool-call cycles and chanting text."""

from __future__ import annotations

import random

from agentci.context.content_loops import ContentLoops
from agentci.context.loop_detection import LoopDetector
from agentci.context.tool_cycles import ToolCycles, call_key
from agentci.providers.base import ToolCallPart
from agentci.recipe.loops import LoopDetection
from agentci.tools.registry import default_tools

TOOLS = default_tools()


def tc(name: str, **args: object) -> ToolCallPart:
    return ToolCallPart(id="x", name=name, args=dict(args))


def key(call: ToolCallPart) -> str:
    """The call's key, with what its (real) tool says it touches."""
    tool = TOOLS[call.name]
    return call_key(call, tool.accesses(tool.Args.model_validate(call.args)))


def first_hit(detector: ToolCycles, calls: list[ToolCallPart]) -> int | None:
    """The 1-based number of the call that completed a loop, or None."""
    for n, c in enumerate(calls, 1):
        if detector.observe(c) is not None:
            return n
    return None


def test_a_cycle_of_k_calls_is_caught_at_its_fifth_round():
    for k in range(1, 6):
        cycle = [tc("read_file", file_path=f"f{i}.py") for i in range(k)]
        assert first_hit(ToolCycles(), cycle * 6) == 5 * k, k


def test_a_cycle_of_six_calls_is_longer_than_the_detector_looks():
    cycle = [tc("read_file", file_path=f"f{i}.py") for i in range(6)]
    assert first_hit(ToolCycles(), cycle * 10) is None


def test_cosmetic_arguments_and_spelling_do_not_make_calls_different():
    a = tc("run_shell_command", command="pytest -q", description="run the tests")
    b = tc("run_shell_command", command=" pytest -q ", description="again")
    assert key(a) == key(b)
    assert key(tc("read_file", file_path="src/./a.py")) == key(
        tc("read_file", file_path="src/a.py")
    )
    assert key(tc("grep_search", pattern="x", dir_path=".")) == key(
        tc("grep_search", dir_path=".", pattern="x")
    )


def test_what_a_call_does_still_makes_calls_different():
    assert key(tc("run_shell_command", command="pytest -q")) != key(
        tc("run_shell_command", command="pytest -x")
    )
    assert call_key(tc("read_file", file_path="a.py")) != call_key(tc("glob", file_path="a.py"))
    assert key(tc("write_file", file_path="a.py", content="x ")) == key(
        tc("write_file", file_path="a.py", content="x")
    )  # stripped: trailing blanks are not a new attempt


def test_the_count_starts_again_after_a_detection():
    detector = LoopDetector()
    same = [tc("list_directory", dir_path=".")]
    hits = [detector.observe(same) is not None for _ in range(10)]
    assert hits == [False] * 4 + [True] + [False] * 4 + [True]


def test_the_tool_call_layer_can_be_turned_off():
    detector = LoopDetector(LoopDetection(tool_calls=False))
    assert all(detector.observe([tc("glob", pattern="*")]) is None for _ in range(20))


# -- content ----------------------------------------------------------------------------


def stream(text: str, seed: int = 7) -> list[str]:
    """``text`` cut into chunks of 1 to 40 characters, as a model streams it."""
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, 40)
        out.append(text[i : i + n])
        i += n
    return out


def feed_all(text: str) -> tuple[str | None, int]:
    """What the detector said, and how many characters it had read by then."""
    detector = ContentLoops()
    read = 0
    for piece in stream(text):
        read += len(piece)
        found = detector.feed(piece)
        if found is not None:
            return found, read
    return None, read


CHANT = "I will now run the tests again to see whether they pass. "


def test_chanting_prose_is_caught_before_the_window_is_full():
    found, read = feed_all("Let me think about this.\n" + CHANT * 100)
    assert found is not None and "run the tests again" in found
    assert read < 1_000  # ten repeats of a 57-character sentence, give or take a chunk


def test_a_long_markdown_table_with_identical_rows_is_not_a_loop():
    table = "| test | status |\n|---|---|\n" + "| test_add | passed |\n" * 300
    assert feed_all("Results:\n\n" + table + "\nAll good.\n")[0] is None


def test_a_code_block_with_repeated_lines_is_not_a_loop():
    code = "```python\n" + "    assert add(1, 2) == 3  # the same check again\n" * 200 + "```\n"
    text = "Here is the test file:\n\n" + code + "That is all.\n"
    assert feed_all(text)[0] is None


def test_lists_headings_and_quotes_are_not_loops():
    text = "".join(
        [
            "- retry the download and check the checksum again\n" * 60,
            "1. retry the download and check the checksum again\n" * 60,
            "## retry the download and check the checksum again\n" * 60,
            "> retry the download and check the checksum again\n" * 60,
            "-" * 3000 + "\n",
        ]
    )
    assert feed_all(text)[0] is None


def test_distinct_items_with_a_shared_prefix_are_not_a_loop():
    text = "".join(f"Checked module number {n:03d} of the package: fine. " for n in range(120))
    assert feed_all(text)[0] is None


def test_prose_after_a_code_block_is_watched_again():
    text = "```\n" + "x = 1\n" * 50 + "```\n" + CHANT * 30
    assert feed_all(text)[0] is not None


def test_a_fence_split_across_chunks_still_opens_the_block():
    detector = ContentLoops()
    pieces = [
        "Here:\n`",
        "``",
        "\n",
        *(["same line of code that repeats itself, again and again\n"] * 80),
    ]
    assert [detector.feed(p) for p in pieces] == [None] * len(pieces)
