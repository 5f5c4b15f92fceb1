"""A user's repository that holds a file whose name is not UTF-8 (bytes a Latin-1 tool wrote):
the agent listing that folder (the first thing a model does) must not end the run
internal_error. (glob, grep_search and ls in run_shell_command show the name with U+FFFD.)"""

from __future__ import annotations

from pathlib import Path

import yaml
from e2e_scenario import jsonl_lines

from agentci.testing.case import write_case


def test_attack_w4_list_directory_of_a_file_name_not_utf8(tmp_path: Path):
    script = [
        {"calls": [{"name": "list_directory", "args": {"dir_path": "."}}]},
        {"calls": [{"name": "write_file", "args": {"file_path": "fixed.txt", "content": "ok\n"}}]},
        {"text": "done"},
    ]
    case = write_case(tmp_path, script, {"verify": {"command": "test -f fixed.txt"}})
    (case.repo / "caf\udce9.txt").write_bytes(b"the user's notes\n")
    run = case.run("-q")
    result = yaml.safe_load((case.out / "result.json").read_text())
    events = jsonl_lines(case.out / "events.jsonl")
    assert (run.code, result["status"]) == (0, "success"), run.stderr[-600:]
    listed = [e for e in events if e["type"] == "tool_call_response"][0]
    assert (listed["name"], listed["ok"]) == ("list_directory", True)
    assert (events[-1]["type"], events[-1]["status"]) == ("run_finished", "success")
    assert "fixed.txt" in (case.out / "patch.diff").read_text()
    assert (case.repo / "caf\udce9.txt").read_bytes() == b"the user's notes\n"
