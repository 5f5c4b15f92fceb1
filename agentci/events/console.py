"""The console view: one short, readable line per event, on stderr.

Every line is neutralised before it is printed (:mod:`agentci.events.workflow_commands`):
in CI, text from the model, tools, tests or tool names must not be able to issue GitHub
workflow commands. Long texts are shortened to one line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TextIO

from agentci.events import types as ev
from agentci.events.annotations import LocationAnnotations
from agentci.events.diagnose import cannot_run
from agentci.events.workflow_commands import neutralise_workflow_commands
from agentci.outcome import is_retryable


def _short(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class ConsoleSink:
    """Prints the run as it happens: turns, tool calls, decisions, results, the outcome."""

    def __init__(
        self, stream: TextIO, *, sanitize: Callable[[str], str], verbose: bool = False
    ) -> None:
        self.stream = stream
        self.sanitize = sanitize
        self.verbose = verbose
        self._errors: list[str] = []  # error messages already shown, not to repeat as reasons

    def _new(self, reason: str) -> str:
        """`` — reason`` unless the reason repeats an error message already on the console."""
        if not reason or any(reason.endswith(message) for message in self._errors):
            return ""
        return f" — {reason}"

    def close(self) -> None:
        self.stream.flush()

    def _print(self, text: str) -> None:
        try:
            self.stream.write(neutralise_workflow_commands(self.sanitize(text)) + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass  # a closed console must not stop the run

    def write(self, event: ev.Event) -> None:  # noqa: C901 - one branch per event type
        line = self.format(event)
        if line is not None:
            self._print(line)

    def format(self, event: ev.Event) -> str | None:
        """The console line for ``event``, or None when it is not shown."""
        match event:
            case ev.RunStarted():
                return f"agentci {event.agentci_version}: {event.recipe_name} ({event.recipe})"
            case ev.TaskStarted():
                return f"▸ task {event.task}: model {event.model}, workspace {event.workspace}"
            case ev.TurnStarted():
                return f"  turn {event.turn}" if self.verbose else None
            case ev.Content():
                return f"  model: {_short(event.text, 300)}" if event.text.strip() else None
            case ev.Thought():
                return f"  thinking: {_short(event.text)}" if self.verbose else None
            case ev.ToolCallRequest():
                args = _short(json.dumps(event.args, ensure_ascii=False), 120)
                return f"  → {event.name} {args}"
            case ev.ToolCallDecision():
                if event.decision == "deny":
                    return f"  ✗ denied {event.name} ({event.rule}): {_short(event.reason)}"
                return f"    allowed by {event.rule}" if self.verbose else None
            case ev.ToolCallResponse():
                if not event.ok:
                    return f"  ← {event.name} error: {_short(event.error or '')}"
                code = f" exit {event.exit_code}" if event.exit_code is not None else ""
                return f"  ← {event.name}{code}: {_short(event.output, 100)}"
            case ev.HookResult():
                broken = event.exit_code not in (0, 2)  # timed out, killed or crashed
                if not (self.verbose or broken or event.decision != "continue"):
                    return None
                code = "no exit code" if event.exit_code is None else f"exit {event.exit_code}"
                why = event.reason or (event.output if broken else "")
                return f"  hook {event.hook} ({code}): {event.decision}" + (
                    f" — {_short(why)}" if why else ""
                )
            case ev.Retry():
                return f"  retry {event.attempt} in {event.delay_seconds:.1f}s: {event.reason}"
            case ev.ModelFallback():
                return f"  fallback {event.from_model} → {event.to_model}: {event.reason}"
            case ev.VerifyResult():
                state = "passed" if event.passed else "failed"
                counts = ", ".join(f"{v} {k}" for k, v in event.counts.items() if v)
                label = "baseline" if event.phase == "baseline" else f"attempt {event.attempt}"
                line = f"  verify ({label}) {state}" + (f": {counts}" if counts else "")
                if not event.passed and event.exit_code is not None:
                    line += f" (exit {event.exit_code})"
                reason = cannot_run(event.exit_code, event.output_tail)
                return line + (f"\n    {reason}" if reason else "")
            case ev.ChatCompressed():
                what = event.status.replace("_", " ")
                return (
                    f"  history {what}: about {event.tokens_before:,} → "
                    f"{event.tokens_after:,} tokens"
                )
            case ev.ContextWindowWillOverflow():
                return (
                    f"  context window: the next request (about {event.estimated_tokens:,} "
                    f"tokens) cannot fit {event.limit:,}; not sent"
                )
            case ev.BudgetExhaustedEvent():
                return f"  budget exhausted: {event.limit} ({event.used:g} of {event.cap:g})"
            case ev.LoopDetectedEvent():
                return f"  loop detected ({event.kind}): {_short(event.detail)}"
            case ev.InvalidStream():
                return f"  invalid model answer (attempt {event.attempt}): {event.reason}"
            case ev.AgentExecutionBlocked() | ev.AgentExecutionStopped():
                return f"  stopped: {event.reason}"
            case ev.Error():
                self._errors.append(event.message)
                return f"  {event.kind}: {_short(event.message, 300)}"
            case ev.WarningEvent():
                self._errors.append(event.message)
                return f"  warning {event.kind}: {_short(event.message, 300)}"
            case ev.UserCancelled():
                return f"  cancelled by {event.signal}"
            case ev.TaskFinished():
                files = len(event.changed_files)
                return (
                    f"■ task {event.task}: {event.status} (exit {event.exit_code}), "
                    f"{event.turns} turns, {files} file{'s' if files != 1 else ''} changed"
                    + self._new(event.reason or "")
                )
            case ev.RunFinished():
                cost = event.usage.cost_usd
                price = f", ${cost:.4f}" if cost is not None else ""
                return (
                    f"agentci: {event.status} (exit {event.exit_code}), "
                    f"{event.usage.total_tokens} tokens{price}" + self._new(event.reason or "")
                )
        return None


#: The warnings that become workflow annotations, with their titles.
ANNOTATED_WARNINGS: dict[ev.WarningKind, str] = {
    "sandbox_unavailable": "ran without a sandbox",
    "secrets_without_sandbox": "secrets in reach of commands run without a sandbox",
    "loop_check_failed": "model-judged loop check failed",
}


class GitHubAnnotationsSink:
    """Inside GitHub Actions: warnings and errors as workflow annotations on stdout."""

    def __init__(self, stream: TextIO, *, sanitize: Callable[[str], str]) -> None:
        self.stream = stream
        self.sanitize = sanitize
        self.locations = LocationAnnotations(sanitize)

    def close(self) -> None:
        self.stream.flush()

    def write(self, event: ev.Event) -> None:
        for line in self.locations.observe(event):  # verify failures at their file and line
            self.stream.write(line + "\n")
        level: str | None = None
        text = ""
        match event:
            case ev.BudgetExhaustedEvent():
                level, text = "warning", f"agentci budget exhausted: {event.limit}"
            case ev.LoopDetectedEvent():
                level, text = "warning", f"agentci loop detected: {event.detail}"
            case ev.WarningEvent() if event.kind in ANNOTATED_WARNINGS:
                title = ANNOTATED_WARNINGS[event.kind]
                level, text = "warning", f"agentci {title}: {event.message}"
            case ev.RunFinished() if event.exit_code != 0:
                retry = is_retryable(event.status)
                level = "warning" if retry else "error"
                note = ", retryable: the model API was unavailable, run it again later"
                text = f"agentci {event.status} (exit {event.exit_code}{note if retry else ''})"
                if event.reason:
                    text += f": {event.reason}"
        if level:
            message = _short(neutralise_workflow_commands(self.sanitize(text)), 1000)
            message = message.replace("%", "%25")
            self.stream.write(f"::{level} title=agentci::{message}\n")
            self.stream.flush()
