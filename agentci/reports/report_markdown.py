"""The model's final message as HTML for report.html: CommonMark, rendered safely.

markdown-it-py renders it with raw HTML off (``<script>`` in the message is shown as text),
and with links, autolinks and images off: the page loads nothing and leaves nothing to click
(a link is shown as the text the model wrote). Tables and strikethrough are on, as on GitHub.
The text must be redacted before it is rendered: markdown escapes ``&<>"``, which would hide
a secret holding one of them from the page's final redaction pass.
"""

from __future__ import annotations

import functools
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.disable(["link", "image", "autolink"])
    return md


def markdown_html(text: str) -> Markup:
    """``text`` (markdown, already redacted) as HTML that is safe to put in the page."""
    return Markup(_parser().render(text))
