"""Holds of calls in flight in the ``budget.daily_usd`` ledger belong to a process named by
boot, pid and start time: a dead run's hold is dropped even where its pid now names another
process (a ledger carried to another runner by actions/cache, a pid the kernel reused)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from agentci.errors import BudgetExhausted
from agentci.loop.ledger import Ledger, process_identity, today

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def _ledger(path: Path) -> Ledger:
    return Ledger(path, workflow="ci", daily_usd=1.0, per_workflow_usd=None)


def _hold(path: Path, pid: int, owner: str | None, usd: float = 0.9) -> None:
    with sqlite3.connect(path) as db:
        if owner is None:
            db.execute(
                "INSERT INTO holds (day, workflow, usd, pid) VALUES (?, 'ci', ?, ?)",
                (today(), usd, pid),
            )
        else:
            db.execute(
                "INSERT INTO holds (day, workflow, usd, pid, owner) VALUES (?, 'ci', ?, ?, ?)",
                (today(), usd, pid, owner),
            )


def test_a_hold_made_on_another_machine_is_dropped_though_its_pid_runs_here(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.sqlite"
    _ledger(path).close()
    _, pid, start = process_identity(os.getpid()).split(":")
    _hold(path, int(pid), f"another-boot:{pid}:{start}")
    ledger = _ledger(path)
    ledger.reserve(0.5)
    assert ledger.caps() == [("daily_usd", 0.5, 1.0)]


def test_a_hold_whose_pid_now_names_a_newer_process_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    _ledger(path).close()
    boot, pid, start = process_identity(os.getpid()).split(":")
    _hold(path, int(pid), f"{boot}:{pid}:{int(start) - 1}")
    ledger = _ledger(path)
    ledger.reserve(0.5)
    assert ledger.caps() == [("daily_usd", 0.5, 1.0)]


def test_the_hold_of_a_process_still_running_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    _ledger(path).close()
    with subprocess.Popen(["sleep", "60"]) as other:
        try:
            _hold(path, other.pid, process_identity(other.pid))
            with pytest.raises(BudgetExhausted) as stop:
                _ledger(path).reserve(0.5)
        finally:
            other.kill()
    assert (stop.value.limit, stop.value.used, stop.value.cap) == ("daily_usd", 0.9, 1.0)


def test_a_ledger_made_by_an_older_agentci_gains_owners_and_judges_its_holds_by_pid(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE spent (day TEXT NOT NULL, workflow TEXT NOT NULL, usd REAL NOT NULL "
            "DEFAULT 0, PRIMARY KEY (day, workflow));"
            "CREATE TABLE holds (id INTEGER PRIMARY KEY, day TEXT NOT NULL, workflow TEXT NOT "
            "NULL, usd REAL NOT NULL, pid INTEGER NOT NULL);"
        )
    with subprocess.Popen(["true"]) as gone:
        gone.wait()
    _hold(path, gone.pid, None)
    ledger = _ledger(path)
    ledger.reserve(0.5)
    assert ledger.caps() == [("daily_usd", 0.5, 1.0)]
    with sqlite3.connect(path) as db:
        owners = [row[0] for row in db.execute("SELECT owner FROM holds")]
    assert owners == [process_identity(os.getpid())]
