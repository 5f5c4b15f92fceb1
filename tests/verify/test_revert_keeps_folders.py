"""A guard's revert of a file the agent added never deletes the user's folders: an empty
``uploads/`` the user had (git does not track it) is still there after the run."""

from __future__ import annotations

from pathlib import Path

from agentci.testing.case import tool_call, write_case


def test_a_guard_revert_keeps_the_users_empty_folders(tmp_path: Path) -> None:
    case = write_case(
        tmp_path,
        [
            tool_call("write_file", file_path="uploads/note.txt", content="x\n"),
            tool_call("write_file", file_path="var/run/pid", content="1\n"),
            tool_call("write_file", file_path="a.py", content="A = 1\n"),
            {"text": "done"},
        ],
        {"sandbox": "none", "guards": {"allowed_paths": ["a.py"]}},
        files={"a.py": "A = 0\n"},
    )
    (case.repo / "uploads").mkdir()
    (case.repo / "var" / "run").mkdir(parents=True)
    run = case.run()
    (guard,) = run.result["tasks"][0]["extra"]["guards"]
    assert guard["reverted"] == ["uploads/note.txt", "var/run/pid"]
    assert not (case.repo / "uploads" / "note.txt").exists()
    assert not (case.repo / "var" / "run" / "pid").exists()
    assert (case.repo / "uploads").is_dir() and (case.repo / "var" / "run").is_dir()
