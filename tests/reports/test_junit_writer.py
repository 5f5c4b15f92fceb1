"""junit.xml parsed back with junitparser."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from junitparser import Error, Failure, JUnitXml, Skipped
from outputs_fixtures import run, task, verify

from agentci.outcome import Status
from agentci.reports.junit import write_junit


def load(path: Path) -> dict[str, dict[str, list]]:
    xml = JUnitXml.fromfile(str(path))
    return {s.name: {c.name: c.result for c in s} for s in xml}


def test_success_with_verify_tests(tmp_path: Path) -> None:
    t = task(
        summary="Fixed the off-by-one.",
        verify=[
            verify(False, [("t::a", "failed", "boom")]),
            verify(False, [("t::a", "passed", ""), ("t::b", "failed", "assert 1 == 2"),
                           ("t::c", "error", "fixture"), ("t::d", "skipped", "no db")]),
        ],
    )  # fmt: skip
    write_junit(tmp_path / "junit.xml", run(t))
    suites = load(tmp_path / "junit.xml")
    assert list(suites) == ["fix-tests"]
    cases = suites["fix-tests"]
    assert cases["agent"] == []
    assert cases["verify:t::a"] == []
    assert isinstance(cases["verify:t::b"][0], Failure)
    assert cases["verify:t::b"][0].message == "assert 1 == 2"
    assert isinstance(cases["verify:t::c"][0], Error)
    assert isinstance(cases["verify:t::d"][0], Skipped)


def test_failure_and_error_statuses(tmp_path: Path) -> None:
    tasks = [
        task("unit", Status.verify_failed, 1, reason="2 tests still fail"),
        task("lint", Status.provider_error, 6, reason="quota"),
        task("audit", Status.no_changes, 0, reason="nothing to change"),
    ]
    write_junit(tmp_path / "j.xml", run(*tasks))
    suites = load(tmp_path / "j.xml")
    assert set(suites) == {"fix-tests/unit", "fix-tests/lint", "fix-tests/audit"}
    unit = suites["fix-tests/unit"]["agent"][0]
    assert isinstance(unit, Failure) and unit.type == "verify_failed"
    assert unit.message == "verify_failed: 2 tests still fail"
    lint = suites["fix-tests/lint"]["agent"][0]
    assert isinstance(lint, Error) and lint.type == "provider_error"
    assert suites["fix-tests/audit"]["agent"] == []  # allowed no_changes passes


def test_hostile_text_still_valid_xml(tmp_path: Path) -> None:
    nasty = 'ctrl \x00\x01\x1b[31m \ud800 ]]> <tag> & "q" \ufffe end'
    t = task(
        status=Status.internal_error, exit_code=70, reason=nasty, summary=nasty,
        verify=[verify(False, [(nasty, "failed", nasty)])],
    )  # fmt: skip
    write_junit(tmp_path / "j.xml", run(t))
    suites = load(tmp_path / "j.xml")
    cases = suites["fix-tests"]
    agent = cases["agent"][0]
    assert ']]> <tag> & "q"' in agent.message
    assert len(cases) == 2


def test_run_without_tasks(tmp_path: Path) -> None:
    write_junit(tmp_path / "j.xml", run(status=Status.invalid_input, exit_code=2))
    suites = load(tmp_path / "j.xml")
    assert isinstance(suites["fix-tests"]["agent"][0], Error)


def test_the_merged_junit_xml_is_indented_without_blank_lines(tmp_path: Path) -> None:
    from agentci.reports.redact import Redactor
    from agentci.reports.writer import write_outputs
    from agentci.testing.cli import agentci

    folders = []
    for name, passed in (("one", True), ("two", False)):
        t = task(name, Status.success if passed else Status.verify_failed, 0 if passed else 1,
                 reason="" if passed else "verify still fails",
                 verify=[verify(passed, [("t::a", "passed" if passed else "failed", "boom\n  at line 3")])])  # fmt: skip
        write_outputs(tmp_path / name, run(t), {name: ""}, Redactor(), step_summary=False)
        folders.append(str(tmp_path / name))
    done = agentci("report", "merge", *folders, "--out", str(tmp_path / "merged"))
    assert done.returncode == 1, done.stderr
    text = (tmp_path / "merged" / "junit.xml").read_text()
    lines = text.splitlines()
    assert [line for line in lines if not line.strip()] == []
    assert lines[1] == "<testsuites " + lines[1].split(" ", 1)[1]
    assert lines[2].startswith("\t<testsuite ") and lines[-1] == "</testsuites>"
    suites = load(tmp_path / "merged" / "junit.xml")
    assert set(suites) == {"fix-tests/one", "fix-tests/two"}
    assert suites["fix-tests/two"]["verify:t::a"][0].message == "boom\n  at line 3"


def test_a_suite_of_twenty_thousand_tests_is_written_whole(tmp_path: Path) -> None:
    # Written in one pass: junitparser's add_testcase recounted the suite on every case, so
    # this file took minutes (over the test timeout) where it now takes well under a second.
    outcomes = ["passed", "failed", "skipped", "error"]
    tests = [(f"t::test_{i}", outcomes[i % 4], f"m{i}") for i in range(20_000)]
    write_junit(tmp_path / "j.xml", run(task(verify=[verify(False, tests)])))
    xml = JUnitXml.fromfile(str(tmp_path / "j.xml"))
    suite = next(iter(xml))
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (
        20_001,
        5_000,
        5_000,
        5_000,
    )
    assert (xml.tests, xml.failures, xml.errors, xml.skipped) == (20_001, 5_000, 5_000, 5_000)
    cases = {c.name: c.result for c in suite}
    assert isinstance(cases["verify:t::test_19997"][0], Failure)
    assert cases["verify:t::test_19997"][0].message == "m19997"


@pytest.mark.timeout(60)
def test_every_test_of_a_large_suite_the_agent_fixed_is_marked_fixed(tmp_path: Path) -> None:
    # Each test's status is one lookup: it searched the change lists (every fixed test's id)
    # for every test, which took minutes for this suite (over the timeout).
    ids = [f"tests.test_m{i % 20}::test_{i}" for i in range(100_000)]
    base = verify(False, [(i, "failed", "boom") for i in ids])
    base = base.model_copy(update={"phase": "baseline", "attempt": 0})
    final = verify(True, [(i, "passed", "") for i in ids])
    final = final.model_copy(update={"changes": {"fixed": ids[:-2], "regressed": ids[-2:]}})
    write_junit(tmp_path / "j.xml", run(task(verify=[base, final])))
    statuses = {
        case.get("name"): case.get("status")
        for _, case in ET.iterparse(tmp_path / "j.xml")
        if case.tag == "testcase"
    }
    assert statuses["agent"] == "success"
    assert statuses["verify:tests.test_m0::test_0"] == "fixed"
    assert statuses["verify:tests.test_m19::test_99999"] == "regressed"
    assert sorted(Counter(statuses.values()).items()) == [
        ("fixed", 99_998),
        ("regressed", 2),
        ("success", 1),
    ]
