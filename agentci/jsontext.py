"""Parse one JSON document from text agentci did not write itself, bounded.

A cassette, an ``events.jsonl`` handed to ``agentci replay``, a downloaded ``result.json``, a
hook's or a verify tool's output: any of them may be damaged or hostile. :func:`loads` turns
every way such text can fail to be a document agentci reads into one :class:`NotJson` (a
``ValueError``, so ``except ValueError`` keeps working):

* bytes that are not UTF-8;
* text that is not JSON;
* a document nested deeper than ``max_depth`` (:data:`MAX_DEPTH`) — Python's parser raises
  RecursionError on ``[[[[…`` a hundred thousand deep, and a document just under its limit
  would make every recursive reader after it (redaction, pydantic, rendering) fail instead.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 200  # arrays/objects inside each other; agentci's own documents stay far below
_SURROGATE = re.compile("[\ud800-\udfff]")


class NotJson(ValueError):
    """The text is not one JSON document agentci reads (the message says why)."""


def loads(data: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON document in ``data`` (UTF-8 when bytes); raises :class:`NotJson`."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise NotJson(f"not UTF-8 ({err})") from None
    try:
        value = json.loads(data)
    except RecursionError:
        raise NotJson(f"nested more than {max_depth} levels deep") from None
    except ValueError as err:
        raise NotJson(str(err)) from None  # "Expecting value: line 1 column 1 (char 0)"
    # a document has at most as many levels as it has brackets: count them in C first
    if data.count("[") + data.count("{") > max_depth and deeper_than(value, max_depth):
        raise NotJson(f"nested more than {max_depth} levels deep")
    return value


def deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists (or tuples) and dicts more than ``limit`` levels, the
    outermost being level 1 (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def dumps(value: Any, **options: Any) -> str:
    """``value`` as JSON text (``ensure_ascii=False``, other ``json.dumps`` options as given)
    that always encodes as UTF-8.

    A name that is not UTF-8 (bytes a Latin-1 tool wrote, ``b"caf\\xe9.txt"``) reaches Python
    as a lone surrogate (``surrogateescape``: ``"caf\\udce9.txt"``), which UTF-8 cannot encode.
    Such a character is written as its JSON escape (``\\udce9``): the text stays valid UTF-8
    and valid JSON, and a JSON reader gets the same string back (``os.fsencode`` of it is the
    file's real name).
    """
    text = json.dumps(value, ensure_ascii=False, **options)
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
