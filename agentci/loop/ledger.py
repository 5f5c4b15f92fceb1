"""``budget.daily_usd`` / ``budget.per_workflow_usd``: spending shared by runs through a ledger.

The ledger is a small SQLite file (WAL) at ``budget.ledger`` or ``$AGENTCI_LEDGER`` (else
``$XDG_CACHE_HOME/agentci/ledger.sqlite``). It holds what model calls cost per UTC day and
workflow (``$GITHUB_WORKFLOW``, else the recipe's name), and the **holds** of calls in flight.

Before each model call the run reserves the call's worst case (its estimated prompt plus the
largest answer it allows, priced) in one ``BEGIN IMMEDIATE`` transaction that first checks
that spent + every hold + this call fit each cap; so two runs that share the ledger can never
both start a call the ledger has room for only once. When the call ends, its hold becomes what
it really cost. Holds of processes that died are dropped: each hold names its process by
boot, pid and start time (:func:`process_identity`), so a ledger carried to another runner, or
a pid the kernel gave to a new process, never keeps a dead run's hold for the rest of the day.

The ledger is only as shared as its file: on CI, one per runner unless the file is carried
from job to job (docs/budgets.md: actions/cache keyed by workflow and date).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from agentci.errors import BudgetExhausted
from agentci.recipe.budget_config import Budget

_SCHEMA = """
CREATE TABLE IF NOT EXISTS spent (
    day TEXT NOT NULL, workflow TEXT NOT NULL, usd REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (day, workflow));
CREATE TABLE IF NOT EXISTS holds (
    id INTEGER PRIMARY KEY, day TEXT NOT NULL, workflow TEXT NOT NULL, usd REAL NOT NULL,
    pid INTEGER NOT NULL);
"""
#: Added to ``holds`` later (a ledger made by an older agentci gets it on open).
_OWNER_COLUMN = "ALTER TABLE holds ADD COLUMN owner TEXT NOT NULL DEFAULT ''"


def default_path() -> Path:
    """``$AGENTCI_LEDGER``, else the ledger in the user's cache folder."""
    env = os.environ.get("AGENTCI_LEDGER")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "agentci" / "ledger.sqlite"


def today() -> str:
    """The ledger's key: the UTC date."""
    return datetime.now(timezone.utc).date().isoformat()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot (``/proc/PID/stat`` field 22)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[19]


def process_identity(pid: int) -> str:
    """``boot:pid:start`` of a running process ("" parts where ``/proc`` does not say)."""
    return f"{_boot_id()}:{pid}:{_start_time(pid)}"


def _owner_alive(pid: int, owner: str) -> bool:
    """Whether the process that made a hold still runs: the same boot, the same pid, the same
    start time. A hold without an owner (an older agentci) is judged by its pid alone."""
    if not owner:
        return _alive(pid)
    boot, _, start = owner.split(":", 2)
    if boot != _boot_id():
        return False  # another machine, or this one rebooted
    return _alive(pid) and start == _start_time(pid)


@dataclass
class Hold:
    """The worst case of one call in flight."""

    id: int
    day: str
    usd: float


class Ledger:
    """One connection to the ledger file, with the caps of this run."""

    def __init__(
        self,
        path: Path,
        *,
        workflow: str,
        daily_usd: float | None,
        per_workflow_usd: float | None,
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.workflow = workflow
        self.daily_usd = daily_usd
        self.per_workflow_usd = per_workflow_usd
        self._db = sqlite3.connect(path, timeout=60, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(holds)")}
        if "owner" not in columns:
            with contextlib.suppress(sqlite3.OperationalError):  # another run added it first
                self._db.execute(_OWNER_COLUMN)
        self._me = process_identity(os.getpid())

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def _used(self, day: str) -> tuple[float, float]:
        """(spent + held today over all workflows, the same for this workflow)."""
        q = "SELECT COALESCE(SUM(usd), 0) FROM {} WHERE day = ?"
        qw = q + " AND workflow = ?"
        run = self._db.execute
        all_ = (
            run(q.format("spent"), (day,)).fetchone()[0]
            + run(q.format("holds"), (day,)).fetchone()[0]
        )
        wf = (
            run(qw.format("spent"), (day, self.workflow)).fetchone()[0]
            + run(qw.format("holds"), (day, self.workflow)).fetchone()[0]
        )
        return float(all_), float(wf)

    def caps(self) -> list[tuple[str, float, float]]:
        """``(limit, used, cap)`` of each ledger cap now (spent + holds)."""
        all_, wf = self._used(today())
        out = []
        if self.daily_usd is not None:
            out.append(("daily_usd", round(all_, 8), self.daily_usd))
        if self.per_workflow_usd is not None:
            out.append(("per_workflow_usd", round(wf, 8), self.per_workflow_usd))
        return out

    def reserve(self, usd: float) -> Hold:
        """Hold ``usd`` for a call about to be sent, or raise :class:`BudgetExhausted` when
        spent + holds + ``usd`` would pass a cap (checked and held in one transaction)."""
        day = today()
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            for hid, pid, owner in db.execute("SELECT id, pid, owner FROM holds").fetchall():
                if owner != self._me and not _owner_alive(pid, owner):
                    db.execute("DELETE FROM holds WHERE id = ?", (hid,))
            for limit, used, cap in self.caps():
                if used + usd > cap:
                    raise BudgetExhausted(
                        limit, used, cap, f"the next call may cost up to ${usd:.4f}"
                    )
            cur = db.execute(
                "INSERT INTO holds (day, workflow, usd, pid, owner) VALUES (?, ?, ?, ?, ?)",
                (day, self.workflow, usd, os.getpid(), self._me),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return Hold(int(cur.lastrowid or 0), day, usd)

    def settle(self, hold: Hold | None, usd: float) -> None:
        """The call of ``hold`` (None: a call made without one) ended costing ``usd``."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            day = today() if hold is None else hold.day
            if hold is not None:
                db.execute("DELETE FROM holds WHERE id = ?", (hold.id,))
            db.execute(
                "INSERT INTO spent (day, workflow, usd) VALUES (?, ?, ?) "
                "ON CONFLICT (day, workflow) DO UPDATE SET usd = usd + excluded.usd",
                (day, self.workflow, usd),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


def open_ledger(budget: Budget, recipe_dir: Path, recipe_name: str) -> Ledger | None:
    """The ledger of ``budget`` (None without ``daily_usd`` or ``per_workflow_usd``)."""
    if budget.daily_usd is None and budget.per_workflow_usd is None:
        return None
    path = recipe_dir / budget.ledger if budget.ledger else default_path()
    return Ledger(
        path,
        workflow=os.environ.get("GITHUB_WORKFLOW") or recipe_name,
        daily_usd=budget.daily_usd,
        per_workflow_usd=budget.per_workflow_usd,
    )
