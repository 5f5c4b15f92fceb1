"""Loop detection counts identical consecutive tool calls."""

from __future__ import annotations

from agentci.context.loop_detection import LoopDetector
from agentci.providers.base import ToolCallPart


def ls(path: str = ".") -> ToolCallPart:
    return ToolCallPart(id="x", name="list_directory", args={"dir_path": path})


def test_the_same_call_five_times_in_a_row_is_a_loop():
    detector = LoopDetector(threshold=5)
    seen = [detector.observe([ls()]) for _ in range(5)]
    assert seen[:4] == [None] * 4
    assert seen[4] == "list_directory called 5 times in a row with the same arguments"


def test_different_arguments_break_the_run():
    detector = LoopDetector(threshold=3)
    assert [detector.observe([ls(p)]) for p in (".", ".", "src", ".", ".")] == [None] * 5


def test_argument_order_does_not_matter():
    detector = LoopDetector(threshold=2)
    a = ToolCallPart(id="1", name="grep_search", args={"pattern": "x", "dir_path": "."})
    b = ToolCallPart(id="2", name="grep_search", args={"dir_path": ".", "pattern": "x"})
    assert detector.observe([a]) is None
    assert detector.observe([b]) is not None


def test_the_count_starts_again_after_a_detection():
    detector = LoopDetector(threshold=2)
    assert [detector.observe([ls()]) is not None for _ in range(4)] == [False, True, False, True]
