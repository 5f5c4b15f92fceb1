"""Write every output file of a run (docs/outputs.md), redacted, atomically, without ever raising.

Layout of ``out_dir``::

    events.jsonl   (written by the event sink, not here)
    patch.diff     one task: its patch (empty file when nothing changed)
    tasks/<name>/patch.diff   several tasks: one patch per task instead
    history.jsonl  the conversation, one message a line (tasks/<name>/ with several tasks)
    junit.xml  result.json  summary.md  report.html
    sarif.json     when verify reported failures at places of the workspace

Everything passes through the :class:`~agentci.reports.redact.Redactor` first — the report's
strings (so secrets are caught before XML/JSON escaping could hide them) and each file's final
text. A patch is redacted in its added lines only (:meth:`Redactor.redact_patch`), so it still
applies; the task has already masked them and said so (``patch_redacted``). A writer that fails for any reason is logged and replaced by a
minimal file, and the other outputs are still written.

The runner calls it in a child process (agentci.reports.child), so a signal is handled while a
large patch is redacted.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import xml.etree.ElementTree as ET
from collections.abc import Callable
from html import escape
from pathlib import Path

from agentci import jsontext
from agentci.events.sinks import tell
from agentci.outcome import Status
from agentci.reports.atomic import replace_text_atomic
from agentci.reports.folders import task_dir_name
from agentci.reports.junit import render_junit
from agentci.reports.outdir import release_reserve
from agentci.reports.redact import Redactor
from agentci.reports.redact_report import PatchRedactor, redact_report
from agentci.reports.report import RunReport
from agentci.reports.result import dumps, result_dict, run_output
from agentci.reports.sarif import has_locations, render_sarif
from agentci.reports.summary import render_summary

log = logging.getLogger("agentci.reports")

#: The outputs a run writes only when asked (all of them unless the command says otherwise:
#: ``agentci pre-commit`` writes neither).
OPTIONAL_OUTPUTS = frozenset({"report.html", "sarif.json"})

#: The reason of a run whose outputs could not all be written (``internal_error``, 70).
UNWRITTEN = "writing outputs failed: "


def _safely(
    what: str,
    path: Path,
    render: Callable[[], str],
    fallback: str,
    rd: Redactor | PatchRedactor,
    check: Callable[[str], object] | None = None,
    keep_bytes: bool = False,
) -> str | None:
    """Render, redact the final text, write atomically; fall back instead of raising.
    Returns None, or what could not be written at all (a file system problem).

    ``check`` parses the result (JSON, XML): if the final redaction pass broke the syntax (a
    secret value that looks like markup), the text redacted at the data level is written instead.
    """
    try:
        raw = render()
        text = rd.redact(raw)
        if check is not None and text != raw:
            try:
                check(text)
            except Exception:
                text = raw
    except Exception as exc:  # never let one odd output stop the others
        log.exception("could not render %s", what)
        _warn(f"agentci: could not write {what} ({type(exc).__name__}); writing a minimal file")
        text = fallback
    try:
        replace_text_atomic(path, text, keep_bytes=keep_bytes)
    except OSError as exc:  # a full disk, a lost mount: the message says it all
        _warn(f"agentci: could not write {path}: {exc}")
        return f"{path}: {exc}"
    except Exception as exc:
        log.exception("could not write %s", path)
        _warn(f"agentci: could not write {path}: {exc}")
        return f"{path}: {exc}"
    return None


def _warn(line: str) -> None:
    tell(line)


def write_outputs(
    out_dir: Path,
    run: RunReport,
    patches: dict[str, str] | None,
    redactor: Redactor,
    *,
    step_summary: bool = True,
    optional: frozenset[str] = OPTIONAL_OUTPUTS,
) -> list[str]:
    """Write patch(es), junit.xml, result.json, output.json (when a task handed in a
    structured answer), summary.md and report.html into ``out_dir`` (report.html reads the
    events already in ``out_dir/events.jsonl``). Never raises; returns the files that could not
    be written (empty when all were). A patch that could not be written makes result.json and
    summary.md say ``internal_error`` (70), as the runner then does. ``patches=None`` leaves
    the patch files as they are; ``step_summary=False`` does not append to
    ``$GITHUB_STEP_SUMMARY`` (a rewrite). ``optional`` names the :data:`OPTIONAL_OUTPUTS`
    to write (report.html is neither rendered nor its modules imported when it is left out)."""
    out_dir = Path(out_dir)
    failed: list[str | None] = []
    release_reserve(out_dir)  # the space kept for these files
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        safe_run = redact_report(run, redactor)
    except Exception as exc:
        log.exception("could not prepare outputs")
        _warn(f"agentci: could not prepare outputs in {out_dir}: {exc}")
        safe_run = dataclasses.replace(run, tasks=[], reason=redactor.redact(str(run.reason)))

    prd = PatchRedactor(redactor)
    names = [t.name for t in run.tasks] or list(patches or {})
    if patches is None:
        pass
    elif len(names) <= 1:
        patch = patches.get(names[0], "") if names else ""
        failed.append(
            _safely("patch.diff", out_dir / "patch.diff", lambda: patch, "", prd, keep_bytes=True)
        )
    else:
        for name in names:
            target = out_dir / "tasks" / task_dir_name(name) / "patch.diff"
            text = patches.get(name, "")
            failed.append(
                _safely(
                    f"patch.diff of {name}",
                    target,
                    functools.partial(str, text),
                    "",
                    prd,
                    keep_bytes=True,
                )  # fmt: skip
            )

    lost = [f for f in failed if f]
    if lost:  # no output may say success when the patch is missing: the runner says the same
        reason = unwritten_reason(run.status, run.reason, lost)
        run = dataclasses.replace(run, status=Status.internal_error, exit_code=70, reason=reason)
        safe_run = dataclasses.replace(safe_run, status=Status.internal_error, exit_code=70,
                                       reason=redactor.redact(reason))  # fmt: skip
    status = getattr(run.status, "value", str(run.status))
    minimal_xml = (
        '<?xml version="1.0" encoding="utf-8"?>\n<testsuites><testsuite name="agentci" tests="1">'
        f'<testcase name="agent"><error type="{status}" message="{status}"/></testcase>'
        "</testsuite></testsuites>\n"
    )
    if run.exit_code == 0:
        minimal_xml = minimal_xml.replace(f'<error type="{status}" message="{status}"/>', "")
    failed.append(
        _safely(
            "junit.xml",
            out_dir / "junit.xml",
            lambda: render_junit(safe_run),
            minimal_xml,
            redactor,
            lambda t: ET.fromstring(t.encode("utf-8")),
        )
    )
    minimal_json = dumps({"status": status, "exit_code": run.exit_code, "run_id": run.run_id})
    failed.append(
        _safely(
            "result.json",
            out_dir / "result.json",
            lambda: dumps(redactor.redact_json(result_dict(safe_run))),
            minimal_json,
            redactor,
            json.loads,
        )
    )
    output = run_output(safe_run)
    if output is not None:  # the structured answer(s), valid against output.schema
        failed.append(
            _safely(
                "output.json",
                out_dir / "output.json",
                lambda: dumps(redactor.redact_json(output)),
                "null\n",
                redactor,
                json.loads,
            )
        )
    minimal_md = f"## agentci\n\nstatus `{status}`, exit code {run.exit_code}\n"
    failed.append(
        _safely(
            "summary.md",
            out_dir / "summary.md",
            lambda: render_summary(safe_run),
            minimal_md,
            redactor,
        )
    )
    if "report.html" in optional:
        failed.append(
            _safely(
                "report.html",
                out_dir / "report.html",
                lambda: _report_html(out_dir, safe_run, patches, redactor),
                _minimal_html(status, run.exit_code),
                redactor,
            )
        )
    if "sarif.json" in optional and has_locations(safe_run):
        failed.append(
            _safely(
                "sarif.json",
                out_dir / "sarif.json",
                lambda: render_sarif(safe_run),
                '{"version": "2.1.0", "runs": []}\n',
                redactor,
                json.loads,
            )
        )
    # Last: a long conversation must not take the space kept for the small files above.
    failed += _write_histories(out_dir, run, redactor)
    if step_summary:
        _append_step_summary(out_dir / "summary.md")
    return [f for f in failed if f]


def unwritten_reason(status: object, reason: str | None, lost: list[str]) -> str:
    """The reason of a run some of whose outputs could not be written. A run that had already
    failed inside agentci (``internal_error``, e.g. its log filled the disk) keeps that first
    cause in front."""
    text = UNWRITTEN + "; ".join(lost)
    if status == Status.internal_error and reason and not reason.startswith(UNWRITTEN):
        return f"{reason}; {text}"
    return text


def _write_histories(out_dir: Path, run: RunReport, redactor: Redactor) -> list[str | None]:
    """Each task's ``history.jsonl`` (one message a line, every string redacted)."""
    failed: list[str | None] = []
    several = len(run.tasks) > 1
    for task in run.tasks:
        if task.history is None:
            continue
        folder = out_dir / "tasks" / task_dir_name(task.name) if several else out_dir
        lines = task.history

        def render(lines: list[dict[str, object]] = lines) -> str:
            return "".join(jsontext.dumps(redactor.redact_obj(m)) + "\n" for m in lines)

        failed.append(
            _safely(
                f"history.jsonl of {task.name}",
                folder / "history.jsonl",
                render,
                "",
                redactor,
                _jsonl,
            )  # fmt: skip
        )
    return failed


def _jsonl(text: str) -> None:
    for line in text.splitlines():
        json.loads(line)


def _report_html(
    out_dir: Path, run: RunReport, patches: dict[str, str] | None, redactor: Redactor
) -> str:
    # deferred: the page's renderer (jinja2 templates, markdown-it) loads only when it is written
    from agentci.reports.html_report import render_run_html

    return render_run_html(out_dir, run, patches, redactor)


def _minimal_html(status: str, exit_code: int) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>agentci</title>'
        f"</head><body><h1>agentci</h1><p>status {escape(status)}, exit code {exit_code}</p>"
        "<p>The full report could not be written; see events.jsonl.</p></body></html>\n"
    )


def _append_step_summary(summary: Path) -> None:
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    try:
        text = summary.read_text(encoding="utf-8", errors="replace")
        with open(target, "a", encoding="utf-8", errors="replace") as fh:
            fh.write(text + "\n")
    except Exception as exc:
        _warn(f"agentci: could not append to GITHUB_STEP_SUMMARY: {exc}")
