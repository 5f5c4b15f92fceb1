"""``verify.strategy``: which tests an attempt runs first.

* ``full`` — every attempt runs the verify command as it is.
* ``failing_first`` (the default with ``runner: pytest``) — an attempt that is not the last
  first runs only the tests that failed at the baseline plus every test in the test files the
  agent changed. When those fail, the failures go back to the model and the full suite is not
  run (it would fail too). Only when they pass does the full suite run, once; its verdict is the
  attempt's, and only full runs reach junit.xml, result.json and the summary. The last attempt
  (and a task about to stop for lack of progress) always runs the full suite.

With another runner (``junit:`` or none) there is no way to pass a selection to the command,
so ``failing_first`` falls back to ``full``.

The selection reaches pytest as a file read by a plugin (:mod:`agentci.verify.pytest_select`),
never as command-line words: test names come from code the agent may have written.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agentci.recipe.verify_config import Verify

Strategy = Literal["full", "failing_first"]
PLUGIN = "_agentci_select"


def strategy_of(verify: Verify) -> Strategy:
    """The strategy that applies: ``verify.strategy``, by default ``failing_first`` with
    ``runner: pytest``; always ``full`` with another runner (no way to select tests)."""
    if verify.runner != "pytest":
        return "full"
    return verify.strategy or "failing_first"


@dataclass
class Selection:
    """The tests a failing-first run runs: JUnit ids and whole test files (absolute paths)."""

    ids: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.ids or self.files)

    def env(self, base: Mapping[str, str], tmp_dir: Path) -> dict[str, str]:
        """``base`` plus what loads the plugin on this selection: the plugin and the selection
        are written into ``tmp_dir``; ``PYTEST_ADDOPTS`` and ``PYTHONPATH`` are added to."""
        folder = tmp_dir / "select"
        folder.mkdir(exist_ok=True)
        shutil.copyfile(Path(__file__).with_name("pytest_select.py"), folder / f"{PLUGIN}.py")
        chosen = folder / "selection.json"
        chosen.write_text(json.dumps({"ids": self.ids, "files": self.files}), encoding="utf-8")
        env = dict(base)
        env["AGENTCI_SELECT_FILE"] = str(chosen)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(folder), base.get("PYTHONPATH")) if p)
        env["PYTEST_ADDOPTS"] = f"{base.get('PYTEST_ADDOPTS', '')} -p {PLUGIN}".strip()
        return env


def failing_first(failing: list[str], changed: list[str], workspace: Path) -> Selection:
    """The baseline's ``failing`` test ids plus the tests in the ``changed`` Python files
    (workspace-relative; a changed module that holds no test selects nothing)."""
    files = sorted(str(workspace / p) for p in changed if p.endswith(".py"))
    return Selection(ids=sorted(failing), files=files)
