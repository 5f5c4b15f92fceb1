"""How a model answer ended, in agentci's words: the :data:`Finish` literal.

Each provider maps its API's own finish reasons to one of these values (Gemini's ``STOP``,
``MAX_TOKENS``, ``SAFETY``…; OpenAI's ``stop``, ``length``, ``tool_calls``…); the loop only
ever reads a :data:`Finish`, never an API's string. The API's string still travels beside it
(``ModelChunk.finish_reason``, the ``turn_finished`` event) for people reading the log.

======================  =============================================================================
value                   what the loop does
======================  =============================================================================
stop                    the answer is complete
tool_calls              the answer is complete and asks for tools
max_tokens              cut at the output limit: text is continued (``model.max_continuations``);
                        function calls of that answer are dropped and the turn retried with a nudge
max_tokens_in_thinking  the whole output limit went to thinking (no text, no call): another try
                        would bill the same, so the task ends ``budget_exhausted``
                        (limit ``max_output_tokens``)
safety                  the output was blocked (any content filter): status ``blocked``
recitation              the output was blocked as a recitation: status ``blocked``
malformed_call          the model wrote a function call that could not be parsed: corrective retry
other                   any other end (unknown, unspecified): unusable, corrective retry
======================  =============================================================================

A stream that ends with no finish at all is unusable too (``None``).
"""

from __future__ import annotations

from typing import Literal, get_args

Finish = Literal[
    "stop",
    "tool_calls",
    "max_tokens",
    "max_tokens_in_thinking",
    "safety",
    "recitation",
    "malformed_call",
    "other",
]

#: Every :data:`Finish` value, in the order above.
FINISHES: tuple[Finish, ...] = get_args(Finish)

#: Finishes after which the answer (text and calls) is used as it is.
COMPLETE: frozenset[Finish] = frozenset({"stop", "tool_calls"})
#: Finishes that mean the model's output was blocked.
BLOCKED: frozenset[Finish] = frozenset({"safety", "recitation"})
#: Finishes at the output token limit.
CUT: frozenset[Finish] = frozenset({"max_tokens", "max_tokens_in_thinking"})


def as_finish(value: str | None) -> Finish | None:
    """``value`` when it is a :data:`Finish`, else None (for readers of stored streams)."""
    return value if value in FINISHES else None  # type: ignore[return-value]
