"""Attack (w5): the pre-commit clean path (agentci/precommit/quick.py) decides whether the run
would load a project context file by looking in the root, "summary/" and the folders of each
staged file. The run looks in the folders of every path-like *word* of the rendered prompt
(agentci.context.memory.named_paths): the file list is shell-quoted there, so a staged file
``x y/m.py`` is the words ``x`` and ``y/m.py``, and ``y/AGENTS.md`` is loaded when ``y/m.py``
exists. The clean path then writes outputs that differ from the whole run's: task_started and
result.json say no context file was loaded."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentci.testing.repo import commit_repo

CLEAN = '"""A module ruff has nothing to say about."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n'
FILES = {
    "x y/m.py": CLEAN,
    "y/m.py": CLEAN,
    "y/AGENTS.md": "Be brief.\n",
    ".gitignore": ".agentci/\n",
}
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "GEMINI_API_KEY": "", "GOOGLE_API_KEY": "", **extra}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # ruff
    for name in ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "OTEL_EXPORTER_OTLP_ENDPOINT"):
        env.pop(name, None)
    return env


def _hook(repo: Path, out: str, quick: str) -> tuple[list[dict], dict]:
    done = subprocess.run(
        [sys.executable, "-m", "agentci", "pre-commit", "--recipe", "fix-lint", "--out", out,
         "--", "x y/m.py"],
        cwd=repo, env=_env(AGENTCI_PRECOMMIT_QUICK=quick), capture_output=True, text=True,
        timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(x) for x in (repo / out / "events.jsonl").read_text().splitlines()]
    return events, json.loads((repo / out / "result.json").read_text())


# CI also runs tests/e2e in small virtualenvs with pytest only: there this test skips.
@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (pip install '.[test]')")
def test_attack_w5_clean_path_reports_the_context_files_the_run_loads(tmp_path: Path) -> None:
    repo = commit_repo(tmp_path / "project", FILES)
    run_events, run_result = _hook(repo, ".agentci/run", "0")
    quick_events, quick_result = _hook(repo, ".agentci/quick", "1")
    run_started = next(e for e in run_events if e["type"] == "task_started")
    quick_started = next(e for e in quick_events if e["type"] == "task_started")
    loaded = [{"path": "y/AGENTS.md", "bytes": 10, "truncated": False}]
    assert run_started["context_files"] == loaded  # the whole run loads it
    assert quick_started["context_files"] == run_started["context_files"]
    assert quick_result["tasks"][0]["context_files"] == run_result["tasks"][0]["context_files"]
