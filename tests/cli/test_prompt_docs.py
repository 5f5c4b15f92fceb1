"""docs/prompts.md's one-liners, each run by bash as a user types it, against the fake Gemini
server: the answer on stdout, piped text in the prompt, --allow and --verify as allow rules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentci.testing.fake_gemini import FakeGemini
from agentci.testing.repo import commit_repo

DOC = Path(__file__).parents[2] / "docs" / "prompts.md"

TURNS = [
    {"text": "add() subtracts."},
    {"function_calls": [{"name": "replace", "args": {
        "file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}]},
    {"text": "Fixed add()."},
    {"text": "add() adds now."},
    {"function_calls": [{"name": "run_shell_command", "args": {"command": "git log --oneline"}}]},
    {"text": "One commit."},
    {"function_calls": [{"name": "submit_result", "args": {"verdict": "fixes add()"}}]},
]  # fmt: skip


def _snippets() -> list[str]:
    text = DOC.read_text()
    start = text.index("```bash\n", text.index("<!-- prompt-snippets")) + len("```bash\n")
    return [line for line in text[start : text.index("```", start)].splitlines() if line]


@pytest.mark.timeout(300)  # five agentci runs and three pytest runs, one after another
def test_every_one_liner_of_the_docs_runs_as_shown(tmp_path: Path):
    repo = commit_repo(
        tmp_path / "repo",
        {
            "calc.py": "def add(a, b):\n    return a - b\n",
            "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n"
            "    assert add(2, 3) == 5\n",
            "review.json": json.dumps(
                {
                    "type": "object",
                    "properties": {"verdict": {"type": "string"}},
                    "required": ["verdict"],
                }  # fmt: skip
            ),
        },
    )
    lines = _snippets()
    assert len(lines) == 5
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    stdouts = []
    with FakeGemini(TURNS) as fake:
        for line in lines:
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-c", line],
                cwd=repo,
                env={**os.environ, **fake.env(), "PATH": path, "PYTHONPATH": ""},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, f"{line}\n{done.stderr}"
            stdouts.append(done.stdout)
        prompts = [r.contents[0]["parts"][-1]["text"] for r in fake.generate_requests]
    assert stdouts[:3] == ["add() subtracts.\n", "Fixed add().\n", "add() adds now.\n"]
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert prompts[3].startswith("Why did this pass?\n\n") and "1 passed" in prompts[3]
    assert (stdouts[3], (repo / "answer.txt").read_text()) == ("", "One commit.\n")
    assert "-    return a - b" in prompts[6]  # the diff was the prompt
    assert json.loads(stdouts[4]) == {"verdict": "fixes add()"}
