"""What a hook answered: its exit code and output read as a decision, per stage (docs/hooks.md).

=================  ===================================================================
stage              how the answer is read
=================  ===================================================================
``before_tool``    exit 0: continue (JSON ``decision``: ``continue``/``deny``/``stop``;
                   ``args`` rewrites the call); exit 2: deny, the output is the reason;
                   any other exit, a kill, a timeout or an unknown decision: **deny**
``after_tool``     as ``before_tool``; a deny becomes an objection note on the result
``after_agent``    exit 0: accept (``continue``); ``block`` (or ``deny``) with a reason,
                   or exit 2: the answer is not accepted and the reason goes back to the
                   model; ``stop``; any other exit, a kill, a timeout or an unknown
                   decision: **stop** (a broken check never accepts an answer silently)
observing stages   ``session_start``, ``before_model``, ``pre_compress``, ``session_end``:
                   exit 0 continues (``additionalContext`` adds context where the stage
                   allows it); anything else is a warning and the run goes on
=================  ===================================================================

The JSON answer is the whole output or its last non-empty line that is an object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from agentci import jsontext

Decision = Literal["continue", "deny", "stop", "block", "rewrite"]

#: Bytes of a hook's output kept (head and tail); the event and the model get less.
OUTPUT_CAP = 16_000
#: Characters of a hook's output in the ``hook_result`` event.
EVENT_CAP = 2_000
#: Characters of a reason or note that reach the model.
NOTE_CAP = 4_000
#: Characters of one hook's ``additionalContext`` that reach the model.
CONTEXT_CAP = 10_000

#: Stages whose hooks only observe (a failure is a warning, never a deny).
OBSERVING = frozenset({"session_start", "before_model", "pre_compress", "session_end"})
#: Observing stages whose hooks may add context for the model.
ADDS_CONTEXT = frozenset({"session_start", "before_model"})


def cap(text: str, limit: int) -> str:
    """``text`` stripped, cut to ``limit`` characters with a note when longer."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 20] + "\n[… output cut]"


@dataclass
class Answer:
    """One hook's answer: its decision, the reason (what the model reads, or why the hook
    failed), its output text, the context it adds, the arguments it puts in place, and
    whether it failed (an observing hook's failure is a warning)."""

    decision: Decision
    reason: str
    text: str
    context: str = ""
    args: dict[str, Any] | None = None
    failed: bool = False


def json_answer(output: str) -> dict[str, Any] | None:
    """The hook's JSON answer: the whole output, else its last line that is an object."""
    candidates = [output.strip()]
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if lines:
        candidates.append(lines[-1])
    for text in candidates:
        if text.startswith("{"):
            try:
                data = jsontext.loads(text)
            except jsontext.NotJson:
                continue
            if isinstance(data, dict):
                return data
    return None


def _failure(exit_code: int | None, timed_out: bool, text: str, timeout: float) -> str:
    """Why a hook failed (it was killed, timed out or exited neither 0 nor 2), or ``""``."""
    if timed_out:
        return f"the hook timed out after {timeout:g}s"
    if exit_code is None:
        return f"the hook was killed: {cap(text, 500)}"
    if exit_code not in (0, 2):
        why = f"the hook failed (exit {exit_code})"
        return f"{why}: {text}" if text else why
    return ""


def interpret(
    stage: str, exit_code: int | None, timed_out: bool, output: str, timeout: float
) -> Answer:
    """Exit code and output → the stage's decision (the table of the module docstring)."""
    text = output.strip()
    failed = _failure(exit_code, timed_out, text, timeout)
    if stage in OBSERVING:
        return _observed(stage, exit_code, failed, text)
    if stage == "after_agent":
        return _after_agent(exit_code, failed, text)
    data = _deciding(exit_code, failed, text, broken="deny", refusal="deny", refused="denied")
    if isinstance(data, Answer):
        return data
    decision, reason = data.get("decision", "continue"), _reason(data)
    if decision not in ("continue", "deny", "stop"):
        why = f"the hook answered an unknown decision {decision!r} (continue, deny or stop)"
        return Answer("deny", why, text, failed=True)
    if stage == "before_tool" and decision == "continue" and "args" in data:
        args = data["args"]
        if not isinstance(args, dict):
            why = f"the hook's 'args' must be an object of arguments, not {type(args).__name__}"
            return Answer("deny", why, text, failed=True)
        return Answer("rewrite", reason, reason, args=args)
    return Answer(decision, reason or f"{decision} by the hook", reason)


def not_run(stage: str, why: str) -> Answer:
    """The answer of a hook that could not run (its files changed, bash is missing): what a
    failure means at ``stage``."""
    if stage in OBSERVING:
        return Answer(
            "continue", f"{why}; the hook only observes, the run goes on", "", failed=True
        )
    return Answer("stop" if stage == "after_agent" else "deny", why, "", failed=True)


def _reason(data: dict[str, Any]) -> str:
    reason = data.get("reason", "")
    return reason if isinstance(reason, str) else json.dumps(reason)


def _deciding(
    exit_code: int | None,
    failed: str,
    text: str,
    *,
    broken: Decision,
    refusal: Decision,
    refused: str,
) -> Answer | dict[str, Any]:
    """What the deciding stages read alike: a hook that failed answers ``broken``, exit 2
    answers ``refusal`` (the output is the reason; without output, "``refused`` by the hook"),
    no JSON answer continues. Otherwise the JSON answer, for the stage to read."""
    if failed:
        return Answer(broken, failed, text, failed=True)
    if exit_code == 2:
        return Answer(refusal, text or f"{refused} by the hook (exit 2)", text)
    data = json_answer(text)
    if data is None:
        return Answer("continue", "", text)
    return data


def _after_agent(exit_code: int | None, failed: str, text: str) -> Answer:
    """after_agent: accept, block (the reason goes back to the model) or stop; a broken hook
    stops the task rather than accepting the answer."""
    data = _deciding(exit_code, failed, text, broken="stop", refusal="block", refused="blocked")
    if isinstance(data, Answer):
        return data
    decision, reason = data.get("decision", "continue"), _reason(data)
    if decision in ("block", "deny"):
        return Answer("block", reason or "blocked by the hook", reason)
    if decision not in ("continue", "stop"):
        why = f"the hook answered an unknown decision {decision!r} (continue, block or stop)"
        return Answer("stop", why, text, failed=True)
    return Answer(decision, reason or f"{decision} by the hook", reason)


def _observed(stage: str, exit_code: int | None, failed: str, text: str) -> Answer:
    """An observing stage: continue, with context where the stage adds it; a failure (exit
    2 included) or context where none is taken is a warning."""
    if failed or exit_code == 2:
        why = failed or f"the hook exited 2: {cap(text, 500)}"
        return Answer(
            "continue", f"{why}; the hook only observes, the run goes on", text, failed=True
        )
    data = json_answer(text)
    if data is None or "additionalContext" not in data:
        return Answer("continue", "", text)
    context = data["additionalContext"]
    if stage not in ADDS_CONTEXT:
        why = f"{stage} hooks cannot add context; additionalContext ignored"
        return Answer("continue", why, text, failed=True)
    if not isinstance(context, str):
        why = "additionalContext must be a string; ignored"
        return Answer("continue", why, text, failed=True)
    return Answer("continue", "", text, context=cap(context, CONTEXT_CAP))
