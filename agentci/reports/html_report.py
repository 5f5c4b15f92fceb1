"""report.html: one self-contained page to look at a run (docs/outputs.md).

The page reads in the order a reviewer asks: what happened — the outcome with the numbers that
matter (turns, tool calls and how many the policy denied, tokens, the cost, marked simulated
for a scripted or replayed model), a line with each verify run, the tests it fixed or broke and
the guards, then the model's final message (rendered markdown, :mod:`.report_markdown`) beside
the diff; then the details: the verify table (an attempt a guard used up has its row,
:mod:`.report_verify`), the guards, a chart of tokens and cost per turn, and the timeline of the
events folded by turn (a ``<details>`` per turn, whose line names its tool calls, denials and
what went wrong). It loads nothing: inline CSS, an inline SVG chart, no script, and a
Content-Security-Policy that forbids every fetch.

Everything in it is untrusted (the model's words, tool output, the repository's files), so the
template is rendered with autoescaping on. Its sources are redacted (events.jsonl as written,
the writer's redacted report; the diff's shown lines and the final message here) and the writer
redacts the final page once more. Escaping could hide a secret from that last pass only when the
secret holds a character escaping changes (``&<>"'``): then every value is also redacted before
it is escaped (jinja2's ``finalize``) — a pass that is skipped otherwise, as it doubles the
writer's time. The work is bounded for huge runs: the event log is read up to
:data:`MAX_LOG_BYTES`, the timeline keeps at most ``timeline.MAX_ITEMS`` items, the diff at most
:data:`MAX_DIFF_LINES` lines and the message :data:`MAX_MESSAGE` characters, each cut saying so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

from agentci.events import types as ev
from agentci.events.read import AnyEvent, EventLog, read_events
from agentci.reports.chart import Chart, build_chart
from agentci.reports.folders import task_dir_name
from agentci.reports.page_template import VALUE_REDACT, page_template
from agentci.reports.redact import Redactor
from agentci.reports.report import RunReport, TaskReport
from agentci.reports.report_markdown import markdown_html
from agentci.reports.report_verify import VerifyRow, verify_rows
from agentci.reports.result import changed_files, run_usage
from agentci.reports.timeline import Timeline, build_timeline, cut, turn_usage

MAX_LOG_BYTES = 32 * 1024 * 1024
MAX_DIFF_LINES = 3000
MAX_DIFF_LINE = 500
MAX_FILES = 200
MAX_MESSAGE = 20_000  # characters of the final message shown (result.json has it whole)

_TEST_GROUPS = (
    ("fixed", "Fixed", "ok"),
    ("regressed", "Regressed", "bad"),
    ("still_failing", "Still failing", "bad"),
    ("added_failing", "New and failing", "bad"),
    ("flaky", "Flaky (failed, then passed on a rerun)", "warn"),
    ("removed", "No longer run", "warn"),
)


@dataclass
class DiffView:
    lines: list[tuple[str, str]] = field(default_factory=list)  # (css class, text)
    omitted_lines: int = 0


@dataclass
class TaskView:
    report: TaskReport
    status: str
    tone: str
    timeline: Timeline
    chart: Chart | None
    test_groups: list[tuple[str, str, list[str]]]
    guards: list[dict[str, Any]]
    weakened: dict[str, Any] | None  # extra.weakened_tests: findings, files set aside
    diff: DiffView | None
    files: list[str]
    verify: list[VerifyRow]
    message: Markup | None  # the final message, rendered
    output: str | None  # the structured answer, as JSON
    denied: int  # tool calls the policy denied
    simulated: bool  # a scripted or replayed model: its cost was billed to nobody


def simulated_model(model: str) -> bool:
    """Whether ``model`` is a scripted or replayed one, whose cost (when the recipe gives a
    price) is what the recorded usage would have cost live: simulated, billed to nobody."""
    return model.startswith(("replay:", "scripted:"))


def _status(value: object) -> str:
    return getattr(value, "value", None) or str(value)


def tone_of(status: str, exit_code: int) -> str:
    """``ok`` for exit 0, ``warn`` for a stop that is not a failure of the work, else ``bad``."""
    if exit_code == 0:
        return "ok"
    stops = ("no_changes", "budget_exhausted", "cancelled", "provider_unavailable")
    return "warn" if status in stops else "bad"


def _diff_class(line: str) -> str:
    if line.startswith("diff --git"):
        return "file"
    if line.startswith(_META):
        return "meta"
    if line.startswith("@@"):
        return "hunk"
    return {"+": "add", "-": "del"}.get(line[:1], "ctx")


_META = ("+++", "---", "index ", "new file", "deleted file", "old mode", "new mode",
         "similarity", "rename ", "Binary files", "GIT binary patch")  # fmt: skip


def diff_view(patch: str, redact: Callable[[str], str]) -> DiffView:
    """The first :data:`MAX_DIFF_LINES` lines of ``patch``, each with its CSS class, and the
    number of lines left out (counted, not split: a huge patch costs one pass). ``redact`` is
    applied to the lines shown as one text, so a secret spanning lines (a PEM key) is masked
    whole — every line of it, context and removed lines too: this page is not for ``git apply``."""
    view = DiffView()
    pos = 0
    for _ in range(MAX_DIFF_LINES):
        if pos >= len(patch):
            break
        end = patch.find("\n", pos)
        pos = len(patch) if end < 0 else end + 1
    if pos < len(patch):
        view.omitted_lines = patch.count("\n", pos) + (0 if patch.endswith("\n") else 1)
    for line in redact(patch[:pos]).splitlines():
        view.lines.append((_diff_class(line), cut(line, MAX_DIFF_LINE)))
    return view


def _test_groups(task: TaskReport) -> list[tuple[str, str, list[str]]]:
    verify = task.extra.get("verify") if isinstance(task.extra, dict) else None
    if not isinstance(verify, dict):
        attempts = [v for v in task.verify if v.phase == "attempt"]
        verify = attempts[-1].changes if attempts else {}
    groups = []
    for key, title, tone in _TEST_GROUPS:
        ids = verify.get(key) or []
        if isinstance(ids, list) and ids:
            groups.append((title, tone, [str(i) for i in ids]))
    return groups


def _weakened(task: TaskReport) -> dict[str, Any] | None:
    """``extra.weakened_tests`` when it has something to show (findings or files set aside)."""
    data = task.extra.get("weakened_tests") if isinstance(task.extra, dict) else None
    if not isinstance(data, dict):
        return None
    findings = [f for f in data.get("findings") or [] if isinstance(f, dict)]
    aside = [str(p) for p in data.get("set_aside") or []]
    if not findings and not aside:
        return None
    return {"mode": str(data.get("mode", "")), "findings": findings, "set_aside": aside}


def _task_view(
    task: TaskReport, events: list[AnyEvent], patch: str | None, redactor: Redactor
) -> TaskView:
    status = _status(task.status)
    guards = task.extra.get("guards") if isinstance(task.extra, dict) else None
    models = [task.model] + [e.model for e in events if isinstance(e, ev.TaskStarted)]
    summary = task.summary.strip()
    return TaskView(
        report=task,
        status=status,
        tone=tone_of(status, task.exit_code),
        timeline=build_timeline(events),
        chart=build_chart(turn_usage(events)),
        test_groups=_test_groups(task),
        guards=[g for g in guards or [] if isinstance(g, dict)],
        weakened=_weakened(task),
        diff=diff_view(patch, redactor.redact) if patch is not None else None,
        files=sorted(task.changed_files),
        verify=verify_rows(task, events),
        message=markdown_html(redactor.redact(cut(summary, MAX_MESSAGE))) if summary else None,
        output=None if task.output is None else cut(json.dumps(task.output, indent=1)),
        denied=sum(isinstance(e, ev.ToolCallDecision) and e.decision == "deny" for e in events),
        simulated=any(simulated_model(m) for m in models if m),
    )


#: What HTML escaping changes. A secret without these characters reads the same in the
#: escaped page, where the final redaction pass masks it; one with them is masked value by value.
_MARKUP = frozenset("&<>\"'")


def warm_up() -> None:
    """Load what rendering the page takes (the compiled template, the markdown renderer), so
    that a run can do it while it waits for the model rather than after its last answer."""
    page_template()
    markdown_html("")


def render_report_html(
    run: RunReport, log: EventLog, *, patch: dict[str, str] | None, redactor: Redactor
) -> str:
    """The page for ``run`` (its events in ``log``; ``patch``: task name → patch text, None when
    not known). The caller redacts the page (the writer's final pass); values are redacted
    before they are escaped too when a secret holds a character escaping changes."""
    by_task: dict[str, list[AnyEvent]] = {}
    run_events: list[AnyEvent] = []
    version = ""
    for event in log.events:
        if isinstance(event, ev.RunStarted):
            version = event.agentci_version
        name = event.task
        (by_task.setdefault(name, []) if name else run_events).append(event)
    patches = patch or {}
    one = len(run.tasks) == 1
    tasks = [
        _task_view(
            t,
            by_task.get(t.name, []),
            patches.get(t.name, patches.get("") if one else None) if patch is not None else None,
            redactor,
        )
        for t in run.tasks
    ]
    status = _status(run.status)
    usage = run_usage(run)
    files = changed_files(run)
    run_items = [e for e in run_events if not isinstance(e, ev.RunStarted | ev.RunFinished)]
    markup = any(_MARKUP.intersection(value) for value in redactor.values)
    token = VALUE_REDACT.set(redactor.redact if markup else None)
    try:
        page = page_template().render(
            run=run,
            status=status,
            tone=tone_of(status, run.exit_code),
            usage=usage,
            files=files[:MAX_FILES],
            more_files=max(len(files) - MAX_FILES, 0),
            tasks=tasks,
            turns=sum(t.report.turns for t in tasks),
            tool_calls=sum(t.report.tool_calls for t in tasks),
            denied=sum(t.denied for t in tasks),
            simulated=any(t.simulated for t in tasks),
            run_timeline=build_timeline(run_items) if run_items else None,
            version=version,
            log=log,
            max_files=MAX_FILES,
        )
    finally:
        VALUE_REDACT.reset(token)
    return page


def render_run_html(
    out_dir: Path, run: RunReport, patches: dict[str, str] | None, redactor: Redactor
) -> str:
    """report.html for the output writer: the events are read from ``out_dir/events.jsonl``
    (``run_finished`` is not there yet: the outcome comes from ``run``); ``patches=None``
    reads the patch files already written."""
    try:
        log = read_events(out_dir / "events.jsonl", max_bytes=MAX_LOG_BYTES)
    except OSError:
        log = EventLog()
    if patches is None:
        patches = patches_on_disk(out_dir, [t.name for t in run.tasks])
    return render_report_html(run, log, patch=patches, redactor=redactor)


def patches_on_disk(folder: Path, names: list[str]) -> dict[str, str]:
    """The patch files of a run's output folder that exist, by task name (one task: its
    ``patch.diff``; several: ``tasks/<name>/patch.diff``)."""
    if len(names) <= 1:
        places = {names[0] if names else "": folder / "patch.diff"}
    else:
        places = {n: folder / "tasks" / task_dir_name(n) / "patch.diff" for n in names}
    found: dict[str, str] = {}
    for name, place in places.items():
        try:
            found[name] = place.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return found
