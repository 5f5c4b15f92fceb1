"""A run with a live model loads report.html's renderer while it waits for the model
(run/runner.py, ``_warm_up``); the page its writer makes from it is the full page."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tool_harness import init_repo

from agentci.testing.fake_gemini import FakeGemini

ANSWER = "The fix is in `calc.py`:\n\n- **add** returned `a - b`\n- it returns `a + b` now\n"


def test_a_live_run_writes_the_page_with_the_answer_rendered(tmp_path: Path):
    ws = init_repo(tmp_path / "ws", {"calc.py": "def add(a, b):\n    return a - b\n"})
    with FakeGemini([{"text": ANSWER}]) as fake:
        done = subprocess.run(
            [sys.executable, "-m", "agentci", "run", "--prompt", "Explain calc.py", "-q"],
            cwd=ws, env={**os.environ, **fake.env()}, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page = (ws / ".agentci/out/report.html").read_text()
    assert (
        "<ul>\n<li><strong>add</strong> returned <code>a - b</code></li>\n"
        "<li>it returns <code>a + b</code> now</li>\n</ul>"
    ) in page
    assert "The full report could not be written" not in page
