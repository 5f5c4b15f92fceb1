"""Running the verify command once and reading its per-test results.

The command runs in the workspace with the tools' clean environment (:func:`child_env`) and
a wall timeout, outside the agent's policy (it is the recipe author's command) but inside the
sandbox when there is one: it runs tests the agent may have written. Its network is
``verify.network`` (default: ``policy.network``); agentci's temporary folder for the JUnit
report and the run's private view of the bytecode store (below) are the only writable places
outside the workspace.

Per-test outcomes come from a JUnit XML file, parsed with junitparser:

* ``verify.runner: pytest`` — agentci asks pytest for the report itself, through
  ``PYTEST_ADDOPTS=--junitxml=<temp file> -p no:cacheprovider``, so any command shape
  (``pytest -q``, ``python -m pytest tests/``, ``make test``) works and nothing is written into
  the workspace.
* ``verify.junit: PATH`` — the command writes the report at PATH (relative to the workspace;
  a read-only folder such as ``.agentci/`` is made writable for it: :mod:`.report`).
* Neither — only pass/fail (exit code 0 passes) and the output tail are known.

The host reads the report as data (:mod:`.report`): no link followed, regular files only,
size capped.

Verify runs with ``PYTHONDONTWRITEBYTECODE=1``, ``RUFF_NO_CACHE=true`` and
``MYPY_CACHE_DIR=/dev/null``, so checking the workspace adds no caches to it (or to the patch),
and no cache can make a later run stale. In the sandbox, Python's bytecode comes from
agentci's read-only store instead (:mod:`agentci.policy.pyc_cache`): the run writes bytecode
only into a private view of it, whose names say what to add to the store afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from junitparser import Error, Failure, JUnitXml, JUnitXmlError, Skipped, TestSuite

from agentci.policy.pyc_cache import remove_view
from agentci.policy.pyc_carry import WorkspaceBytecode
from agentci.policy.pyc_fill import fill_from_view
from agentci.policy.pyc_view import pyc_view
from agentci.process import run_process
from agentci.recipe.verify_config import Verify
from agentci.verify.report import ReportPlace, ReportUnreadable, report_place
from agentci.verify.run_env import verify_env
from agentci.verify.selection import Selection

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
    #: after the agent: why this run could not judge the change (:mod:`.judged`); it fails
    unjudged: str = ""
    scope: Literal["full", "failing_first"] = "full"  # failing_first: a selection ran

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
    """Per-test outcomes from a JUnit XML file (raises ``JUnitXmlError``/``OSError``/parse errors)."""
    return parse_junit_bytes(path.read_bytes())


def parse_junit_bytes(data: bytes) -> dict[str, TestOutcome]:
    """Per-test outcomes from a JUnit XML document (raises ``JUnitXmlError``/parse errors).

    A test listed twice keeps its worst outcome.
    """
    tests: dict[str, TestOutcome] = {}
    for case in _cases(JUnitXml.fromstring(data)):
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


async def run_verify(
    verify: Verify,
    *,
    workspace: Path,
    env: Mapping[str, str],
    tmp_dir: Path,
    label: str,
    sandbox: Sandbox | None = None,
    select: Selection | None = None,
    bytecode: WorkspaceBytecode | None = None,
    keep_bytecode: bool = False,
) -> VerifyRun:
    """Run ``verify.command`` once in ``workspace``; ``tmp_dir`` holds agentci's JUnit file.
    With ``select`` (``runner: pytest`` only), only those tests run (:mod:`.selection`).
    With ``bytecode``, the run keeps the workspace's bytecode it compiled (``keep_bytecode``:
    the baseline, before the agent) or starts with what the baseline kept
    (:mod:`agentci.policy.pyc_carry`)."""
    place = report_place(verify, workspace=workspace, tmp_dir=tmp_dir, label=label, sandbox=sandbox)
    if place is not None:
        place.prepare()
    box = None
    if sandbox is not None:
        box = sandbox.but(writable=[tmp_dir], binds=place.binds if place else ())
    pytest_report = place.command_path if place and verify.runner == "pytest" else None
    run_env = verify_env(env, verify.runner, pytest_report)
    if select is not None:
        run_env = select.env(run_env, tmp_dir)
    # a writable prefix for the baseline to keep from, and for later runs to get what it kept
    carried = bytecode is not None and (keep_bytecode or bool(bytecode.kept))
    box, view = pyc_view(box, run_env, verify.command, always=carried)
    if view is not None and bytecode is not None and not keep_bytecode:
        await asyncio.to_thread(bytecode.seed, view)
    try:
        result = await run_process(
            verify.command,
            cwd=workspace,
            env=run_env,
            timeout=verify.timeout_seconds,
            output_cap=OUTPUT_CAP,
            sandbox=box,
        )
        run = VerifyRun(
            command=verify.command,
            exit_code=result.exit_code,
            passed=result.exit_code == 0 and not result.timed_out,
            output=result.output,
            duration_ms=result.duration_ms,
            timed_out=result.timed_out,
            scope="full" if select is None else "failing_first",
        )
        if place is not None:
            _read_junit(run, place)
        if view is not None and box is not None:
            if bytecode is not None and keep_bytecode:
                await asyncio.to_thread(bytecode.keep, view)
            await fill_from_view(view, box, verify.command, run_env.get("PATH"))
    finally:
        if view is not None:
            remove_view(view)
        if place is not None:
            place.finish()
    if run.passed and run.failing:  # exit 0 but the report lists failures: trust the report
        run.passed = False
    return run


def _read_junit(run: VerifyRun, place: ReportPlace) -> None:
    try:
        data = place.read()
    except ReportUnreadable as err:
        if err.missing:
            run.junit_problem = f"the command wrote no JUnit report at {place.shown}"
        else:
            run.junit_problem = f"could not read the JUnit report {place.shown}: {err}"
        return
    try:
        run.tests = parse_junit_bytes(data)
        run.junit_found = True
    except (JUnitXmlError, ValueError, SyntaxError) as err:
        run.junit_problem = f"could not read the JUnit report {place.shown}: {err}"
