"""Outsider (rel2 C): an ignored file rewritten in place, same size, mtime put back.

Ignored files were fingerprinted as (size, mtime_ns, inode, mode). An agent that rewrote one in
place with the same length and put its mtime back (``os.utime``) was invisible: the verdict ran
on its copy (exit 0, success, with the fix only in the ignored file) and the guard did not put
the user's ``.env`` back. The fingerprint now holds the ctime too, which no process can set back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentci.testing.case import shell_call, write_call, write_case
from agentci.testing.cli import Run, agentci

pytestmark = pytest.mark.timeout(300)

SAME_STAT = (
    "python3 -c \"import os; p='{f}'; st=os.stat(p); fh=open(p,'r+'); fh.write('{new}'); "
    'fh.close(); os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))"'
)


def _run(
    tmp_path: Path, script: list, config: dict, files: dict, ignored: dict
) -> tuple[Run, Path]:
    case = write_case(tmp_path, script, {"policy": {"mode": "yolo"}, "sandbox": "none", **config},
                      files=files)  # fmt: skip
    for name, text in ignored.items():
        (case.repo / name).write_text(text)
    done = agentci("run", str(case.recipe), "--out", str(case.out), cwd=case.repo, timeout=280)
    return Run(done.returncode, done.stdout, done.stderr, case.out), case.repo


def test_outsider_an_ignored_file_rewritten_with_its_stat_put_back_is_not_the_verdict(
    tmp_path: Path,
) -> None:
    app = "from local_settings import FLAG\n\n\ndef value():\n    return FLAG\n"
    script = [
        shell_call(SAME_STAT.format(f="local_settings.py", new="FLAG = 1")),
        write_call("app.py", "# tidy\n" + app),
        *[{"text": "done"}] * 4,
    ]
    files = {
        ".gitignore": "local_settings.py\n",
        "app.py": app,
        "test_app.py": "from app import value\n\n\ndef test_value():\n    assert value() == 1\n",
    }
    verify = {"command": "python -m pytest -q -p no:cacheprovider", "runner": "pytest",
              "attempts": 1}  # fmt: skip
    run, repo = _run(tmp_path, script, {"verify": verify}, files,
                     {"local_settings.py": "FLAG = 0\n"})  # fmt: skip
    assert (repo / "local_settings.py").read_text() == "FLAG = 1\n"
    assert run.result["ignored_files_written"] == ["local_settings.py"]
    assert run.result["status"] == "verify_failed", run.stderr[-800:]
    assert run.code != 0


def test_outsider_an_ignored_file_rewritten_with_its_stat_put_back_is_restored_by_the_guard(
    tmp_path: Path,
) -> None:
    script = [
        shell_call(SAME_STAT.format(f=".env", new="TOKEN=bbbbbbbb")),
        write_call("app.py", "X = 2\n"),
        *[{"text": "done"}] * 3,
    ]
    run, repo = _run(tmp_path, script, {"guards": {"allowed_paths": ["app.py"]}},
                     {".gitignore": ".env\n", "app.py": "X = 1\n"},
                     {".env": "TOKEN=aaaaaaaa\n"})  # fmt: skip
    assert (repo / ".env").read_text() == "TOKEN=aaaaaaaa\n"
    [guard] = [g for g in run.result["tasks"][0]["extra"]["guards"] if g["name"] == "allowed_paths"]
    assert guard["ignored_restored"] == [".env"]
