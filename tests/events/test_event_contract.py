"""The JSONL contract is the event union itself, checked against a stored snapshot.

``tests/events/event_contract.json`` is the union as data (every ``type``, its fields, their
types and defaults, the warning kinds). ``python -m agentci.reference`` regenerates it with the
docs; a changed event whose snapshot was not regenerated fails here, so every change to the
contract shows in review. Warnings are ``warning`` events with a ``kind`` from a closed list.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Literal, get_args

import pytest
from pydantic import ValidationError

from agentci import reference
from agentci.events import types as ev
from agentci.events.console import ConsoleSink
from agentci.events.read import parse_line
from agentci.events.sinks import Emitter, JsonlSink

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / reference.CONTRACT
REGENERATE = "the event contract changed: run `python -m agentci.reference` and commit the result"


def _stored() -> dict:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def test_the_union_is_the_stored_contract():
    assert reference.event_contract() == _stored(), REGENERATE


def test_the_contract_lists_every_member_of_the_union_in_its_order():
    members = [m.model_fields["type"].default for m in get_args(get_args(ev.Event)[0])]
    assert list(_stored()["events"]) == members == list(ev.EVENT_TYPES)


def test_the_warning_kinds_are_the_contracts_literal_values():
    assert _stored()["events"]["warning"]["kind"] == {
        "one_of": list(ev.WARNING_KINDS),
        "required": True,
    }


def test_a_field_added_to_an_event_is_a_different_contract():
    class Content(ev.Content):  # an event as someone might change it: one more field
        lang: str = ""

    models = [Content if m is ev.Content else m for m in reference.event_models()]
    changed = reference.event_contract(models)
    assert changed != _stored()
    assert changed["events"]["content"]["lang"] == {"type": "string", "default": ""}


def test_a_new_warning_kind_is_a_different_contract():
    class Warned(ev.WarningEvent):
        kind: Literal["sandbox_unavailable", "disk_nearly_full"]  # type: ignore[assignment]

    models = [Warned if m is ev.WarningEvent else m for m in reference.event_models()]
    kinds = reference.event_contract(models)["events"]["warning"]["kind"]["one_of"]
    assert kinds == ["sandbox_unavailable", "disk_nearly_full"]


def _checkout_copy(tmp_path: Path) -> Path:
    for rel in ("docs/outputs.md", "docs/tools.md", str(reference.CONTRACT)):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    # report.html's compiled template, where a checkout keeps it (the agentci this test imports
    # may be an installed copy: CI's virtualenv lives inside the checkout, under .ci/venv)
    compiled = reference.COMPILED.relative_to(reference.ROOT)
    shutil.copytree(ROOT / compiled, tmp_path / compiled, ignore=shutil.ignore_patterns("*.pyc"))
    return tmp_path


def _reference(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "agentci.reference", *args]  # run in a checkout, as documented
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_the_documented_command_fails_on_a_stale_snapshot_and_regenerates_it(tmp_path: Path):
    root = _checkout_copy(tmp_path)
    stale = _stored()
    stale["events"]["warning"]["kind"]["one_of"].remove("console_unavailable")
    (root / reference.CONTRACT).write_text(json.dumps(stale, indent=1) + "\n")

    checked = _reference("--check", "--root", str(root))
    assert (checked.returncode, checked.stderr) == (
        1,
        "tests/events/event_contract.json is out of date\n",
    )
    assert _reference("--root", str(root)).returncode == 0
    assert (root / reference.CONTRACT).read_text() == SNAPSHOT.read_text()
    assert _reference("--check", "--root", str(root)).returncode == 0


def test_a_warning_is_one_jsonl_line_with_its_kind_and_message(tmp_path: Path):
    sink = JsonlSink(tmp_path / "events.jsonl")
    Emitter("run1", [sink]).emit(
        ev.WarningEvent(kind="guard_reverted", message="guard allowed_paths reverted 1 file(s)"),
        task="fix",
    )
    sink.close()
    line = json.loads((tmp_path / "events.jsonl").read_text())
    del line["ts"]
    assert line == {
        "v": 1, "seq": 1, "run_id": "run1", "task": "fix", "type": "warning",
        "kind": "guard_reverted", "message": "guard allowed_paths reverted 1 file(s)",
    }  # fmt: skip


def test_a_warning_kind_outside_the_list_is_refused():
    with pytest.raises(ValidationError, match="kind"):
        ev.WarningEvent(kind="something_else", message="x")  # type: ignore[arg-type]


def test_an_older_logs_error_with_a_warning_kind_reads_as_that_warning():
    old = '{"v":1,"seq":4,"type":"error","kind":"worktree_base","message":"uncommitted","traceback":null}'
    event = parse_line(old)
    assert isinstance(event, ev.WarningEvent)
    assert (event.seq, event.kind, event.message) == (4, "worktree_base", "uncommitted")
    stopping = parse_line('{"v":1,"type":"error","kind":"internal_error","message":"boom"}')
    assert isinstance(stopping, ev.Error)


def test_the_console_shows_a_warning_as_such():
    console = ConsoleSink(None, sanitize=str)  # type: ignore[arg-type]
    line = console.format(ev.WarningEvent(kind="worktree_base", message="works on abc123"))
    assert line == "  warning worktree_base: works on abc123"
