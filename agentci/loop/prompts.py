"""The system prompt: how agentci asks the model to work headlessly (docs/prompts.md).

agentci's own prompt lists the tools the task really has (from the tool registry, so a new tool
appears by itself) and says what agentci does once the model stops: the verify command, the
guards, the structured answer it expects. A recipe may replace that prompt or append to it
(``system_prompt``); the recipe's ``instructions`` are appended in every case.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from jinja2 import Environment, StrictUndefined

from agentci.recipe.guards_config import Guards
from agentci.recipe.verify_config import Verify
from agentci.tools.base import Tool, ToolKind

_SYSTEM = Environment(undefined=StrictUndefined, keep_trailing_newline=True).from_string(
    """\
You are a coding agent run by agentci inside an automated pipeline (CI). No human is watching \
and nobody can answer questions: never ask for confirmation, decide and act.

Your workspace is a checkout at `{{ workspace }}`. Use paths relative to it. Your tools, by \
kind (their declarations say what each does):
{{ tools }}

An approval policy (mode `{{ mode }}`) decides every tool call. A denied call returns the \
reason as an error: do not retry the same call, find another way within the rules.
Work step by step: inspect, change, check. {{ finish }}
{% if after %}

When you stop, agentci checks your work:
{{ after }}
Check your work the same way before you stop.
{% endif %}"""
)

_KIND_NOTE = {
    ToolKind.read: "look around (calls of one turn run in parallel)",
    ToolKind.edit: "change files",
    ToolKind.execute: "run a command",
}


@dataclass
class PromptFacts:
    """What the system prompt says about a task: its tools, policy mode, and what agentci
    checks after the model stops."""

    workspace: str
    tools: Iterable[Tool]
    mode: str = "auto_edit"
    verify: Verify | None = None
    guards: Guards | None = None
    submit_tool: str | None = None  # the tool that hands in a structured answer, if any


def tool_lines(tools: Iterable[Tool]) -> str:
    """One line per kind of tool: what that kind does, then the names of the task's tools of
    that kind. Their descriptions are not repeated: the request declares every tool with its
    description and parameters."""
    by_kind: dict[ToolKind, list[str]] = {kind: [] for kind in _KIND_NOTE}
    for tool in tools:
        by_kind[tool.kind].append(tool.name)
    return "\n".join(
        f"- {_KIND_NOTE[kind]}: {', '.join(names)}" for kind, names in by_kind.items() if names
    )


def after_stop_lines(facts: PromptFacts) -> str:
    """What agentci does when the model stops, one line each ("" when it checks nothing)."""
    lines = []
    if facts.submit_tool:
        lines.append(
            f"- your answer must be handed in with `{facts.submit_tool}` (its parameters are "
            "the required JSON Schema); an answer that does not match comes back to you with "
            "the errors."
        )
    verify = facts.verify
    if verify is not None:
        rounds = (
            f"up to {verify.attempts} rounds: its failures come back to you"
            if verify.attempts > 1
            else "once"
        )
        lines.append(f"- it runs the verify command `{verify.command}` ({rounds}).")
    guards = facts.guards
    if guards is not None:
        if guards.allowed_paths:
            lines.append(f"- only files matching {', '.join(guards.allowed_paths)} may change.")
        if guards.forbid_test_edits:
            lines.append(
                f"- files matching {', '.join(guards.forbid_test_edits)} may not be modified."
            )
        if guards.max_changed_files:
            lines.append(f"- at most {guards.max_changed_files} files may change.")
        if guards.max_changed_lines:
            lines.append(f"- at most {guards.max_changed_lines} lines may change.")
    return "\n".join(lines)


def agentci_prompt(facts: PromptFacts) -> str:
    """agentci's own system prompt for a task."""
    if facts.submit_tool:
        finish = (
            f"When the task is done, call `{facts.submit_tool}` with your answer: that call "
            "ends your work."
        )
    else:
        finish = (
            "When the task is done, reply without calling a tool, with a short summary of "
            "what you changed and why. That reply ends your work."
        )
    return _SYSTEM.render(
        workspace=facts.workspace,
        tools=tool_lines(facts.tools),
        mode=facts.mode,
        finish=finish,
        after=after_stop_lines(facts),
    ).rstrip("\n")


def system_prompt(
    facts: PromptFacts, *, instructions: str = "", replace: str | None = None, append: str = ""
) -> str:
    """The system instruction of a task: agentci's prompt (or ``replace``), then the recipe's
    ``instructions``, then ``append``."""
    base = replace.strip() if replace is not None else agentci_prompt(facts)
    parts = [base]
    if instructions.strip():
        parts.append("Instructions from the recipe:\n" + instructions.strip())
    if append.strip():
        parts.append(append.strip())
    return "\n\n".join(parts) + "\n"
