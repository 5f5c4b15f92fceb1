"""Files a recipe names for the model: ``system_prompt`` text or file, ``output.schema``.

Read once, when the recipe is checked (``validate`` and ``run``), so a missing or broken file is
``invalid_input`` with the recipe's file, line and key before anything runs. Relative paths are
taken from the recipe's folder (they come with the recipe). The files are repository content
even so: they are read through :mod:`agentci.workspace_io`, so a committed link is refused.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentci import workspace_io
from agentci.errors import InvalidInput
from agentci.recipe.load import load_yaml, source_of
from agentci.recipe.render import render
from agentci.spec import TaskSpec
from agentci.tools.answer_schema import schema_problem

if TYPE_CHECKING:
    from agentci.recipe.schema import Recipe

MAX_FILE_BYTES = 1_000_000
# One line, no spaces, ending in .md or .txt: a file, not the text itself.
_PROMPT_FILE = re.compile(r"^\S+\.(md|txt)$")


def is_prompt_file(value: str) -> bool:
    """Whether a ``system_prompt`` value names a file (see :data:`_PROMPT_FILE`)."""
    return bool(_PROMPT_FILE.match(value.strip()))


def _split(base: Path, value: str) -> tuple[Path, str]:
    """``value`` (a path the recipe writes, relative to ``base``) as (a trusted folder, the part
    below it that is opened without following links).

    The recipe's own words are trusted (its folder, the ``..`` it writes, an absolute path's
    folder); the files below them are repository content, and a committed link among them
    (``prompt.md -> /proc/self/environ``, ``prompts -> /``) is refused, never followed."""
    norm = os.path.normpath(value)
    if os.path.isabs(norm):
        return Path(os.path.dirname(norm)), os.path.basename(norm)
    parts = norm.split(os.sep)
    ups = 0
    while ups < len(parts) and parts[ups] == "..":
        ups += 1
    return base.joinpath(*parts[:ups]), "/".join(parts[ups:]) or "."


def read_text_file(base: Path, value: str) -> str:
    """The UTF-8 text file ``value`` (relative to ``base``) of at most :data:`MAX_FILE_BYTES`,
    read through :mod:`agentci.workspace_io` (regular files only, no link followed below the
    folder the recipe names); :class:`InvalidInput` otherwise."""
    path = base / value
    root, rel = _split(base, value)
    try:
        data = workspace_io.read_bytes(root, rel, MAX_FILE_BYTES)
    except workspace_io.UnsafePath as err:
        if err.missing:
            raise InvalidInput(f"no such file: {path}") from None
        raise InvalidInput(f"cannot read {path}: {err}") from None
    except OSError as err:  # the folder the recipe names is missing
        if isinstance(err, FileNotFoundError):
            raise InvalidInput(f"no such file: {path}") from None
        raise InvalidInput(f"cannot read {path}: {err.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidInput(f"cannot read {path}: {err}") from None


def load_schema(value: dict[str, Any] | str, base: Path) -> dict[str, Any]:
    """``output.schema``: the mapping itself, or a JSON/YAML file relative to ``base``; checked
    as a JSON Schema whose root is an object."""
    schema: Any = value
    if isinstance(value, str):
        path = base / value
        text = read_text_file(base, value)
        try:
            # YAML: aliases bounded, like a recipe's
            schema = json.loads(text) if path.suffix == ".json" else load_yaml(text, file=path)
        except InvalidInput as err:
            raise InvalidInput(f"not JSON or YAML: {err}") from None
        except (ValueError, RecursionError) as err:  # json.JSONDecodeError, too deep
            raise InvalidInput(f"{path}: not JSON or YAML: {err}") from None
    problem = schema_problem(schema)
    if problem:
        raise InvalidInput(problem)
    return schema


def attach(recipe: Recipe, plans: list[TaskSpec], recipe_dir: Path) -> list[TaskSpec]:
    """Every spec with the recipe's ``system_prompt`` (rendered with its values) and
    ``output.schema`` loaded; raise a :class:`RecipeError` at the key that is wrong."""
    source = source_of(recipe)
    texts: dict[str, tuple[str | None, str]] = {}  # per plan: its own parameter values
    if recipe.system_prompt is not None:
        key = "replace" if recipe.system_prompt.replace is not None else "append"
        raw = recipe.system_prompt.replace or recipe.system_prompt.append or ""
        try:
            template = read_text_file(recipe_dir, raw.strip()) if is_prompt_file(raw) else raw
            for plan in plans:
                text = render(template, plan.values, where=f"system_prompt.{key}")
                texts[plan.name] = (text, "") if key == "replace" else (None, text)
        except InvalidInput as err:
            raise source.error(str(err), "system_prompt", key) from None
    schema = None
    if recipe.output is not None:
        try:
            schema = load_schema(recipe.output.schema_, recipe_dir)
        except InvalidInput as err:
            raise source.error(str(err), "output", "schema") from None
    attached = []
    for plan in plans:
        replace_text, append = texts.get(plan.name, (None, ""))
        attached.append(
            dataclasses.replace(
                plan, system_replace=replace_text, system_append=append, output_schema=schema
            )
        )
    return attached
