"""Fuzzing the shipped recipes: whatever a mutation does, the answer is a plan or one
``InvalidInput`` — never another exception (a traceback, ``internal_error`` 70).

Each seed mutates one shipped recipe (a value replaced by junk, a key deleted or added, a junk
line inserted, the text cut short, a character replaced) and sends the text through the real
load → parameters → templates → models → plan → pre-flight checks that both ``agentci
validate`` and ``agentci run`` take. The seeds are fixed: a failure names the seed and the text.
"""

from __future__ import annotations

import copy
import functools
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentci.errors import InvalidInput
from agentci.run.preflight import check_recipe
from agentci.testing.cli import agentci

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "fix-failing-test"
SHIPPED = [DEMO / "recipe.yaml", *sorted((ROOT / "recipes").glob("*.yaml"))]
SEEDS_PER_RECIPE = 75


def _deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


JUNK: list[Any] = [
    None, True, False, 0, -1, 2**70, 1e308, -1e308, float("inf"), float("nan"), "", " ",
    "\x00", "a\x00b", "\ud800", "x\udcff", "{{ 1/0 }}", "{{ nope }}", "{% include 'x' %}",
    "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "{{", "{% for %}", "{{ '\\x00' }}",
    "not a url", "http://", "../../etc/passwd", "/", "~", "*", "[", "$(id)", "x" * 5000,
    [], {}, [1, [2, [3]]], {"a": {"b": None}}, _deep(100), "🙂", "2026-01-01",
]  # fmt: skip

JUNK_LINES = [
    "[a, b]: x", "? {a: 1}\n: x", "{a: 1}: x", "&a x", "*nope", "!!python/object:os.system x",
    "'unterminated", "\tx: 1", "{{", "x: " + "[" * 600 + "]" * 600, "x: " + "{a: " * 300,
    "x: !!binary abc", "<<: *nope", "x: &a [*a]", "%YAML 1.1", "---", "...",
    "x: \"\\0\"", "x: \"\\ud800\"", "- item", ":", "x: .inf", "x: 1e999",
]  # fmt: skip


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path in a parsed recipe."""
    out = []
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in items:
        out.append((*prefix, key))
        if isinstance(value, dict | list):
            out += _paths(value, (*prefix, key))
    return out


def _parent(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        data = data[key]
    return data


@functools.cache
def _parsed(text: str) -> Any:
    return yaml.load(text, Loader=yaml.CSafeLoader)


def mutate(text: str, rng: random.Random) -> str:
    """One random mutation of recipe YAML text."""
    data = copy.deepcopy(_parsed(text))
    kind = rng.randrange(7)
    paths = _paths(data)
    if kind <= 1:  # replace a value with junk
        path = rng.choice(paths)
        _parent(data, path)[path[-1]] = rng.choice(JUNK)
    elif kind == 2:  # delete a key
        path = rng.choice([p for p in paths if isinstance(_parent(data, p), dict)])
        del _parent(data, path)[path[-1]]
    elif kind == 3:  # add a key somewhere
        maps = [data] + [v for p in paths if isinstance(v := _parent(data, (*p, 0)), dict)]
        rng.choice(maps)[rng.choice(["surprise", "name", "version", "0"])] = rng.choice(JUNK)
    else:
        lines = text.splitlines()
        at = rng.randrange(len(lines) + 1)
        if kind == 4:  # a junk line, indented like its neighbour
            near = lines[min(at, len(lines) - 1)]
            indent = near[: len(near) - len(near.lstrip())]
            lines.insert(at, indent + rng.choice(JUNK_LINES))
            return "\n".join(lines) + "\n"
        if kind == 5:  # cut short
            return text[: rng.randrange(len(text))]
        pos = rng.randrange(len(text))  # one character replaced
        return text[:pos] + rng.choice("{}[]:'\"&*!|>-#%@`\t\\") + text[pos + 1 :]
    return yaml.safe_dump(data, sort_keys=False)  # escapes NUL, surrogates, inf as YAML does


def check(path: Path) -> None:
    """The checks ``validate`` and ``run`` share, up to the first thing that would run."""
    check_recipe(path, [], live=True)


@pytest.fixture
def fuzz_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with the demo's cassette (replay: is relative to the recipe) and an API key."""
    shutil.copy(DEMO / "cassette.jsonl", tmp_path / "cassette.jsonl")
    monkeypatch.setenv("GEMINI_API_KEY", "fuzz-key")
    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL", raising=False)
    return tmp_path


@pytest.mark.parametrize("recipe", SHIPPED, ids=lambda p: p.stem)
def test_mutations_are_a_plan_or_invalid_input(fuzz_dir: Path, recipe: Path):
    original = recipe.read_text()
    check_path = fuzz_dir / "recipe.yaml"
    crashes, outcomes = [], {"ok": 0, "refused": 0}
    for seed in range(SEEDS_PER_RECIPE):
        text = mutate(original, random.Random(f"{recipe.name}:{seed}"))
        check_path.write_text(text, encoding="utf-8", errors="surrogateescape")
        try:
            check(check_path)
            outcomes["ok"] += 1
        except InvalidInput:
            outcomes["refused"] += 1
        except Exception as err:  # noqa: BLE001 - collected and reported below
            crashes.append(f"seed {seed}: {type(err).__name__}: {err}\n{text[:500]}")
    assert not crashes, "\n\n".join(crashes)
    # not just broken YAML: many mutations load and plan, many are refused further in
    assert outcomes["ok"] >= 10 and outcomes["refused"] >= 10, outcomes


@pytest.mark.parametrize("seed", [3, 17, 42, 64, 99])
def test_the_cli_never_shows_a_traceback(tmp_path: Path, seed: int):
    text = mutate(SHIPPED[0].read_text(), random.Random(f"cli:{seed}"))
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(text)
    shutil.copy(DEMO / "cassette.jsonl", tmp_path / "cassette.jsonl")
    done = agentci("validate", str(recipe), cwd=tmp_path)
    assert done.returncode in (0, 2), done.stderr
    assert "Traceback" not in done.stderr
