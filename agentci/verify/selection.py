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

A selection runs every test module that holds a selected test (pytest collects whole modules).
When those modules hold most of a large suite (:func:`collects_most`: at least
:data:`MOST` of the last full run's tests, in a suite of :data:`LARGE` tests or more), the
selection would cost a whole extra collection for little, so the attempt runs the full suite
directly, as ``full`` does.

The selection reaches pytest as a file read by a plugin (:mod:`agentci.verify.pytest_select`),
never as command-line words: test names come from code the agent may have written.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agentci.recipe.verify_config import Verify

Strategy = Literal["full", "failing_first"]
PLUGIN = "_agentci_select"
#: A selection whose modules hold this share of the suite's tests or more is not run apart...
MOST = 0.8
#: ...when the suite holds at least this many tests (below it a collection costs little).
LARGE = 1_000


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
        # a new folder each run: an earlier run could write tmp_dir (the sandbox lets it), and
        # a link it left at a name known in advance would have agentci write where it points
        folder = Path(tempfile.mkdtemp(prefix="select-", dir=tmp_dir))
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


def module_of(test_id: str) -> str:
    """The dotted test module of a JUnit id (``tests.test_x.TestY::test_z`` → ``tests.test_x``):
    its classname without the trailing class names (capitalised, as pytest's ``Test*`` and
    unittest's classes are); "" without a classname. A guess from the text alone: a wrong one
    only costs speed."""
    classname, sep, _ = test_id.partition("::")
    if not sep:
        return ""
    parts = classname.split(".")
    while len(parts) > 1 and parts[-1][:1].isupper():
        parts.pop()
    return ".".join(parts)


def collects_most(select: Selection, suite: list[str], workspace: Path) -> bool:
    """Whether running ``select`` would collect most of ``suite`` (the JUnit ids of the last
    full run): the suite holds at least :data:`LARGE` tests and the modules of the selected
    ids and files hold at least :data:`MOST` of them."""
    if len(suite) < LARGE:
        return False
    modules = {m for m in map(module_of, select.ids) if m}
    for name in select.files:
        try:
            rel = Path(name).relative_to(workspace).with_suffix("")
        except ValueError:
            continue
        modules.add(".".join(rel.parts))
    held = sum(1 for test in suite if module_of(test) in modules)
    return held >= MOST * len(suite)
