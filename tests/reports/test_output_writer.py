"""write_outputs: every file, redacted, never raising; prepare_out_dir."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from junitparser import JUnitXml
from outputs_fixtures import run, task, verify

from agentci.change.patch import capture_baseline, diff_since
from agentci.errors import InvalidInput
from agentci.outcome import Status
from agentci.reports.outdir import MARKER, prepare_out_dir
from agentci.reports.redact import Redactor
from agentci.reports.writer import write_outputs

CANARY = "canary-secret-4242-xyz"


def all_text(out: Path) -> str:
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in out.rglob("*") if p.is_file()
    )


def test_single_task_outputs_redacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "step.md"))
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("print('hi')\n")
    base = capture_baseline(ws)
    (ws / "app.py").write_text(f"TOKEN = '{CANARY}'\nprint('hi')\n")
    patch = diff_since(base)
    assert CANARY in patch

    redactor = Redactor.from_environ(environ={"MY_API_KEY": CANARY})
    t = task(
        summary=f"I put {CANARY} in app.py; also ghp_{'A' * 36}", reason=CANARY,
        changed_files=["app.py"],
        verify=[verify(False, [(f"t::{CANARY}", "failed", f"leaked {CANARY}")])],
        extra={"note": CANARY},
    )  # fmt: skip
    out = tmp_path / "out"
    write_outputs(out, run(t), {"main": patch}, redactor)

    names = sorted(p.name for p in out.iterdir())
    assert names == ["junit.xml", "patch.diff", "report.html", "result.json", "summary.md"]
    text = all_text(out) + (tmp_path / "step.md").read_text()
    assert CANARY not in text and "ghp_AAAA" not in text
    assert "***" in (out / "patch.diff").read_text()
    assert json.loads((out / "result.json").read_text())["reason"] == "***"
    JUnitXml.fromfile(str(out / "junit.xml"))
    assert not [p for p in out.rglob(".*") if p.is_file()]  # no temp files left


def test_patch_bytes_survive_writer(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "l.txt").write_bytes(b"caf\xe9\r\n")
    before = tmp_path / "before"
    subprocess.run(["cp", "-r", str(ws), str(before)], check=True)
    base = capture_baseline(ws)
    (ws / "l.txt").write_bytes(b"caf\xe9 au lait\r\n")
    (ws / "b.bin").write_bytes(bytes(range(256)))
    write_outputs(tmp_path / "out", run(task()), {"main": diff_since(base)}, Redactor())
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "apply", str(tmp_path / "out" / "patch.diff")], cwd=before,
                   check=True, env=env)  # fmt: skip
    assert (before / "l.txt").read_bytes() == b"caf\xe9 au lait\r\n"
    assert (before / "b.bin").read_bytes() == bytes(range(256))


def test_several_tasks_get_own_patches(tmp_path: Path) -> None:
    a, b = task("unit"), task("lint/../x", Status.verify_failed, 1)
    out = tmp_path / "out"
    write_outputs(out, run(a, b), {"unit": "diff a\n"}, Redactor())
    assert (out / "tasks" / "unit" / "patch.diff").read_text() == "diff a\n"
    folder = "_lint_.._x-" + hashlib.sha256(b"lint/../x").hexdigest()[:8]  # made safe, unique
    assert (out / "tasks" / folder / "patch.diff").read_text() == ""
    assert not (out / "patch.diff").exists()
    suites = [s.name for s in JUnitXml.fromfile(str(out / "junit.xml"))]
    assert suites == ["fix-tests/unit", "fix-tests/lint/../x"]


def test_secret_that_looks_like_markup_keeps_files_valid(tmp_path: Path) -> None:
    redactor = Redactor(["testsuite", "exit_code"])
    out = tmp_path / "out"
    write_outputs(out, run(task(summary="testsuite exit_code")), {}, redactor)
    JUnitXml.fromfile(str(out / "junit.xml"))
    data = json.loads((out / "result.json").read_text())
    assert data["summary"] == "*** ***"
    assert (out / "patch.diff").read_text() == ""


def test_never_raises_on_odd_content(tmp_path: Path) -> None:
    t = task(summary="\x00\ud800\x1b", extra={"obj": object()})
    t.verify = [verify(False, [("\x00", "failed", "\ud800")])]
    out = tmp_path / "out"
    write_outputs(out, run(t), {"main": "\ud800 lone surrogate"}, Redactor())
    assert (out / "result.json").exists() and (out / "junit.xml").exists()
    json.loads((out / "result.json").read_text(errors="replace"))
    JUnitXml.fromfile(str(out / "junit.xml"))


def test_out_dir_unwritable_does_not_raise_and_names_what_failed(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    failed = write_outputs(blocker / "out", run(task()), {}, Redactor())  # no mkdir under a file
    assert [f.split(":")[0].rsplit("/", 1)[-1] for f in failed] == [
        "patch.diff", "junit.xml", "result.json", "summary.md", "report.html",
    ]  # fmt: skip


def test_a_run_whose_outputs_cannot_be_written_ends_internal_error(tmp_path: Path) -> None:
    from agentci.events import types as ev
    from agentci.events.sinks import Emitter
    from agentci.run.run_end import finish_run

    class Collect:
        def __init__(self) -> None:
            self.events: list[ev.Event] = []

        def write(self, event: ev.Event) -> None:
            self.events.append(event)

        def close(self) -> None:
            pass

    blocker = tmp_path / "file"
    blocker.write_text("x")
    sink = Collect()
    report = run(task())
    finish_run(
        report, {}, out_dir=blocker / "out", emitter=Emitter("r", [sink]), redactor=Redactor()
    )
    last = sink.events[-1]
    assert isinstance(last, ev.RunFinished)
    assert (last.status, last.exit_code) == ("internal_error", 70)
    assert last.reason.startswith("writing outputs failed: ")
    assert (report.status.value, report.exit_code) == ("internal_error", 70)


def test_prepare_out_dir_moves_old_run_aside(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / ".agentci" / "out"
    first = prepare_out_dir(out)
    assert first == out.resolve() and (out / MARKER).exists()
    (out / "events.jsonl").write_text('{"seq":1}\n')
    (out / ".result.json.tmp-99-abcd").write_text("half")
    prepare_out_dir(out)
    prev = out.with_name("out.prev")
    assert (prev / "events.jsonl").exists() and not (prev / ".result.json.tmp-99-abcd").exists()
    assert sorted(p.name for p in out.iterdir()) == [MARKER, ".gitignore"]
    (out / "events.jsonl").write_text("second\n")
    prepare_out_dir(out)  # replaces the older .prev
    assert (prev / "events.jsonl").read_text() == "second\n"


def test_prepare_out_dir_refuses_foreign_folders(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "main.py").write_text("x")
    with pytest.raises(InvalidInput, match="is not an agentci output folder"):
        prepare_out_dir(proj)
    assert (proj / "main.py").exists()
    with pytest.raises(InvalidInput):
        prepare_out_dir(tmp_path)  # the current directory
    (tmp_path / "f").write_text("x")
    with pytest.raises(InvalidInput, match="not a folder"):
        prepare_out_dir(tmp_path / "f")


def test_a_patch_that_cannot_be_written_is_never_reported_as_success(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "patch.diff").mkdir(parents=True)  # the patch cannot take its place
    failed = write_outputs(out, run(task()), {"unit": "diff a\n"}, Redactor())
    assert len(failed) == 1 and failed[0].startswith(f"{out / 'patch.diff'}: ")
    data = json.loads((out / "result.json").read_text())
    assert (data["status"], data["exit_code"]) == ("internal_error", 70)
    assert data["reason"] == "writing outputs failed: " + failed[0]
    assert "status `internal_error`, exit code 70" in (out / "summary.md").read_text()
