"""The built-in recipe as the hook's clean path reads it without a YAML parser
(agentci.precommit.builtin_recipe) is the shipped file's own: the same bytes, the same data."""

from __future__ import annotations

import hashlib

import yaml

from agentci.precommit import builtin_recipe
from agentci.precommit.quick import recipe_file


def test_the_kept_recipe_is_read_from_the_shipped_file_as_it_is() -> None:
    data = recipe_file().read_bytes()
    assert hashlib.sha256(data).hexdigest() == builtin_recipe.SOURCE_SHA256, (
        "fix-lint.yaml changed: set SOURCE_SHA256 and PARSED in "
        f"agentci/precommit/builtin_recipe.py to {hashlib.sha256(data).hexdigest()!r} and "
        f"{yaml.safe_load(data)!r}"
    )


def test_the_kept_recipe_is_what_yaml_makes_of_the_file() -> None:
    assert builtin_recipe.parsed(recipe_file().read_bytes()) == yaml.safe_load(
        recipe_file().read_bytes()
    )


def test_other_bytes_are_not_taken_for_the_kept_recipe() -> None:
    edited = recipe_file().read_bytes().replace(b"attempts: 2", b"attempts: 3")
    assert builtin_recipe.parsed(edited) is None
