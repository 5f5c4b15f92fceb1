"""Running the verify command once and reading its per-test results.

The command runs in the workspace with the tools' clean environment (:func:`child_env`) and
a wall timeout, outside the agent's policy (it is the recipe author's command) but inside the
sandbox when there is one: it runs tests the agent may have written. Its network is
``verify.network`` (default: ``policy.network``); agentci's temporary folder for the JUnit
report is the only writable place outside the workspace.

Per-test outcomes come from a JUnit XML file, parsed with junitparser:

* ``verify.runner: pytest`` — agentci asks pytest for the report itself, through
  ``PYTEST_ADDOPTS=--junitxml=<temp file> -p no:cacheprovider``, so any command shape
  (``pytest -q``, ``python -m pytest tests/``, ``make test``) works and nothing is written into
  the workspace.
* ``verify.junit: PATH`` — the command writes the report at PATH (relative to the workspace).
  The file is read, then removed (or restored to what it was before the run), so it never lands
  in the patch.
* Neither — only pass/fail (exit code 0 passes) and the output tail are known.

Verify runs with ``PYTHONDONTWRITEBYTECODE=1``, ``RUFF_NO_CACHE=true`` and
``MYPY_CACHE_DIR=/dev/null``, so checking the workspace adds no caches to it (or to the patch),
and no cache can make a later run stale.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from junitparser import Error, Failure, JUnitXml, JUnitXmlError, Skipped, TestSuite

from agentci.recipe.schema import Verify
from agentci.tools.process import run_process

if TYPE_CHECKING:
    from agentci.policy.sandbox import Sandbox

Outcome = Literal["passed", "failed", "error", "skipped"]
BAD: frozenset[str] = frozenset({"failed", "error"})
_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
OUTPUT_CAP = 64_000


@dataclass
class TestOutcome:
    """One test as a verify run saw it; ``detail`` is the traceback / failure text."""

    __test__ = False  # not a pytest test class

    id: str
    outcome: Outcome
    message: str = ""
    detail: str = ""

    @property
    def bad(self) -> bool:
        """Failed or errored."""
        return self.outcome in BAD


@dataclass
class VerifyRun:
    """What one run of the verify command showed."""

    command: str
    exit_code: int | None
    passed: bool
    output: str
    duration_ms: int
    timed_out: bool = False
    tests: dict[str, TestOutcome] = field(default_factory=dict)
    junit_found: bool = False
    junit_problem: str = ""

    @property
    def failing(self) -> list[str]:
        """Ids of the failed and errored tests, sorted."""
        return sorted(t.id for t in self.tests.values() if t.bad)

    def counts(self) -> dict[str, int]:
        """How many tests per outcome (plus ``total``); empty without a JUnit report."""
        if not self.tests:
            return {}
        counts = {"total": len(self.tests), "passed": 0, "failed": 0, "error": 0, "skipped": 0}
        for test in self.tests.values():
            counts[test.outcome] += 1
        return counts


def test_id(classname: str | None, name: str | None) -> str:
    """``classname::name`` (pytest: ``tests.test_shop::test_total``), or just the name."""
    name = name or "?"
    return f"{classname}::{name}" if classname else name


def _cases(xml: JUnitXml | TestSuite):  # noqa: ANN202 - junitparser's own iterables
    if isinstance(xml, TestSuite):
        yield from _suite_cases(xml)
        return
    for suite in xml:
        yield from _suite_cases(suite)


def _suite_cases(suite: TestSuite):  # noqa: ANN202
    for item in suite:
        if isinstance(item, TestSuite):  # nested suites
            yield from _suite_cases(item)
        else:
            yield item


def parse_junit(path: Path) -> dict[str, TestOutcome]:
    """Per-test outcomes from a JUnit XML file (raises ``JUnitXmlError``/``OSError``/parse errors).

    A test listed twice keeps its worst outcome.
    """
    tests: dict[str, TestOutcome] = {}
    for case in _cases(JUnitXml.fromfile(str(path))):
        outcome: Outcome = "passed"
        message = detail = ""
        for result in case.result or []:
            if isinstance(result, Error):
                kind: Outcome = "error"
            elif isinstance(result, Failure):
                kind = "failed"
            elif isinstance(result, Skipped):
                kind = "skipped"
            else:
                continue
            if _RANK[kind] >= _RANK[outcome]:
                outcome, message, detail = kind, result.message or "", result.text or ""
        tid = test_id(case.classname, case.name)
        old = tests.get(tid)
        if old is None or _RANK[outcome] > _RANK[old.outcome]:
            tests[tid] = TestOutcome(tid, outcome, message.strip(), detail.strip())
    return tests


def verify_env(base: Mapping[str, str], verify: Verify, junit_path: Path | None, tmp: Path):
    """The environment for one verify run (see the module docstring)."""
    env = dict(base)
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    env.setdefault("RUFF_NO_CACHE", "true")
    env.setdefault("MYPY_CACHE_DIR", os.devnull)  # no cache: none in the workspace, none stale
    if verify.runner == "pytest" and junit_path is not None:
        extra = f"--junitxml={shlex.quote(str(junit_path))} -p no:cacheprovider"
        env["PYTEST_ADDOPTS"] = f"{env.get('PYTEST_ADDOPTS', '')} {extra}".strip()
    return env


async def run_verify(
    verify: Verify,
    *,
    workspace: Path,
    env: Mapping[str, str],
    tmp_dir: Path,
    label: str,
    sandbox: Sandbox | None = None,
) -> VerifyRun:
    """Run ``verify.command`` once in ``workspace``; ``tmp_dir`` holds agentci's JUnit file."""
    junit_path: Path | None = None
    saved: bytes | None = None
    if verify.runner == "pytest":
        junit_path = tmp_dir / f"verify-{label}.xml"
    elif verify.junit:
        junit_path = workspace / verify.junit
        saved = junit_path.read_bytes() if junit_path.is_file() else None
    if junit_path is not None and junit_path.exists():
        junit_path.unlink()
    result = await run_process(
        verify.command,
        cwd=workspace,
        env=verify_env(env, verify, junit_path, tmp_dir),
        timeout=verify.timeout_seconds,
        output_cap=OUTPUT_CAP,
        sandbox=None if sandbox is None else sandbox.but(writable=[tmp_dir]),
    )
    run = VerifyRun(
        command=verify.command,
        exit_code=result.exit_code,
        passed=result.exit_code == 0 and not result.timed_out,
        output=result.output,
        duration_ms=result.duration_ms,
        timed_out=result.timed_out,
    )
    if junit_path is not None:
        _read_junit(run, junit_path)
        _put_back(junit_path, saved, inside=verify.runner != "pytest")
    if run.passed and run.failing:  # exit 0 but the report lists failures: trust the report
        run.passed = False
    return run


def _read_junit(run: VerifyRun, path: Path) -> None:
    if not path.is_file():
        run.junit_problem = f"the command wrote no JUnit report at {path}"
        return
    try:
        run.tests = parse_junit(path)
        run.junit_found = True
    except (JUnitXmlError, OSError, ValueError, SyntaxError) as err:
        run.junit_problem = f"could not read the JUnit report {path}: {err}"


def _put_back(path: Path, saved: bytes | None, *, inside: bool) -> None:
    """Leave the workspace as it was: remove the report, or restore the file it replaced."""
    try:
        if saved is not None:
            path.write_bytes(saved)
        elif path.exists() and (inside or path.is_file()):
            os.unlink(path)
    except OSError:
        pass
