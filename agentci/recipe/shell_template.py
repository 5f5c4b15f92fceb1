"""A command tool's command line: a jinja2 template whose every ``{{ value }}`` is shell-quoted.

``pytest -q {{ path }}`` with ``path = "; rm -rf ."`` renders ``pytest -q '; rm -rf .'``: an
argument is always data, never shell syntax. Strings are quoted as they are; lists become one
quoted word per item; numbers, booleans and objects are quoted as their JSON text. The template
is sandboxed and strict (an argument the model left out is an error unless the template tests
``is defined``) and cannot include files.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Any

from jinja2 import StrictUndefined, TemplateError, TemplateSyntaxError, Undefined
from jinja2.sandbox import SandboxedEnvironment


def quote(value: Any) -> str:
    """One value as shell words: a string, list items, or JSON text, each shell-quoted."""
    if isinstance(value, Undefined):
        str(value)  # raises UndefinedError (StrictUndefined)
    if isinstance(value, str):
        return shlex.quote(value)
    if isinstance(value, (list, tuple)):
        return " ".join(quote(v) for v in value)
    return shlex.quote(json.dumps(value, ensure_ascii=False))


_ENV = SandboxedEnvironment(
    undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True, finalize=quote
)


def template_problem(template: str) -> str | None:
    """Why ``template`` is not a valid command template, or None."""
    try:
        _ENV.parse(template)
    except TemplateSyntaxError as err:
        return f"template error: {err.message} (line {err.lineno})"
    return None


def render_command(template: str, args: Mapping[str, Any]) -> str:
    """The command line for ``args``; raises ValueError naming what went wrong."""
    try:
        return _ENV.from_string(template).render(dict(args))
    except TemplateError as err:
        raise ValueError(f"the command template failed: {err}") from None
