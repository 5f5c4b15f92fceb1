"""A benchmark session whose tool call was denied or failed stops with the reason, instead of
timing the denial (``bench.bench_vs_gemini_cli.session_run``, which every session scenario of
``python -m bench`` runs)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agentci.testing.fake_gemini import FakeGemini  # noqa: E402
from bench.bench_vs_gemini_cli import (  # noqa: E402
    Watcher,
    base_env,
    find_agentci,
    gemini_home,
    session_run,
    write_recipe,
)
from bench.sessions import commit_repo  # noqa: E402


def _run_agentci(tmp_path: Path, calls: list[dict]) -> None:
    repo = commit_repo(tmp_path / "repo", {"README.md": "hi\n"})
    turns = [{"function_calls": calls}, {"text": "Done."}]
    with FakeGemini() as fake, Watcher(fake).running() as watcher:
        home = gemini_home(tmp_path / "home")
        recipe = write_recipe(home / "recipe.yaml", repo, home / "out", len(turns))
        session_run(
            "agentci", find_agentci() + ["run", str(recipe)], env=base_env(fake, home),
            repo=repo, fake=fake, watcher=watcher, turns=turns,
        )  # fmt: skip


def test_a_denied_shell_call_stops_the_benchmark_with_the_policy_reason(tmp_path: Path) -> None:
    calls = [
        {"name": "run_shell_command", "args": {"command": "cat README.md"}},
        {"name": "run_shell_command", "args": {"command": "python3 -c 'print(1)'"}},
    ]
    with pytest.raises(SystemExit) as stopped:
        _run_agentci(tmp_path, calls)
    message = str(stopped.value)
    assert message.startswith("agentci: the run does not match the script: request 2: ")
    assert "run_shell_command failed: denied by policy" in message
    assert message.count("failed:") == 1  # the `cat` went through
