"""Pydantic's validation errors in a recipe author's words.

* An unknown key says which key was probably meant (``unknown key (did you mean 'prompt'?)``),
  from the keys allowed at that place of the recipe.
* A wrong type names the YAML shape that was expected and the one found, never a Python
  class (``expected a mapping (key: value), got a string``).
"""

from __future__ import annotations

import difflib
import types
import typing
from typing import Any

from pydantic import BaseModel

_SHAPES = {
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "a mapping (key: value)",
    type(None): "nothing (null)",
}


def shape(value: Any) -> str:
    """The YAML shape of ``value`` in words: ``a string``, ``a list`` …"""
    for kind, words in _SHAPES.items():
        if type(value) is kind:
            return words
    if isinstance(value, dict):
        return _SHAPES[dict]
    if isinstance(value, list):
        return _SHAPES[list]
    return type(value).__name__


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation can hold (through Optional, list, dict, unions)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found.extend(_models_in(arg))
    return found


def _next(annotation: Any, part: int | str) -> Any:
    """The annotation one step into ``annotation`` along ``part`` of an error location."""
    for model in _models_in(annotation):
        if isinstance(part, str) and part in model.model_fields:
            return model.model_fields[part].annotation
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            nxt = _next(arg, part)
            if nxt is not None:
                return nxt
        return None
    if origin in (list, dict):
        return typing.get_args(annotation)[-1]
    return None


def allowed_keys(root: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The keys allowed in the mapping that holds ``loc`` (its last part is the key)."""
    annotation: Any = root
    for part in loc[:-1]:
        annotation = _next(annotation, part)
        if annotation is None:
            return []
    models = _models_in(annotation)
    return sorted(models[0].model_fields) if models else []


def message(root: type[BaseModel], error: Any, loc: tuple[int | str, ...]) -> str:
    """One pydantic error (from ``ValidationError.errors()``) as a recipe author reads it."""
    kind = error["type"]
    if kind == "extra_forbidden":
        close = difflib.get_close_matches(str(loc[-1]), allowed_keys(root, loc), n=1)
        return "unknown key" + (f" (did you mean {close[0]!r}?)" if close else "")
    if kind == "missing":
        return "required key is missing"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"expected a mapping (key: value), got {shape(error.get('input'))}"
    if kind == "list_type":
        return f"expected a list, got {shape(error.get('input'))}"
    return str(error["msg"]).removeprefix("Value error, ")
