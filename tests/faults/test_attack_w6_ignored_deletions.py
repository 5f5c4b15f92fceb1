"""Attack (w6): the agent deletes the user's ignored files.

A plain run reported nothing (exit 0, ``ignored_files_written: []``, no warning) and the files
were gone. Under ``guards.allowed_paths`` (pre-commit mode) an ignored file too large for the
baseline's copy (over 4 MB) was deleted, not put back and not reported. Deleted ignored files
are now reported (``ignored_files_deleted``, a ``warning``, summary.md), and one the guard
cannot put back fails it, named in ``ignored_lost``."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentci.testing.case import shell_call, write_call, write_case
from agentci.testing.cli import Run, agentci

pytestmark = pytest.mark.timeout(180)

BIG = 5 * 1024 * 1024  # over the 4 MB the baseline keeps a copy of


def _run(tmp_path: Path, guards: dict | None) -> tuple[Run, Path]:
    script = [shell_call("rm .env big.bin"), write_call("a.txt", "b\n"), {"text": "done"}]
    config: dict = {"policy": {"mode": "yolo"}}
    if guards:
        config["guards"] = guards
    case = write_case(tmp_path, script, config,
                      files={".gitignore": ".env\n*.bin\n", "a.txt": "a\n"})  # fmt: skip
    (case.repo / ".env").write_text("SECRET_OF_THE_USER=1\n")
    (case.repo / "big.bin").write_bytes(b"\0" * BIG)
    done = agentci("run", str(case.recipe), "--out", str(case.out), cwd=case.repo)
    return Run(done.returncode, done.stdout, done.stderr, case.out), case.repo


def test_attack_w6_deleted_ignored_files_are_reported(tmp_path: Path) -> None:
    run, repo = _run(tmp_path, None)
    assert not (repo / ".env").exists()  # yolo: the agent may; the outputs must say so
    assert run.result["status"] == "success", run.stderr[-800:]
    assert run.result["ignored_files_deleted"] == [".env", "big.bin"]
    assert run.result["tasks"][0]["extra"]["patch"]["ignored_deleted"] == [".env", "big.bin"]
    warnings = [e.message for e in run.events if getattr(e, "kind", "") == "ignored_files_written"]
    assert warnings == [
        "2 file(s) that .gitignore ignores were deleted during the run (not in the patch, not "
        "restored): .env, big.bin"
    ]
    summary = (run.out / "summary.md").read_text()
    assert "2 file(s) that .gitignore ignores were deleted (not in the patch, not restored)" in (
        summary
    )


def test_attack_w6_an_ignored_file_the_guard_cannot_put_back_fails_it(tmp_path: Path) -> None:
    run, repo = _run(tmp_path, {"allowed_paths": ["a.txt"]})
    assert (repo / ".env").read_text() == "SECRET_OF_THE_USER=1\n"  # a copy was kept
    assert not (repo / "big.bin").exists()  # none was: gone for good
    [guard] = [g for g in run.result["tasks"][0]["extra"]["guards"] if g["name"] == "allowed_paths"]
    assert guard["passed"] is False
    assert guard["ignored_restored"] == [".env"]
    assert guard["ignored_lost"] == ["big.bin"]
    assert "could not be put back" in guard["message"]
    assert run.result["status"] != "success"
    assert run.code != 0
