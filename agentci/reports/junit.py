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
* testcase ``guard:<name>`` for each guard the recipe sets (see agentci/reports/junit_cases.py).

Text that is not valid in XML (control characters, lone surrogates) is removed, so the file always
parses, whatever the model or the tools printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from agentci.outcome import Status, is_retryable
from agentci.reports.atomic import write_text_atomic
from agentci.reports.junit_cases import guard_cases, verify_cases
from agentci.reports.report import RunReport, TaskReport

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


@dataclass
class _Case:
    """One ``<testcase>``: its outcome element (failure, error, skipped) and system-out."""

    name: str
    classname: str
    status: str | None = None
    time: float | None = None
    result: tuple[str, str, str | None, str | None] | None = None  # tag, message, text, type
    system_out: str | None = None

    @property
    def outcome(self) -> str:
        return self.result[0] if self.result else "passed"

    def element(self) -> ET.Element:
        attrs = {"name": self.name, "classname": self.classname}
        if self.time is not None:
            attrs["time"] = repr(float(self.time))
        if self.status:
            attrs["status"] = self.status
        case = ET.Element("testcase", attrs)
        if self.result is not None:
            tag, message, text, type_ = self.result
            result = ET.SubElement(case, tag, {"message": message})
            if type_:
                result.set("type", type_)
            result.text = text or None
        if self.system_out:
            ET.SubElement(case, "system-out").text = self.system_out
        return case


def _agent_case(name: str, task: TaskReport) -> _Case:
    case = _Case("agent", name, _status(task), task.duration_ms / 1000.0)
    if task.summary and xml_safe(task.summary):
        case.system_out = xml_safe(task.summary)
    if task.exit_code != 0:
        message = xml_safe(f"{_status(task)}: {task.reason}" if task.reason else _status(task))
        if is_retryable(task.status):
            message += f" (retryable, exit {task.exit_code}: run it again later)"
        tag = "error" if task.status in ERROR_STATUSES else "failure"
        case.result = (tag, message, message, _status(task))
    return case


def _verify_cases(name: str, task: TaskReport) -> list[_Case]:
    """``verify:<id>`` and ``guard:<name>`` cases (what they hold: agentci/reports/junit_cases.py)."""
    cases = []
    for info in [*verify_cases(task), *guard_cases(task)]:
        case = _Case(xml_safe(info.name), name, xml_safe(info.status) or None)
        msg = xml_safe(info.message)
        if info.outcome == "failed":
            case.result = ("failure", msg or "failed", msg or None, None)
        elif info.outcome == "error":
            case.result = ("error", msg or "error", msg or None, None)
        elif info.outcome == "skipped":
            case.result = ("skipped", msg or "skipped", None, None)
        elif msg:
            case.system_out = msg
        cases.append(case)
    return cases


#: The counts on ``<testsuite>`` and ``<testsuites>``, in the order test reporters print them.
COUNTS = ("tests", "errors", "failures", "skipped")


def _suite(root: ET.Element, name: str, cases: list[_Case], run_id: str | None = None) -> None:
    """Append one ``<testsuite>`` to ``root``: the cases in one pass, counted once."""
    outcomes = [case.outcome for case in cases]
    counts = [len(cases), outcomes.count("error"), outcomes.count("failure")]
    counts.append(outcomes.count("skipped"))
    attrs = {"name": name} | ({"id": run_id} if run_id else {})
    attrs |= {key: str(n) for key, n in zip(COUNTS, counts, strict=True)}
    attrs["time"] = repr(sum(case.time or 0.0 for case in cases))
    suite = ET.SubElement(root, "testsuite", attrs)
    suite.extend(case.element() for case in cases)


def render_junit(run: RunReport) -> str:
    """The JUnit XML document for ``run``, built in one pass (linear in the number of tests)."""
    root = ET.Element("testsuites")
    for task in run.tasks:
        name = xml_safe(suite_name(run, task))
        cases = [_agent_case(name, task), *_verify_cases(name, task)]
        _suite(root, name, cases, xml_safe(run.run_id))
    if not run.tasks:  # a run that ended before any task (e.g. invalid input)
        name = xml_safe(run.recipe_name or "agentci")
        task = TaskReport(
            name="agent", status=run.status, exit_code=run.exit_code, reason=run.reason
        )
        _suite(root, name, [_agent_case(name, task)])
    return junit_text(root)


def junit_text(root: ET.Element) -> str:
    """``root`` (a ``<testsuites>`` element) as a document with its suites' totals on it,
    indented with tabs, one element per line and no blank line. The indentation a parsed
    report brings along is replaced, not added to (``report merge`` re-reads each task's
    junit.xml); text inside an element (a failure's message) is kept as is."""
    totals = dict.fromkeys(COUNTS, 0)
    time = 0.0
    for suite in root.iter("testsuite"):
        for key in COUNTS:
            totals[key] += int(suite.get(key) or 0)
        time += float(suite.get("time") or 0)
    root.attrib.update({key: str(n) for key, n in totals.items()} | {"time": repr(time)})
    ET.indent(root, space="\t")
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="utf-8"?>\n{body}\n'


def write_junit(path: Path, run: RunReport) -> None:
    """Write ``junit.xml`` for ``run`` atomically."""
    write_text_atomic(Path(path), render_junit(run))
