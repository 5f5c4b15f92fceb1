"""Markdown for summary.md: untrusted text (model output, test names, paths) made safe to show.

GitHub renders summary.md as a job summary; nothing from a run may become HTML, a link or a
table break there.
"""

from __future__ import annotations

import re


def cell(text: object) -> str:
    """Plain text on one line: HTML, backticks and table pipes are escaped."""
    s = " ".join(str(text).split())
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return s.replace("`", "\\`").replace("|", "\\|") or " "


def code(text: object) -> str:
    """A code span that holds ``text`` whole, whatever backticks it contains."""
    s = " ".join(str(text).split()) or " "
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``."""
    fence = "```"
    while fence in text:
        fence += "`"
    return fence
