"""Attack (w5): the pre-commit hook's clean path (agentci/precommit/quick.py,
clean_outputs.py) on a full output disk.

The whole run ends internal_error (exit 70) without a traceback when its output folder fills
up (tests/e2e/test_full_disk_run.py). The clean path writes the outputs by hand with
write_bytes_atomic and does not catch OSError: the hook dies with a traceback and exit 1 (which
for the hook means "files were changed or could not be fixed"), after result.json and summary.md
already say "success, exit 0" while events.jsonl was never written."""

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
FILES = {"pkg/clean.py": CLEAN, ".gitignore": ".agentci/\n"}


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "GEMINI_API_KEY": "", "GOOGLE_API_KEY": "", **extra}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # ruff
    for name in ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "OTEL_EXPORTER_OTLP_ENDPOINT"):
        env.pop(name, None)
    return env


def _hook(repo: Path, out: Path, quick: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentci", "pre-commit", "--recipe", "fix-lint", "--out", str(out),
         "--", "pkg/clean.py"],
        cwd=repo, env=_env(AGENTCI_PRECOMMIT_QUICK=quick), capture_output=True, text=True,
        timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _full_disk_run(
    tmp_path: Path, repo: Path, quick: str, size: str = "20k"
) -> tuple[int, str, list[str], dict | None]:
    disk = tmp_path / f"disk{quick}"
    disk.mkdir()
    # five pages: the folder's marker and .gitignore, junit.xml, result.json, summary.md
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)], check=True)
    try:
        done = _hook(repo, disk / "out", quick)
        out = disk / "out"
        result_file = out / "result.json"
        result = json.loads(result_file.read_text()) if result_file.is_file() else None
        names = sorted(p.name for p in out.iterdir())
    finally:
        subprocess.run(["umount", str(disk)], check=True)
    return done.returncode, done.stderr, names, result


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
def test_attack_w5_clean_path_on_a_full_disk_ends_as_the_whole_run(tmp_path: Path) -> None:
    repo = commit_repo(tmp_path / "project", FILES)
    code, stderr, names, result = _full_disk_run(tmp_path, repo, "1")
    assert "Traceback" not in stderr, stderr[-1500:]
    assert code == 70, stderr[-1500:]  # as the whole run on the same disk
    if result is not None:  # what it says is not a success it could not record
        assert (result["status"], result["exit_code"]) == ("internal_error", 70)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
def test_attack_w5_clean_path_never_leaves_a_success_result_without_its_events(
    tmp_path: Path,
) -> None:
    repo = commit_repo(tmp_path / "project", FILES)
    code, stderr, names, result = _full_disk_run(tmp_path, repo, "1")
    if result is not None and result["status"] == "success":
        assert "events.jsonl" in names, (names, stderr[-800:])


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
def test_attack_w5_the_whole_run_on_the_same_full_disk_ends_70(tmp_path: Path) -> None:
    """The reference: AGENTCI_PRECOMMIT_QUICK=0 on the same disk (passes on main)."""
    repo = commit_repo(tmp_path / "project", FILES)
    code, stderr, _, _ = _full_disk_run(tmp_path, repo, "0")
    assert code == 70, stderr[-1500:]
    assert "Traceback" not in stderr


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
def test_a_disk_without_room_for_the_first_event_ends_70_without_a_traceback(
    tmp_path: Path,
) -> None:
    """Three pages: the folder's marker and .gitignore, and no room for run_started's line.
    A known stop (events.jsonl unwritable), not a bug in agentci: no traceback."""
    repo = commit_repo(tmp_path / "project", FILES)
    code, stderr, _, result = _full_disk_run(tmp_path, repo, "0", size="12k")
    assert code == 70, stderr[-1500:]
    assert "Traceback" not in stderr, stderr[-1500:]
    assert "events.jsonl could not be written (No space left on device)" in stderr
    if result is not None:
        assert (result["status"], result["exit_code"]) == ("internal_error", 70)
