"""What text a command, path or prompt can carry (standard library only: the pre-commit hook's
clean path, :mod:`agentci.precommit.quick`, checks its text with the run's own rule)."""

from __future__ import annotations


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be a command, path or prompt (a NUL, a lone surrogate), or None."""
    if "\0" in text:
        return "contains a NUL character (\\0), which no command, path or prompt can carry"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode (a lone surrogate such as \\ud800)"
    return None
