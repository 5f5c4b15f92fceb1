"""Tool-call arguments nested too deep: never kept, never run, never a crash.

A model can send arguments of any depth (a structured answer nested 600 levels, say). Such a
value cannot be written to events.jsonl or sent back in the history (serialisers stop at a few
hundred levels), so when the model's turn is read (:mod:`agentci.loop.turn`) arguments deeper
than :data:`MAX_ARGS_DEPTH` are replaced by a stand-in, :func:`bounded`, and the scheduler
refuses the call with the stand-in's message (:func:`refusal`): a tool error the model can act
on, and for ``submit_result`` one of ``output.attempts``.
"""

from __future__ import annotations

from typing import Any

from agentci.jsontext import deeper_than

#: Levels of lists and objects an argument may nest (the arguments object itself is level 1).
MAX_ARGS_DEPTH = 64
#: The one key of the stand-in for arguments that were not kept.
NOT_KEPT = "agentci_arguments_not_kept"


def bounded(args: dict[str, Any]) -> dict[str, Any]:
    """``args`` when they nest at most :data:`MAX_ARGS_DEPTH` levels, else the stand-in."""
    if not deeper_than(args, MAX_ARGS_DEPTH):
        return args
    return {
        NOT_KEPT: f"the arguments are nested more than {MAX_ARGS_DEPTH} levels deep; agentci "
        "does not keep or run such a call: send flatter arguments"
    }


def refusal(args: dict[str, Any] | None) -> str | None:
    """The message of a stand-in made by :func:`bounded` (None: real arguments)."""
    if args and len(args) == 1 and isinstance(args.get(NOT_KEPT), str):
        return str(args[NOT_KEPT])
    return None
