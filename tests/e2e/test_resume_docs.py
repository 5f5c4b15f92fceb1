"""docs/resume.md's two commands, run by bash as a user types them, in a copy of the demo."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "resume.md"


def _snippets() -> list[tuple[str, int]]:
    text = DOC.read_text()
    start = text.index("```bash\n", text.index("<!-- resume-snippet")) + len("```bash\n")
    lines = [line for line in text[start : text.index("```", start)].splitlines() if line]
    return [(line, int(re.search(r"# exit (\d+)", line).group(1))) for line in lines]


def test_the_stop_and_resume_commands_of_the_docs_run_as_shown(tmp_path: Path):
    shutil.copytree(ROOT / "examples" / "fix-failing-test", tmp_path / "examples/fix-failing-test")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    lines = _snippets()
    assert [code for _, code in lines] == [3, 0]
    for line, code in lines:
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-c", line],
            cwd=tmp_path,
            env={**os.environ, "PATH": path},
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=300,
        )
        assert done.returncode == code, (line, done.stderr[-2000:])
    result = json.loads((tmp_path / ".agentci/out/result.json").read_text())
    assert (result["status"], result["resumed_from"]) == ("success", ".agentci/out.prev")
    assert result["all_runs"]["turns"] == 6 and result["turns"] == 2
