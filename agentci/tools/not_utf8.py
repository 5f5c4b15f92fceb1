"""Text for the model from names that are not UTF-8.

A file system allows any bytes in a name; Python hands a name that is not UTF-8 (bytes a
Latin-1 tool wrote, ``b"caf\\xe9.txt"``) to agentci as a lone surrogate (``surrogateescape``:
``"caf\\udce9.txt"``). The model API takes only valid UTF-8, so such a character is shown as
U+FFFD, as ``glob``, ``grep_search`` and ``ls`` in ``run_shell_command`` already show it, and
the tool result says how to act on that file (:func:`for_model`). The event log keeps the
name itself (:func:`agentci.jsontext.dumps`).
"""

from __future__ import annotations

import re

SURROGATE = re.compile("[\ud800-\udfff]")

NOTE = (
    "[not UTF-8: a name above holds bytes that are not UTF-8, shown as U+FFFD (\ufffd). The "
    "file tools cannot name it; use run_shell_command with a shell glob in place of each "
    "\ufffd (for example `mv caf?.txt cafe.txt`)]"
)


def replaced(text: str) -> str:
    """``text`` with each lone surrogate as U+FFFD: text any UTF-8 encoder takes."""
    return text if SURROGATE.search(text) is None else SURROGATE.sub("\ufffd", text)


def for_model(text: str) -> str:
    """A tool's output as the model may read it: :func:`replaced`, with :data:`NOTE` after it
    when something was replaced."""
    if SURROGATE.search(text) is None:
        return text
    return f"{replaced(text)}\n\n{NOTE}"
