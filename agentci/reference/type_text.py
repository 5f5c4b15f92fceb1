"""Type annotations and table cells as the generated reference docs write them."""

from __future__ import annotations

import json
import types
from typing import Any, Literal, Union, get_args, get_origin


def type_name(annotation: Any, bar: str = " \\| ") -> str:
    """A readable type: ``str``, ``int | null``, ``"allow" | "deny"``, ``list[str]``
    (``bar`` joins the alternatives: escaped for a markdown table by default)."""
    origin = get_origin(annotation)
    if annotation is type(None):
        return "null"
    if origin is Literal:
        return bar.join(json.dumps(a) for a in get_args(annotation))
    if origin in (Union, types.UnionType):
        return bar.join(type_name(a, bar) for a in get_args(annotation))
    if origin in (list, tuple):
        return f"list[{', '.join(type_name(a, bar) for a in get_args(annotation))}]"
    if origin is dict:
        key, value = get_args(annotation)
        return f"object[{type_name(key, bar)} → {type_name(value, bar)}]"
    if annotation is Any:
        return "any"
    if isinstance(annotation, type):
        return {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}.get(
            annotation.__name__, annotation.__name__
        )
    return str(annotation)


def cell(text: str) -> str:
    """``text`` on one line, fit for a markdown table cell (``|`` escaped)."""
    return " ".join(text.split()).replace("|", "\\|")
