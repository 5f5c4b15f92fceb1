"""junit.xml: what CI test reporters show (docs/outputs.md).

One ``<testsuite>`` per task, named after the recipe (``recipe/task`` when the recipe has several
tasks). In each suite:

* testcase ``agent`` — the task's outcome. Passes when the task's exit code is 0 (success, or
  ``no_changes`` the recipe allows). Otherwise a ``<failure>`` (the agent did not get there:
  verify_failed, no_changes, budget_exhausted, loop_detected, blocked, invalid_output) or an
  ``<error>`` (the run
  could not work: provider_error, provider_unavailable, internal_error, invalid_input, cancelled),
  whose ``type`` is the status and whose message is the reason (``provider_unavailable``, exit 75:
  the message says the run may be repeated later). The model's last message is the case's system-out.
* testcase ``verify:<test id>`` for each test the baseline or the final verify run saw: passed,
  or ``<failure>`` / ``<error>`` / ``<skipped>`` with the test's message; its ``status`` says what
  the agent did to it (fixed, regressed, still_failing, added, removed, flaky, unchanged).
* testcase ``guard:<name>`` for each guard the recipe sets (see agentci/verify/cases.py).

Text that is not valid in XML (control characters, lone surrogates) is removed, so the file always
parses, whatever the model or the tools printed.
"""

from __future__ import annotations

import re
from pathlib import Path

from junitparser import Attr, Error, Failure, JUnitXml, Skipped, TestCase, TestSuite

from agentci.outcome import Status, is_retryable
from agentci.reports.atomic import write_text_atomic
from agentci.reports.report import RunReport, TaskReport


class _Case(TestCase):
    """A testcase with the ``status`` attribute test reporters show next to the result."""

    status = Attr()


class _Suite(TestSuite):
    """A testsuite with the run's ``id``."""

    id = Attr()


ERROR_STATUSES = frozenset(
    {
        Status.provider_error,
        Status.provider_unavailable,
        Status.internal_error,
        Status.invalid_input,
        Status.cancelled,
    }
)

_INVALID_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_MAX_TEXT = 64_000


def xml_safe(text: object) -> str:
    """``text`` as a string that is valid inside XML (and not absurdly long)."""
    s = _INVALID_XML.sub("", "" if text is None else str(text))
    if len(s) > _MAX_TEXT:
        s = s[:_MAX_TEXT] + f"\n… [{len(s) - _MAX_TEXT} characters cut]"
    return s


def suite_name(run: RunReport, task: TaskReport) -> str:
    """``recipe`` for a one-task recipe, ``recipe/task`` otherwise."""
    base = run.recipe_name or "agentci"
    return base if len(run.tasks) == 1 else f"{base}/{task.name}"


def _status(task: TaskReport) -> str:
    return task.status.value if isinstance(task.status, Status) else str(task.status)


def _case(name: str, classname: str, status: str | None, time: float | None = None) -> _Case:
    case = _Case(name, classname=classname, time=time)
    if status:
        case.status = status
    return case


def _result(kind: type[Failure] | type[Error], message: str, text: str | None, type_: str | None):
    result = kind(message, type_)
    if text:
        result.text = text
    return result


def _agent_case(name: str, task: TaskReport) -> _Case:
    case = _case("agent", name, _status(task), task.duration_ms / 1000.0)
    if task.summary and xml_safe(task.summary):
        case.system_out = xml_safe(task.summary)
    if task.exit_code != 0:
        message = xml_safe(f"{_status(task)}: {task.reason}" if task.reason else _status(task))
        if is_retryable(task.status):
            message += f" (retryable, exit {task.exit_code}: run it again later)"
        kind = Error if task.status in ERROR_STATUSES else Failure
        case.result = [_result(kind, message, message, _status(task))]
    return case


def _verify_cases(name: str, task: TaskReport) -> list[_Case]:
    """``verify:<id>`` and ``guard:<name>`` cases (what they hold: agentci/verify/cases.py)."""
    from agentci.verify.cases import guard_cases, verify_cases

    cases = []
    for info in [*verify_cases(task), *guard_cases(task)]:
        case = _case(xml_safe(info.name), name, xml_safe(info.status) or None)
        msg = xml_safe(info.message)
        if info.outcome == "failed":
            case.result = [_result(Failure, msg or "failed", msg or None, None)]
        elif info.outcome == "error":
            case.result = [_result(Error, msg or "error", msg or None, None)]
        elif info.outcome == "skipped":
            case.result = [Skipped(msg or "skipped")]
        elif msg:
            case.system_out = msg
        cases.append(case)
    return cases


def _suite(name: str, cases: list[_Case], run_id: str | None = None) -> _Suite:
    suite = _Suite(name)
    if run_id:
        suite.id = run_id
    for case in cases:
        suite.add_testcase(case)
    suite.update_statistics()
    return suite


def render_junit(run: RunReport) -> str:
    """The JUnit XML document for ``run`` (junitparser writes it; it reads verify's reports)."""
    xml = JUnitXml()
    for task in run.tasks:
        name = xml_safe(suite_name(run, task))
        cases = [_agent_case(name, task), *_verify_cases(name, task)]
        xml.add_testsuite(_suite(name, cases, xml_safe(run.run_id)))
    if not run.tasks:  # a run that ended before any task (e.g. invalid input)
        name = xml_safe(run.recipe_name or "agentci")
        task = TaskReport(
            name="agent", status=run.status, exit_code=run.exit_code, reason=run.reason
        )
        xml.add_testsuite(_suite(name, [_agent_case(name, task)]))
    xml.update_statistics()
    return junit_text(xml)


def junit_text(xml: JUnitXml) -> str:
    """``xml`` as an indented document (tabs), one element per line and no blank line: the
    indentation a parsed report brings along is replaced, not added to (``report merge``
    re-reads each task's junit.xml). Text inside an element (a failure's message) is kept as is."""
    from xml.etree import ElementTree

    root = ElementTree.fromstring(xml.tostring())
    ElementTree.indent(root, space="\t")
    body = ElementTree.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="utf-8"?>\n{body}\n'


def write_junit(path: Path, run: RunReport) -> None:
    """Write ``junit.xml`` for ``run`` atomically."""
    write_text_atomic(Path(path), render_junit(run))
