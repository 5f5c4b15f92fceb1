"""No progress: two verify attempts in a row that fail the same way end the task early.

After a failing attempt the failures go back to the model; when the next attempt fails with
exactly the same failures — the same test ids with the same outcomes and messages — the model
is not getting anywhere, and the remaining attempts would only spend tokens. The task then
ends ``verify_failed`` with reason ``no_progress`` (``loop_detected`` event, kind
``no_progress``), and the attempts left are not used (``loop_detection.no_progress: false``
turns this off).

What "the same" means:

* with per-test results (JUnit): the set of failing tests, each with its outcome and message;
* without (only an exit code and output): the exit code, whether it timed out, and the end of
  the output.

Parts that change from run to run without meaning anything are masked first, and only
those: the test run's duration (``in 0.03s``), object addresses (``0x7f3a…``) and pytest's
numbered temporary folders (``pytest-of-root/pytest-12``). Anything else that differs
means the attempt changed something, and the task goes on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentci.verify.run import VerifyRun

OUTPUT_TAIL = 4_000

_VOLATILE = [
    (re.compile(r"0x[0-9a-fA-F]{4,}"), "0x…"),  # object addresses in reprs
    (re.compile(r"\bin \d+(\.\d+)?s\b( \(\d+:\d\d:\d\d\))?"), "in …s"),  # "1 failed in 0.03s"
    (re.compile(r"pytest-(of-[\w.-]+/pytest-)?\d+"), "pytest-…"),  # tmp_path's numbered root
]


def normalize(text: str) -> str:
    """``text`` with run-to-run noise masked (see the module docstring)."""
    for pattern, repl in _VOLATILE:
        text = pattern.sub(repl, text)
    return text.strip()


def failure_signature(run: VerifyRun) -> frozenset[tuple[str, str, str]] | None:
    """What a failing run failed with (None when it passed)."""
    if run.passed:
        return None
    bad = [t for t in run.tests.values() if t.bad]
    if bad:
        return frozenset((t.id, t.outcome, normalize(t.message)) for t in bad)
    output = normalize(run.output[-OUTPUT_TAIL:])
    return frozenset({("", f"exit {run.exit_code} timed_out={run.timed_out}", output)})


@dataclass
class ProgressWatch:
    """Compares each verify attempt with the one before it."""

    enabled: bool = True
    _last: frozenset[tuple[str, str, str]] | None = None

    def observe(self, run: VerifyRun) -> str | None:
        """Record an attempt; the reason to stop when it failed exactly like the previous one."""
        signature = failure_signature(run)
        same = self.enabled and signature is not None and signature == self._last
        self._last = signature
        if not same:
            return None
        failing = run.failing
        if failing:
            shown = ", ".join(failing[:10]) + (" …" if len(failing) > 10 else "")
            what = f"{len(failing)} failing: {shown}"
        else:
            what = "timed out" if run.timed_out else f"exit code {run.exit_code}, same output"
        return f"no_progress: verify failed the same way twice in a row ({what})"
