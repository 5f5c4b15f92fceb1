"""The pytest plugin behind ``verify.strategy: failing_first``: run only the selected tests.

agentci copies this file into its private verify folder as ``_agentci_select.py`` and loads it
with ``PYTEST_ADDOPTS=-p _agentci_select`` (that folder first on ``PYTHONPATH``), so it works
with whatever Python and command the recipe's verify uses (``pytest -q``, ``python -m pytest
tests/``, ``make test``). It imports nothing of agentci. The selection is a JSON file named by
``AGENTCI_SELECT_FILE``::

    {"ids": ["tests.test_shop::test_total", ...],   # JUnit ids: classname::name
     "files": ["/abs/path/tests/test_shop.py", ...]} # every test in these files

The node ids never pass through a shell or a command line: a test name the agent wrote (with
``$(...)``, quotes or spaces in its parameters) is data in a file, compared as a string.

* Collection skips the test files and folders that hold no selected test (their modules are
  not even imported), so the run costs what the selected tests cost.
* The tests collected are kept when their JUnit id (as pytest's ``--junitxml`` writes it:
  the node id's path dotted, ``.py`` dropped, classes appended) is selected, or when their
  file is; the others are deselected.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

_SELECTION: dict[str, Any] | None = None


def _selection() -> dict[str, Any]:
    global _SELECTION
    if _SELECTION is None:
        path = os.environ.get("AGENTCI_SELECT_FILE", "")
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = {}
        ids = {str(i) for i in data.get("ids") or []}
        files = {os.path.realpath(str(p)) for p in data.get("files") or []}
        classnames = {i.split("::", 1)[0] for i in ids if "::" in i}
        _SELECTION = {"ids": ids, "files": files, "classnames": classnames}
    return _SELECTION


def junit_id(nodeid: str) -> str:
    """The id agentci reads from pytest's JUnit report for ``nodeid`` (``classname::name``)."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    classname = ".".join(names[:-1])
    return f"{classname}::{names[-1]}" if classname else names[-1]


def _dotted(rel: str) -> str:
    return re.sub(r"\.py$", "", rel.replace(os.sep, "."))


def _wanted_path(path: Path, root: Path) -> bool:
    sel = _selection()
    real = os.path.realpath(path)
    if path.is_dir():
        prefix = real.rstrip(os.sep) + os.sep
        if any(f.startswith(prefix) for f in sel["files"]):
            return True
    elif real in sel["files"]:
        return True
    try:
        rel = str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return True  # outside the rootdir: pytest names it otherwise; let it be collected
    if rel in ("", "."):
        return True
    dotted = _dotted(rel)
    return any(c == dotted or c.startswith(dotted + ".") for c in sel["classnames"])


def pytest_ignore_collect(collection_path: Path, config: Any) -> bool | None:
    """Skip a file or folder that holds no selected test (None: pytest decides as usual)."""
    if collection_path.name in ("conftest.py", "__init__.py") or not collection_path.exists():
        return None
    if collection_path.is_file() and collection_path.suffix != ".py":
        return None
    return None if _wanted_path(collection_path, Path(str(config.rootpath))) else True


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    """Keep the selected tests, deselect the rest."""
    sel = _selection()
    kept, dropped = [], []
    for item in items:
        path = os.path.realpath(str(getattr(item, "path", "")))
        if junit_id(item.nodeid) in sel["ids"] or path in sel["files"]:
            kept.append(item)
        else:
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
