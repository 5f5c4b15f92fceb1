"""Old tool outputs are masked a few at once, down to 70% of the budget, so the turns between
two maskings keep the history's prefix unchanged for the provider's prompt cache."""

from __future__ import annotations

from agentci.context.masking import OutputMasker
from agentci.providers.base import Message, TextPart, ToolCallPart, ToolResultPart

OUTPUT = "x" * 1_199 + "\n"  # 300 tokens by agentci's estimate (4 characters a token)


def _turn(history: list[Message], n: int) -> None:
    history.append(Message("model", [ToolCallPart(f"c{n}", "read_file", {"file_path": "f"})]))
    history.append(Message("user", [ToolResultPart(f"c{n}", "read_file", OUTPUT)]))


def test_outputs_past_the_budget_are_masked_in_one_go_down_to_70_percent_of_it() -> None:
    masker = OutputMasker(budget_tokens=1_000)
    history = [Message("user", [TextPart("Read f again and again.")])]
    masked_per_turn = []
    for n in range(1, 9):
        _turn(history, n)
        masked_per_turn.append(len(masker.mask(history)))
    # 4 outputs (1,200 tokens) pass the budget: 2 are masked, leaving 600 (<= 700); the
    # next masking comes when the 6th output brings the kept ones past 1,000 again
    assert masked_per_turn == [0, 0, 0, 2, 0, 2, 0, 2]
    results = [m.parts[0] for m in history[2::2]]
    assert [r.masked for r in results] == [True] * 6 + [False] * 2
    assert masker.kept == 600


def test_a_turn_without_masking_leaves_every_earlier_message_as_it_was() -> None:
    masker = OutputMasker(budget_tokens=1_000)
    history = [Message("user", [TextPart("Read f again and again.")])]
    for n in range(1, 5):
        _turn(history, n)
        masker.mask(history)
    before = list(history)
    _turn(history, 5)
    assert masker.mask(history) == []
    assert all(a is b for a, b in zip(before, history, strict=False))
