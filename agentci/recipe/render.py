"""Parameters and templates: ``-p key=value`` → typed values → jinja2 (sandboxed, strict).

A template may only use the recipe's parameters (and the variables agentci provides, such
as ``verify``); an unknown name is an error, never an empty string.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Mapping
from typing import Any

from jinja2 import (
    BaseLoader,
    Environment,
    StrictUndefined,
    Template,
    TemplateError,
    TemplateNotFound,
    UndefinedError,
)
from jinja2.sandbox import SandboxedEnvironment

from agentci.errors import InvalidInput
from agentci.recipe.hints import undefined_hint
from agentci.recipe.schema import Parameter, Recipe
from agentci.recipe.text_check import text_problem


class _NoFiles(BaseLoader):
    """Recipe templates are self-contained: include, import and extends find nothing."""

    def get_source(self, environment: Environment, template: str) -> Any:
        raise TemplateNotFound(
            template, f"{template!r}: a recipe template cannot include, import or extend a file"
        )


_ENV = SandboxedEnvironment(
    undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False, loader=_NoFiles()
)

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


class ParamList(list[str]):
    """A ``list`` parameter's value: a list in templates (``{% for f in files %}``,
    ``files | length``), shell-quoted and space-separated when printed as a whole, so
    ``ruff check {{ files }}`` stays one argument per item whatever the names hold."""

    def __str__(self) -> str:
        return shlex.join(self)


def parse_assignments(pairs: list[str] | tuple[str, ...]) -> dict[str, str | list[str]]:
    """``["a=1", "b=x=y"]`` → ``{"a": "1", "b": "x=y"}``; a pair without ``=`` is an error.
    A name given more than once collects its values in order (``-p f=a -p f=b`` →
    ``{"f": ["a", "b"]}``): a list parameter's items; any other type takes the last one."""
    values: dict[str, str | list[str]] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise InvalidInput(f"-p {pair!r}: expected name=value")
        name = name.strip()
        seen = values.get(name)
        if seen is None:
            values[name] = value
        else:
            values[name] = [*([seen] if isinstance(seen, str) else seen), value]
    return values


def _as_list(raw: Any) -> ParamList:
    if isinstance(raw, list):
        return ParamList(str(item) for item in raw if str(item) != "")
    return ParamList([str(raw)] if str(raw) != "" else [])


def convert(name: str, spec: Parameter, raw: Any) -> Any:
    """``raw`` (a command-line string or a YAML default) as the parameter's type; a list of
    command-line values (a name given several times) is a ``list``'s items, or else its last
    value counts. An empty value is an empty ``list``."""
    if spec.type == "list":
        return _as_list(raw)
    if isinstance(raw, list):
        raw = raw[-1]
    if spec.type == "string":
        return str(raw)
    if spec.type == "number":
        if isinstance(raw, bool):
            raise InvalidInput(f"parameter {name!r}: expected a number, got {raw!r}")
        if isinstance(raw, int | float):
            return raw
        try:
            return int(raw)
        except ValueError:
            try:
                return float(raw)
            except ValueError:
                raise InvalidInput(f"parameter {name!r}: expected a number, got {raw!r}") from None
    if spec.type == "boolean":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise InvalidInput(f"parameter {name!r}: expected true or false, got {raw!r}")
    value = str(raw)
    if value not in (spec.choices or []):
        allowed = ", ".join(spec.choices or [])
        raise InvalidInput(f"parameter {name!r}: {value!r} is not one of: {allowed}")
    return value


def resolve_parameters(recipe: Recipe, given: Mapping[str, str | list[str]]) -> dict[str, Any]:
    """Typed parameter values: command-line values over defaults; unknown or missing → error."""
    unknown = sorted(set(given) - set(recipe.parameters))
    if unknown:
        known = ", ".join(sorted(recipe.parameters)) or "none"
        raise InvalidInput(f"unknown parameter {unknown[0]!r} (this recipe takes: {known})")
    values: dict[str, Any] = {}
    for name, spec in recipe.parameters.items():
        if name in given:
            values[name] = convert(name, spec, given[name])
        elif spec.default is not None:
            values[name] = convert(name, spec, spec.default)
        else:
            raise InvalidInput(f"parameter {name!r} has no default: pass -p {name}=VALUE")
    return values


def template_error(template: str, values: Mapping[str, Any]) -> str | None:
    """Why ``template`` does not render with ``values``, or None. Any failure counts — a syntax
    error, an undefined name, an error while rendering (``{{ 1/0 }}``, a macro calling itself,
    ``{% include %}``) — and so does a result no command or API can carry (a NUL character, a
    lone surrogate)."""
    return _rendered(template, values)[1]


@functools.lru_cache(maxsize=256)
def _compiled(template: str) -> Template:
    """``template`` compiled once (a batch checks, then renders, each task's templates; a
    compile costs about a millisecond, a render microseconds). A template that does not
    compile raises each time."""
    return _ENV.from_string(template)


def _rendered(template: str, values: Mapping[str, Any]) -> tuple[str, str | None]:
    """``template`` rendered with ``values``, and why it failed (:func:`template_error`)."""
    try:
        text = _compiled(template).render(**values)
    except UndefinedError as err:
        return "", str(err) + undefined_hint(template, values, _ENV)
    except TemplateError as err:
        return "", str(err)
    except Exception as err:  # noqa: BLE001 - the template's own runtime error, not agentci's
        return "", f"{type(err).__name__}: {err}"
    problem = text_problem(text)
    return text, (f"the rendered text {problem}" if problem else None)


def render(template: str, values: Mapping[str, Any], *, where: str) -> str:
    """Render ``template`` with ``values``; any failure of :func:`template_error` is
    InvalidInput (templates are checked before a run starts, see agentci.run.preflight)."""
    text, error = _rendered(template, values)
    if error is not None:
        raise InvalidInput(f"{where}: template error: {error}")
    return text
