"""What each Gemini ``finishReason`` means for the loop.

Every value of ``google.genai.types.FinishReason`` (as of google-genai 3.6) is listed; any other
string — a reason newer than this table — is treated as an unusable answer, never as success.

=========  ==================================================================================
outcome    what the chat layer does
=========  ==================================================================================
ok         the answer is complete
truncated  MAX_TOKENS: text is kept; function calls of the turn are dropped (never executed),
           and if that leaves nothing, the turn is retried with a nudge
blocked    the output was blocked: the task ends with status ``blocked``
invalid    the answer is unusable: ``invalid_stream`` event, at most 2 corrective retries
           with a nudge, then ``provider_error``
continue   CONTINUATION: more chunks follow (the SDK continues); final only if nothing follows
=========  ==================================================================================

A ``promptFeedback.blockReason`` (the prompt itself was blocked, no candidates) is always
``blocked``.
"""

from __future__ import annotations

from enum import Enum


class Outcome(str, Enum):
    OK = "ok"
    TRUNCATED = "truncated"
    BLOCKED = "blocked"
    INVALID = "invalid"
    CONTINUE = "continue"


FINISH_REASONS: dict[str, Outcome] = {
    "STOP": Outcome.OK,
    "MAX_TOKENS": Outcome.TRUNCATED,
    # content blocks
    "SAFETY": Outcome.BLOCKED,
    "RECITATION": Outcome.BLOCKED,
    "LANGUAGE": Outcome.BLOCKED,
    "BLOCKLIST": Outcome.BLOCKED,
    "PROHIBITED_CONTENT": Outcome.BLOCKED,
    "SPII": Outcome.BLOCKED,
    "IMAGE_SAFETY": Outcome.BLOCKED,
    "IMAGE_PROHIBITED_CONTENT": Outcome.BLOCKED,
    "IMAGE_RECITATION": Outcome.BLOCKED,
    "MODEL_ARMOR": Outcome.BLOCKED,
    # unusable answers: retried with a nudge
    "FINISH_REASON_UNSPECIFIED": Outcome.INVALID,
    "OTHER": Outcome.INVALID,
    "MALFORMED_FUNCTION_CALL": Outcome.INVALID,
    "UNEXPECTED_TOOL_CALL": Outcome.INVALID,
    "TOO_MANY_TOOL_CALLS": Outcome.INVALID,
    "MISSING_THOUGHT_SIGNATURE": Outcome.INVALID,
    "MALFORMED_RESPONSE": Outcome.INVALID,
    "IMAGE_OTHER": Outcome.INVALID,
    "NO_IMAGE": Outcome.INVALID,
    "ESCALATION": Outcome.INVALID,
    "PUP_LIMITED_DISABLED": Outcome.INVALID,
    "CONTINUATION": Outcome.CONTINUE,
    # provider-neutral finish reasons (the OpenAI-compatible provider speaks these)
    "stop": Outcome.OK,
    "tool_calls": Outcome.OK,
    "max_tokens": Outcome.TRUNCATED,
    "max_tokens_in_thinking": Outcome.TRUNCATED,
    "safety": Outcome.BLOCKED,
    "recitation": Outcome.BLOCKED,
    "malformed_call": Outcome.INVALID,
    "other": Outcome.INVALID,
}


def classify(finish_reason: str | None) -> Outcome:
    """The outcome of a final finish reason (``None`` — no finish reason — is invalid)."""
    if finish_reason is None:
        return Outcome.INVALID
    return FINISH_REASONS.get(finish_reason, Outcome.INVALID)


NUDGES: dict[str, str] = {
    "truncated": (
        "Your previous answer reached the output token limit in the middle of a function call, "
        "so the call was not executed. Make smaller steps (for example shorter edits) and call "
        "the tool again."
    ),
    "default": (
        "Your previous answer was empty or malformed and could not be used. Answer with text, "
        "or call one of the available tools with valid arguments."
    ),
}
