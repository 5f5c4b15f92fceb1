"""Read a recipe file: YAML → :class:`Recipe`, every error with its file, line and key."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from agentci.errors import RecipeError, RecipeErrors
from agentci.recipe.messages import message
from agentci.recipe.prompt_recipe import BUILTIN_FILE, BUILTIN_RECIPE, RecipeFields, apply_fields
from agentci.recipe.schema import Recipe
from agentci.recipe.text_check import text_problem

MAX_DEPTH = 64  # nesting levels a recipe may use (a real one needs fewer than ten)
#: Values (keys, scalars, lists, mappings) a recipe may hold once its YAML aliases (``*name``)
#: are expanded: a real recipe holds hundreds; ten nested aliases can otherwise make billions.
MAX_VALUES = 100_000


class _LineLoader(yaml.SafeLoader):
    """A safe loader that remembers the line of every mapping key and sequence item, and
    refuses nesting deeper than :data:`MAX_DEPTH` (before Python's recursion limit could)."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                line = self.peek_event().start_mark.line + 1
                raise RecipeError(f"nested more than {MAX_DEPTH} levels deep", line=line)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node(self) -> Any:
        """The document's node, refused when its aliases expand it beyond :data:`MAX_VALUES`
        values or :data:`MAX_DEPTH` levels, or make it contain itself (before anything walks
        the expanded tree)."""
        node = super().get_single_node()
        if node is not None:
            _measure(node, {}, set(), 1)
        return node


def _measure(node: Any, sizes: dict[int, tuple[int, int]], open_: set[int], depth: int) -> int:
    """The number of values under ``node`` with every alias expanded, each shared node
    counted once per use but visited once (``sizes``: node id → values, levels)."""
    key = id(node)
    line = node.start_mark.line + 1
    if key in open_:
        raise RecipeError("a YAML alias (*name) refers to a value that contains it", line=line)
    values, levels = sizes.get(key, (0, 0))
    if not values:
        if depth > MAX_DEPTH:
            raise RecipeError(f"nested more than {MAX_DEPTH} levels deep", line=line)
        if isinstance(node, yaml.MappingNode):
            children = [child for pair in node.value for child in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        open_.add(key)
        values, below = 1, 0
        for child in children:
            values += _measure(child, sizes, open_, depth + 1)
            below = max(below, sizes[id(child)][1])
            if values > MAX_VALUES:
                break
        open_.discard(key)
        levels = below + 1
        sizes[key] = (values, levels)
    if depth - 1 + levels > MAX_DEPTH:
        raise RecipeError(
            f"nested more than {MAX_DEPTH} levels deep once its aliases (*name) are expanded",
            line=line,
        )
    if values > MAX_VALUES:
        raise RecipeError(
            f"holds more than {MAX_VALUES} values once its YAML aliases (*name) are expanded",
            line=line,
        )
    return values


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    loader.flatten_mapping(node)
    mapping: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise RecipeError(
                "a key must be a plain name, not a list or a mapping",
                line=key_node.start_mark.line + 1,
            )
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise RecipeError("duplicate key", line=key_node.start_mark.line + 1, key=str(key))
        mapping[key] = loader.construct_object(value_node, deep=True)
        lines[str(key)] = key_node.start_mark.line + 1
    return _Mapping(mapping, lines, node.start_mark.line + 1)


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> list[Any]:
    items = [loader.construct_object(child, deep=True) for child in node.value]
    return _Sequence(items, [child.start_mark.line + 1 for child in node.value])


class _Mapping(dict):
    def __init__(self, data: dict[str, Any], lines: dict[str, int], line: int) -> None:
        super().__init__(data)
        self.lines = lines
        self.line = line


class _Sequence(list):
    def __init__(self, items: list[Any], lines: list[int]) -> None:
        super().__init__(items)
        self.lines = lines


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def _line_of(data: Any, loc: tuple[int | str, ...]) -> int | None:
    """The line of the deepest key of ``loc`` that exists in the YAML."""
    line = getattr(data, "line", None)
    node = data
    for part in loc:
        if isinstance(node, _Mapping) and isinstance(part, str) and part in node:
            line = node.lines.get(part, line)
            node = node[part]
        elif isinstance(node, _Sequence) and isinstance(part, int) and part < len(node):
            line = node.lines[part]
            node = node[part]
        else:
            break
    return line


def load_yaml(text: str, *, file: Path | str) -> Any:
    """YAML text → data whose mappings and lists remember their lines (see :func:`validation_errors`);
    a syntax error or a duplicate key is a :class:`RecipeError` with its line."""
    try:
        return yaml.load(text, Loader=_LineLoader)  # noqa: S506 - a SafeLoader subclass
    except RecipeError as err:
        raise RecipeError(err.message, file=file, line=err.line, key=err.key) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None) or str(err)
        raise RecipeError(
            f"invalid YAML: {problem}", file=file, line=mark.line + 1 if mark else None
        ) from None


def parse_recipe(
    text: str,
    *,
    file: Path | str = "<recipe>",
    fields: RecipeFields | None = None,
    builtin: bool = False,
) -> Recipe:
    """Validate recipe YAML text, with the command line's ``fields`` on top; raise
    :class:`RecipeError` naming file, line and key."""
    data = load_yaml(text, file=file)
    if not isinstance(data, dict):
        raise RecipeError("a recipe is a YAML mapping (key: value)", file=file, line=1)
    if fields:
        apply_fields(data, fields, builtin=builtin)
    _check_text(data, data, (), file)
    try:
        recipe = Recipe.model_validate(data)
    except ValidationError as err:
        raise validation_errors(err, data, file, Recipe) from None
    recipe._source = RecipeSource(str(file), data)
    return recipe


def validation_errors(
    err: ValidationError, data: Any, file: Path | str, model: type[BaseModel], skip: int = 0
) -> RecipeError:
    """Every error of validating ``data`` (from :func:`load_yaml`) as ``model``, one per place,
    in the order of the file's lines; ``skip`` leading location parts are left out of keys."""
    located: dict[tuple[int | str, ...], RecipeError] = {}
    for error in err.errors():
        loc = tuple(p for p in error["loc"] if not _is_union_tag(p))
        if loc in located:  # a union reports each alternative: one message per place
            continue
        key = ".".join(str(p) for p in loc[skip:]) or None
        line = _line_of(data, loc[skip:])
        located[loc] = RecipeError(message(model, error, loc), file=file, line=line, key=key)
    errors = sorted(located.values(), key=lambda e: e.line or 0)
    return errors[0] if len(errors) == 1 else RecipeErrors(errors)


@dataclass
class RecipeSource:
    """Where a recipe came from: its file and the lines of its keys (for later errors)."""

    file: str
    data: Any = None

    def error(self, message: str, *loc: int | str) -> RecipeError:
        """``file:line: key: message`` for the key at ``loc`` (``"tasks", 0, "prompt"``)."""
        key = ".".join(str(p) for p in loc) or None
        return RecipeError(message, file=self.file, line=_line_of(self.data, loc), key=key)


def source_of(recipe: Recipe) -> RecipeSource:
    """The :class:`RecipeSource` of a loaded recipe (an anonymous one for a built recipe)."""
    return recipe._source if isinstance(recipe._source, RecipeSource) else RecipeSource("<recipe>")


def _check_text(
    data: Any, node: Any, loc: tuple[int | str, ...], file: Path | str, seen: set[int] | None = None
) -> None:
    """Refuse text no command, path or API can carry: a NUL character, a lone surrogate.
    A list or mapping that aliases repeat is checked once (``seen``: their ids)."""
    seen = set() if seen is None else seen
    seen.add(id(node))
    items: Any = node.items() if isinstance(node, dict) else enumerate(node)
    for part, value in items:
        where = (*loc, part)
        if isinstance(value, dict | list):
            if id(value) not in seen:
                _check_text(data, value, where, file, seen)
            continue
        for text in (part, value):
            problem = text_problem(text) if isinstance(text, str) else None
            if problem:
                key = ".".join(str(p) for p in where)
                raise RecipeError(problem, file=file, line=_line_of(data, where), key=key)


def _is_union_tag(part: int | str) -> bool:
    return isinstance(part, str) and (
        part in {"str", "int", "float", "bool"} or part.startswith(("function-", "list["))
    )


def builtin_recipe(fields: RecipeFields) -> Recipe:
    """The built-in recipe of ``agentci run --prompt``, with the command line's fields."""
    return parse_recipe(BUILTIN_RECIPE, file=BUILTIN_FILE, fields=fields, builtin=True)


def load_recipe(path: Path | str, fields: RecipeFields | None = None) -> Recipe:
    """Read and validate the recipe at ``path`` (with the command line's ``fields``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecipeError("no such recipe file", file=p) from None
    except (OSError, UnicodeDecodeError) as err:
        raise RecipeError(f"cannot read the recipe: {err}", file=p) from None
    return parse_recipe(text, file=p, fields=fields)
