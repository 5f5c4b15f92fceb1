"""Token counts: what the API reported when it did, an estimate for the rest.

The API reports a call's prompt size (``usageMetadata.promptTokenCount``) once the call has
ended. The size of the *next* request is that figure plus an estimate of what was added to
the history since (:class:`PromptSize`); only messages added since the last report are
estimated, so the cost of an estimate does not grow with the history. Before any report (the
first call, or after the history was rewritten by compression) the whole request is estimated.

The estimate (:func:`estimate_text`): one token per 4 characters of ASCII text, and 1 more
token per 4 bytes beyond the first of each non-ASCII character in UTF-8 (3 more bytes for a
CJK character make about 1.75 tokens, an accented letter 1 token) — a little above what
Gemini's tokenizer counts for code, logs and English, so budgets and the context window are
judged on the safe side. Function calls and responses count their name and JSON, and every
part a few tokens of framing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from agentci.providers.base import Message, Part, TextPart, ToolCallPart, ToolSpec

#: Characters (of ASCII text) per token.
CHARS_PER_TOKEN = 4
#: Framing of one part or message (role, keys, separators), in tokens.
PART_OVERHEAD = 4


def estimate_text(text: str) -> int:
    """Estimated tokens of ``text`` (see the module docstring)."""
    if not text:
        return 0
    chars = len(text)
    extra = len(text.encode("utf-8", "surrogatepass")) - chars
    return (chars + 3 * extra + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def estimate_part(part: Part) -> int:
    """Estimated tokens of one part as sent."""
    if isinstance(part, TextPart):
        return PART_OVERHEAD + estimate_text(part.text)
    if isinstance(part, ToolCallPart):
        args = json.dumps(part.args, ensure_ascii=False, default=str)
        return PART_OVERHEAD + estimate_text(part.name) + estimate_text(args)
    return (
        PART_OVERHEAD
        + estimate_text(part.name)
        + estimate_text(part.output)
        + estimate_text(part.error or "")
    )


def estimate_message(message: Message) -> int:
    """Estimated tokens of one message."""
    return PART_OVERHEAD + sum(estimate_part(p) for p in message.parts)


def estimate_messages(messages: Sequence[Message]) -> int:
    """Estimated tokens of a list of messages."""
    return sum(estimate_message(m) for m in messages)


def estimate_fixed(system: str, tools: Sequence[ToolSpec]) -> int:
    """Estimated tokens of what every request repeats: the system prompt and the tools."""
    declarations = json.dumps([t.parameters for t in tools])
    described = "".join(t.name + t.description for t in tools)
    return estimate_text(system) + estimate_text(declarations) + estimate_text(described)


class PromptSize:
    """The prompt size of the next request of one conversation.

    ``reported`` takes the API's figure for a request that sent the first ``sent`` messages of
    the history; :meth:`next` adds the estimate of the messages after those. :meth:`rewritten`
    forgets the figure (the history was replaced: everything is estimated again once);
    :meth:`shrink` lowers it when messages already counted were made smaller (masking).
    """

    def __init__(self) -> None:
        self.known = 0  # prompt tokens the API reported for the last request of the history
        self.counted = 0  # messages included in ``known``

    def next(self, system: str, tools: Sequence[ToolSpec], messages: Sequence[Message]) -> int:
        """Estimated prompt tokens of a request of ``messages`` (with this system and tools)."""
        if self.known == 0:
            return estimate_fixed(system, tools) + estimate_messages(messages) + 1
        return self.known + estimate_messages(messages[self.counted :]) + 1

    def reported(self, prompt_tokens: int, sent: int) -> None:
        """The API counted ``prompt_tokens`` for a request of the first ``sent`` messages."""
        if prompt_tokens > 0:
            self.known = prompt_tokens
            self.counted = sent

    def shrink(self, tokens: int) -> None:
        """Messages already counted lost about ``tokens`` tokens."""
        if self.known:
            self.known = max(1, self.known - tokens)

    def rewritten(self) -> None:
        """The history was replaced: estimate the whole next request."""
        self.known = 0
        self.counted = 0
