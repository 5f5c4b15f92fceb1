"""Continuation: a final answer cut by the output limit is never accepted as it is.

An answer without tool calls whose finish is ``max_tokens`` is unfinished. The loop
keeps it in the history and asks the model to go on from where it was cut (a new turn: each
continuation is a model call that counts toward every budget), up to
``model.max_continuations`` times; the pieces are joined, and only a piece that ends normally
makes the joined text the final answer. An answer still cut after the last continuation ends
the task ``budget_exhausted`` with limit ``max_output_tokens`` — never ``success``. An answer
that calls a tool after a continuation is not final: the pieces are dropped and the loop goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentci.errors import BudgetExhausted
from agentci.finish import CUT, Finish

CONTINUE_PROMPT = (
    "agentci: your answer was cut off by the output token limit. Continue exactly where it "
    "stopped, mid-sentence if that is where the cut was: no apology, no recap, do not repeat "
    "what you already wrote. If much is left, be brief."
)


def was_cut(finish: Finish | None) -> bool:
    """True when the answer stopped at the output limit (``max_tokens``)."""
    return finish in CUT


@dataclass
class Continuation:
    """The pieces of one cut answer, and how many continuations it took."""

    limit: int
    pieces: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The pieces so far, joined."""
        return "".join(self.pieces)

    def cut(self, text: str) -> str:
        """Keep ``text`` (an answer cut at the limit); the prompt that asks for the rest.
        Raises :class:`BudgetExhausted` (``max_output_tokens``) when no continuation is left."""
        self.pieces.append(text)
        used = len(self.pieces) - 1
        if used >= self.limit:
            raise BudgetExhausted(
                "max_output_tokens",
                used,
                self.limit,
                f"the final answer was still cut at the output token limit after {used} "
                "continuation(s) (model.max_continuations)",
            )
        return CONTINUE_PROMPT

    def finish(self, text: str) -> str:
        """The whole answer: the pieces so far and ``text``, the piece that ended normally."""
        whole = self.text + text
        self.pieces = []
        return whole

    def drop(self) -> None:
        """The model went on with tool calls: the cut pieces were not a final answer."""
        self.pieces = []
