"""A checkout in a folder whose name is not UTF-8 (made by a Latin-1 tool): a plain run ends
success with its outputs, not internal_error at run_started (the same surrogates-in-events
defect as test_attack_w4_list_non_utf8 and test_attack_w4_non_utf8_name)."""

from __future__ import annotations

from pathlib import Path

import yaml
from e2e_scenario import jsonl_lines

from agentci.testing.case import write_case


def test_attack_w4_workspace_folder_name_not_utf8(tmp_path: Path):
    script = [
        {"calls": [{"name": "write_file", "args": {"file_path": "fixed.txt", "content": "ok\n"}}]},
        {"text": "done"},
    ]
    case = write_case(tmp_path / "caf\udce9", script, {"verify": {"command": "test -f fixed.txt"}})
    run = case.run("-q")
    result = yaml.safe_load((case.out / "result.json").read_text())
    last = jsonl_lines(case.out / "events.jsonl")[-1]
    outcome = (run.code, result["status"], last["type"])
    assert outcome == (0, "success", "run_finished"), run.stderr[-800:]
    assert "fixed.txt" in (case.out / "patch.diff").read_text()
