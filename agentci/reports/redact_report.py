"""A run's report with every string redacted before it is rendered (:func:`redact_report`),
and the redactor for patch text (added lines only)."""

from __future__ import annotations

import dataclasses

from agentci.events.verify_events import VerifyResult
from agentci.reports.redact import Redactor
from agentci.reports.report import RunReport, TaskReport


def _redacted_verify(result: VerifyResult, redactor: Redactor) -> VerifyResult:
    """``result`` with every string redacted: itself when its JSON text holds no secret's
    anchor (one scan of the text, however many tests it lists), else a redacted copy."""
    data = result.model_dump()
    safe = redactor.redact_json(data)
    return result if safe is data else VerifyResult.model_validate(safe)


def redact_report(run: RunReport, redactor: Redactor) -> RunReport:
    """A copy of ``run`` with every string redacted. The large parts (the verify runs with
    their tests, ``extra`` with the per-test changes) are scanned once as JSON text and walked
    string by string only when a secret's anchor is in them (:meth:`Redactor.redact_json`);
    a part with nothing to mask is shared with ``run``, not copied."""
    r = redactor.redact

    def task(t: TaskReport) -> TaskReport:
        return dataclasses.replace(
            t, name=r(t.name), reason=r(t.reason), summary=r(t.summary), model=r(t.model),
            changed_files=[r(f) for f in t.changed_files],
            verify=[_redacted_verify(v, redactor) for v in t.verify],
            extra=redactor.redact_json(t.extra), output=redactor.redact_json(t.output),
            context_files=redactor.redact_json(t.context_files),
        )  # fmt: skip

    return dataclasses.replace(
        run, run_id=r(run.run_id), recipe=r(run.recipe), recipe_name=r(run.recipe_name),
        reason=r(run.reason), tasks=[task(t) for t in run.tasks],
    )  # fmt: skip


class PatchRedactor:
    """A redactor for patch text: added lines only."""

    def __init__(self, rd: Redactor) -> None:
        self._rd = rd

    def redact(self, text: str) -> str:
        return self._rd.redact_patch(text)[0]
