"""The console of a batch: in GitHub Actions each task's lines come in one ``::group::`` when
it ends, never interleaved; elsewhere every line names its task."""

from __future__ import annotations

import io

from agentci.batch.progress import Board
from agentci.events import types as ev


def started(task: str) -> ev.RunStarted:
    return ev.RunStarted(recipe="r.yaml", recipe_name="r", tasks=[task], agentci_version="0")


def finished(status: str, code: int) -> ev.RunFinished:
    return ev.RunFinished(status=status, exit_code=code)


def call(name: str) -> ev.ToolCallRequest:
    return ev.ToolCallRequest(call_id="c1", name=name, args={"file_path": "a.py"})


def feed(board: Board) -> None:
    a, b = board.sink("r/a"), board.sink("r/b")
    a.write(started("a"))
    b.write(started("b"))
    a.write(call("read_file"))
    b.write(call("write_file"))
    b.write(finished("success", 0))
    a.write(call("replace"))
    a.write(finished("verify_failed", 1))


def test_in_github_actions_each_task_is_one_group_written_when_it_ends():
    out = io.StringIO()
    feed(Board(["r/a", "r/b"], mode="github", sanitize=str, stream=out))
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["agentci: [r/a] started", "agentci: [r/b] started"]
    b_start = lines.index("::group::r/b: success (exit 0)")
    a_start = lines.index("::group::r/a: verify_failed (exit 1)")
    b_group = lines[b_start + 1 : lines.index("::endgroup::", b_start)]
    a_group = lines[a_start + 1 : lines.index("::endgroup::", a_start)]
    assert b_start < a_start
    assert any("write_file" in line for line in b_group)
    assert not any("read_file" in line or "replace" in line for line in b_group)
    assert [("read_file" in x, "replace" in x) for x in a_group if "→" in x] == [
        (True, False), (False, True),
    ]  # fmt: skip


def test_elsewhere_every_line_names_its_task_as_it_happens():
    out = io.StringIO()
    feed(Board(["r/a", "r/b"], mode="plain", sanitize=str, stream=out))
    lines = out.getvalue().splitlines()
    assert lines and all(line.startswith(("[r/a] ", "[r/b] ")) for line in lines)
    order = [line.split("]")[0][1:] for line in lines if "→" in line]
    assert order == ["r/a", "r/b", "r/a"]  # as the calls came


def test_a_task_cannot_issue_workflow_commands_through_its_lines():
    out = io.StringIO()
    board = Board(["r/a"], mode="github", sanitize=str, stream=out)
    sink = board.sink("r/a")
    sink.write(started("a"))
    sink.write(ev.Content(text="::endgroup::\n::error::owned"))
    sink.write(finished("success", 0))
    lines = out.getvalue().splitlines()
    assert lines.count("::endgroup::") == 1 and not any(x.startswith("::error") for x in lines)
