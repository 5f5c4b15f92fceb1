"""A finished run's :class:`RunReport`, rebuilt from its events (``agentci replay``).

The outputs of a run are written from the report the runner holds; a replay only has
``events.jsonl``. The events say almost everything: the run and task outcomes
(``run_finished``, ``task_finished``), the model's last message (the task's last ``content``),
the verify runs and what they changed test by test, what the hooks decided (``hook_result``).
What only result.json holds — the guards, the patch facts — is taken from a ``result.json`` of
the same run when one is given.

A log without ``run_finished`` (the process was killed, or still runs) has no outcome to show:
it becomes ``internal_error`` (70) with a reason that says the log ends early, and so does each
task without ``task_finished``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentci.events import types as ev
from agentci.events.read import AnyEvent
from agentci.outcome import Status
from agentci.reports.hook_facts import hook_facts
from agentci.reports.report import RunReport, TaskReport
from agentci.usage import total

UNFINISHED = "events.jsonl ends before run_finished: the run was killed or is still running"


def _status(value: str) -> Status:
    try:
        return Status(value)
    except ValueError:
        return Status.internal_error


class _TaskFacts:
    """What the events of one task say, gathered in order."""

    def __init__(self, name: str) -> None:
        self.report = TaskReport(name=name, status=Status.internal_error, exit_code=70)
        self.finished = False
        self.seen = False
        self.hooks: list[ev.HookResult] = []

    def add(self, event: ev.Event) -> None:
        t = self.report
        self.seen = True
        match event:
            case ev.TaskStarted():
                t.model = event.model
            case ev.ModelInfo():
                t.model = event.model
            case ev.Content() if event.text.strip():
                t.summary = event.text
            case ev.ToolCallRequest():
                t.tool_calls += 1
            case ev.TurnFinished():
                t.turns = max(t.turns, event.turn)
            case ev.Usage():
                t.usage = event.totals
            case ev.VerifyResult() if event.scope == "full":  # what junit.xml reports
                t.verify.append(event)
            case ev.HookResult():
                self.hooks.append(event)
            case ev.TaskFinished():
                self.finished = True
                t.status, t.exit_code = _status(event.status), event.exit_code
                t.reason, t.turns = event.reason, event.turns
                t.changed_files, t.usage = list(event.changed_files), event.usage


def _verify_extra(verify: list[ev.VerifyResult]) -> dict[str, Any]:
    """``extra["verify"]`` as result.json has it, from the last attempt's per-test changes."""
    attempts = [v for v in verify if v.phase == "attempt"]
    if not attempts:
        return {}
    last = attempts[-1]
    return {"verify": {"command": last.command, "passed": last.passed, **last.changes}}


def report_from_events(
    events: Iterable[AnyEvent], result: dict[str, Any] | None = None
) -> RunReport:
    """The run's report from its events; ``result`` (result.json, same ``run_id``) adds the
    tasks' ``extra`` (guards, patch facts) that events do not carry."""
    run = RunReport(run_id="", recipe="", recipe_name="", status=Status.internal_error,
                    exit_code=70)  # fmt: skip
    tasks: dict[str, _TaskFacts] = {}
    finished: ev.RunFinished | None = None
    for event in events:
        if not isinstance(event, ev.EventBase):
            continue
        run.run_id = run.run_id or event.run_id
        match event:
            case ev.RunStarted():
                run.recipe, run.recipe_name = event.recipe, event.recipe_name
                run.started_at = event.ts
                for name in event.tasks:
                    tasks.setdefault(name, _TaskFacts(name))
            case ev.RunFinished():
                finished = event
            case _ if event.task:
                tasks.setdefault(event.task, _TaskFacts(event.task)).add(event)
    started = [f for f in tasks.values() if f.seen]
    run.tasks = [f.report for f in started]
    for facts in started:
        if not facts.finished:
            facts.report.reason = facts.report.reason or UNFINISHED
        facts.report.extra = _verify_extra(facts.report.verify)
        if facts.hooks:
            facts.report.extra["hooks"] = hook_facts(facts.hooks)
    _add_result_extras(run, result)
    if finished is not None:
        run.status, run.exit_code = _status(finished.status), finished.exit_code
        run.reason, run.usage, run.duration_ms = (
            finished.reason,
            finished.usage,
            finished.duration_ms,
        )
    else:
        run.status, run.exit_code, run.reason = Status.internal_error, 70, UNFINISHED
        run.usage = total([t.usage for t in run.tasks])
    return run


def _add_result_extras(run: RunReport, result: dict[str, Any] | None) -> None:
    """Take each task's ``extra`` from result.json when it belongs to this run."""
    if not isinstance(result, dict) or result.get("run_id") != run.run_id:
        return
    by_name = {t.get("name"): t for t in result.get("tasks") or [] if isinstance(t, dict)}
    for task in run.tasks:
        extra = by_name.get(task.name, {}).get("extra")
        if isinstance(extra, dict):
            task.extra = extra
        duration = by_name.get(task.name, {}).get("duration_ms")
        if isinstance(duration, int):
            task.duration_ms = duration
