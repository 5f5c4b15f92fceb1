"""Structured output: the ``submit_result`` tool and the answer it collects (docs/structured-output.md).

With ``output: {schema: …}`` in the recipe the model gets one more tool, ``submit_result``,
whose parameters are the schema. agentci validates each call against the schema with the
``jsonschema`` package:

* valid: the object is the task's answer (``State.output``); the session ends after that
  turn's calls (:meth:`Answer.handed_in`), and verify, when the recipe has one, runs next;
* invalid: the validation errors go back to the model as the tool's error (an answer nested
  more than 64 levels deep is refused unread, :mod:`agentci.tools.arg_depth`);
* the model stops without handing in an answer: it is told to call ``submit_result``.

Each invalid call and each stop without an answer uses one of ``output.attempts``; when they
are spent the task ends ``invalid_output`` (exit 7, :class:`~agentci.errors.OutputInvalid`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, model_validator

from agentci.errors import OutputInvalid
from agentci.policy.access import Access
from agentci.providers.base import ToolSpec
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult
from agentci.tools.names import SUBMIT_TOOL

MAX_ERRORS = 20  # validation errors shown to the model per answer
# Keywords of the schema's root that describe the document, not the arguments (Gemini's
# function declarations do not take them).
_DOCUMENT_KEYS = ("$schema", "$id", "title")


def validation_errors(schema: dict[str, Any], instance: Any) -> list[str]:
    """Every way ``instance`` breaks ``schema``, as ``at $.path: message`` (empty: valid)."""
    # deferred: jsonschema takes ~0.3 s to import; only a recipe's JSON Schemas need it
    from jsonschema import validators

    # deferred: jsonschema takes ~0.3 s to import; only a recipe's JSON Schemas need it
    from referencing import Registry

    # deferred: jsonschema takes ~0.3 s to import; only a recipe's JSON Schemas need it
    from referencing.exceptions import Unresolvable

    cls = validators.validator_for(schema)
    # An empty registry: a $ref is looked up in the schema and the meta-schemas, never fetched.
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER, registry=Registry())
    try:
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.path)))
    except Unresolvable as unresolvable:  # refused at load (schema_problem); still an attempt
        return [f"the schema cannot be applied: cannot resolve $ref {unresolvable}"[:500]]
    out = []
    for err in errors[:MAX_ERRORS]:
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.path)
        out.append(f"at {where}: {err.message[:500]}")
    if len(errors) > MAX_ERRORS:
        out.append(f"… and {len(errors) - MAX_ERRORS} more")
    return out


class Holder(Protocol):
    """Where the valid answer is kept (the task's :class:`~agentci.loop.state.State`)."""

    output: dict[str, Any] | None


@dataclass
class Answer:
    """The task's structured answer, as it is handed in."""

    schema: dict[str, Any]
    attempts: int
    state: Holder
    invalid: int = 0  # invalid answers and stops without one, so far
    _fresh: bool = field(default=False, repr=False)  # a valid answer came in this turn

    def offer(self, value: dict[str, Any]) -> ToolResult:
        """One ``submit_result`` call: accept a valid answer, or say what is wrong with it."""
        errors = validation_errors(self.schema, value)
        if errors:
            self.invalid += 1
            left = self.attempts - self.invalid
            return ToolResult(
                error="the answer does not match the required schema:\n"
                + "\n".join(errors)
                + f"\nFix it and call {SUBMIT_TOOL} again ({left} attempt(s) left)."
            )
        self.state.output = value
        self._fresh = True
        return ToolResult(output="answer accepted")

    def refuse(self, why: str) -> str:
        """An answer refused before it was read (nested too deep): one invalid attempt."""
        self.invalid += 1
        left = max(self.attempts - self.invalid, 0)
        return f"{why}\nFix it and call {SUBMIT_TOOL} again ({left} attempt(s) left)."

    def handed_in(self) -> bool:
        """After a turn's tool calls: True when a valid answer came in (the session ends).
        Raises :class:`OutputInvalid` when the attempts are spent and no earlier answer was
        valid (an answer handed in before verify sent the model back stays the answer)."""
        fresh, self._fresh = self._fresh, False
        if not fresh and self.state.output is None and self.invalid >= self.attempts:
            raise OutputInvalid(self._why())
        return fresh

    def missing(self) -> str | None:
        """The model stopped without calling a tool: None when it has handed in its answer,
        else what to tell it. Raises :class:`OutputInvalid` when the attempts are spent."""
        if self.state.output is not None:
            return None
        self.invalid += 1
        if self.invalid >= self.attempts:
            raise OutputInvalid(self._why())
        return (
            f"You stopped without handing in your answer. Call {SUBMIT_TOOL} with it: its "
            f"parameters are the required JSON Schema ({self.attempts - self.invalid} "
            "attempt(s) left)."
        )

    def _why(self) -> str:
        return (
            f"no valid answer after {self.attempts} attempt(s): the model's answers did not "
            f"match output.schema (the errors are in the {SUBMIT_TOOL} tool_call_response events)"
        )


class _AnswerArgs(BaseModel):
    """Whatever the model sent, kept whole (the schema, not pydantic, judges it)."""

    model_config = ConfigDict(extra="forbid")
    answer: dict[str, Any]

    @model_validator(mode="before")
    @classmethod
    def _wrap(cls, data: Any) -> Any:
        return {"answer": data}

    def model_dump(self, **_: Any) -> dict[str, Any]:  # type: ignore[override]
        """The call's arguments as the model sent them (what hooks see)."""
        return json.loads(json.dumps(self.answer, default=str))


class SubmitResult(Tool):
    """``submit_result``: hands in the task's answer (present only with ``output``)."""

    name = SUBMIT_TOOL
    kind = ToolKind.read
    description = (
        "Hand in your final answer as this call's arguments, which must match the required "
        "JSON Schema. A valid answer ends your work; an invalid one comes back with the "
        "validation errors."
    )
    Args = _AnswerArgs

    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    def spec(self) -> ToolSpec:
        """The declaration the model sees: the answer's schema as the parameters."""
        params = {k: v for k, v in self.answer.schema.items() if k not in _DOCUMENT_KEYS}
        return ToolSpec(name=self.name, description=self.description, parameters=params)

    def refuse(self, why: str) -> str:
        return self.answer.refuse(why)

    def accesses(self, args: BaseModel) -> list[Access]:
        """The answer touches no file: judged as a read of the workspace root (every mode
        allows it, a rule can still deny it)."""
        return [Access("read", ".")]

    async def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        assert isinstance(args, _AnswerArgs)
        return self.answer.offer(args.answer)
