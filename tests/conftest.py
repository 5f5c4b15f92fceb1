"""Fixtures shared by the whole suite: real temporary git repositories and recipes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))

from tool_harness import Harness, init_repo  # noqa: E402

from agentci.testing.repo import commit_repo  # noqa: E402


@pytest.fixture
def repo_factory(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Make a committed git repo from a dict of files: ``repo_factory({"a.py": "..."})``."""
    counter = iter(range(1000))

    def factory(files: dict[str, str]) -> Path:
        root = tmp_path / f"repo{next(counter)}"
        commit_repo(root, files)
        return root

    return factory


@pytest.fixture
def write_recipe(tmp_path: Path) -> Callable[[str], Path]:
    """Write recipe YAML text to a file and return its path."""

    def write(text: str, name: str = "recipe.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A committed git repo with a couple of files (tests/tools has its own)."""
    return init_repo(
        tmp_path / "repo",
        {"README.md": "install with pip\n", "f": "keep me\n", "src/app.py": "x = 1\n"},
    )


@pytest.fixture
def h(ws: Path) -> Harness:
    """Real tool calls through the real scheduler and policy on ``ws``; set ``h.mode`` /
    ``h.rules`` in the test."""
    return Harness(ws=ws)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``-n N`` schedules like ``--dist load`` but keeps each ``@GROUP`` together (loadgroup)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadGroupScheduling

    return LoadGroupScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests of one module that share a module-scoped fixture on one xdist worker.

    Such a fixture is one expensive real run (an Action job, a whole recipe run) several tests
    look at; under ``--dist load`` every worker that gets one of those tests builds it again.
    The controller schedules with pytest-xdist's LoadGroupScheduling (above), which keeps a
    test whose node id ends in ``@GROUP`` with its group; each worker adds that suffix here.
    (pytest-xdist 3.8's own ``xdist_group`` mark sets ``item._nodeid``, which pytest 9 no
    longer reads: its node ids are ``item._id``.) Without xdist nothing changes."""
    if not hasattr(config, "workerinput"):
        return
    try:  # pytest's own structured id (pytest 9); elsewhere tests just spread as under load
        from _pytest.nodeid import NodeId
    except ImportError:
        return

    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or "@" in item.nodeid:
            continue
        if any(defs and defs[-1].scope == "module" for defs in info.name2fixturedefs.values()):
            item._id = NodeId.parse(f"{item.nodeid}@{item.nodeid.split('::')[0]}")
