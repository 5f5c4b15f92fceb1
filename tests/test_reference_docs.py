"""The reference docs say what the code does: generated parts are current, examples parse and
run, and every link points at a file a user can open."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest
from tool_harness import init_repo

from agentci import reference
from agentci.events.types import Event
from agentci.providers.replay import load_cassette
from agentci.providers.scripted import ScriptedProvider
from agentci.testing.cli import run_recipe
from agentci.testing.fake_script import parse_script
from agentci.tools.registry import default_tools

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
REGENERATE = "stale: run `python -m agentci.reference` and commit the result"


def _section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of any level."""
    start = text.index(heading + "\n")
    rest = text[start + len(heading) + 1 :]
    end = re.search(r"^#{1,6} ", rest, flags=re.M)
    return rest[: end.start()] if end else rest


def test_docs_tools_md_is_the_generated_one():
    assert (DOCS / "tools.md").read_text() == reference.tools_markdown(), REGENERATE


def test_the_event_reference_in_outputs_md_is_the_generated_one():
    text = (DOCS / "outputs.md").read_text()
    assert reference.with_events(text) == text, REGENERATE


def test_every_event_type_and_field_is_in_outputs_md():
    text = (DOCS / "outputs.md").read_text()
    for model in get_args(get_args(Event)[0]):
        kind = model.model_fields["type"].default
        section = _section(text, f"#### event: {kind}")
        for field in set(model.model_fields) - {"v", "seq", "ts", "run_id", "task", "type"}:
            assert f"| `{field}` |" in section, f"{kind}.{field} is not documented"


def test_every_tool_and_argument_is_in_tools_md():
    text = (DOCS / "tools.md").read_text()
    for tool in default_tools().values():
        section = _section(text, f"## {tool.name}")
        assert tool.description in section
        for arg in tool.Args.model_fields:
            assert f"| `{arg}` |" in section, f"{tool.name}({arg}) is not documented"


def test_the_reference_command_rewrites_stale_docs_and_check_says_so(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    stale = (DOCS / "outputs.md").read_text().replace("#### event: usage", "#### event: usage?")
    (tmp_path / "docs" / "outputs.md").write_text(stale)
    cmd = [sys.executable, "-m", "agentci.reference", "--root", str(tmp_path)]
    check = subprocess.run([*cmd, "--check"], capture_output=True, text=True)
    assert check.returncode == 1
    assert "docs/tools.md is out of date" in check.stderr
    assert "docs/outputs.md is out of date" in check.stderr
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    assert (tmp_path / "docs" / "outputs.md").read_text() == (DOCS / "outputs.md").read_text()
    assert subprocess.run([*cmd, "--check"], capture_output=True).returncode == 0


# ---- docs/offline-models.md: its examples are real --------------------------------------


def _example(name: str) -> str:
    text = (DOCS / "offline-models.md").read_text()
    match = re.search(rf"<!-- example: {name} -->\n```\w+\n(.*?)```", text, flags=re.S)
    assert match, f"no example {name}"
    return match.group(1)


CALC = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "test_calc.py": "import unittest\nfrom calc import add\n\n\n"
    "class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
}


def _run_example(tmp_path: Path, model: str, file: str, example: str):
    repo = init_repo(tmp_path / "repo", CALC)
    (tmp_path / file).write_text(_example(example))
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        f"version: 1\nname: calc\nmodel: {{name: '{model}'}}\nprompt: Fix add.\n"
        f"workspace: {{path: {repo}}}\nsandbox: none\n"
        "verify: {command: python -m unittest}\n"
    )
    return run_recipe(recipe, tmp_path / "out", cwd=tmp_path)


def test_the_scripted_example_fixes_the_calc_project(tmp_path: Path):
    assert len(ScriptedProvider.from_file(_write(tmp_path, "r.yaml", "scripted")).script) == 3
    run = _run_example(tmp_path, "scripted:replies.yaml", "replies.yaml", "scripted")
    assert run.code == 0, run.stderr
    assert run.result["changed_files"] == ["calc.py"]


def test_the_cassette_example_replays_the_fix(tmp_path: Path):
    assert len(load_cassette(_write(tmp_path, "c.jsonl", "cassette"))) == 3
    run = _run_example(tmp_path, "replay:fix.jsonl", "fix.jsonl", "cassette")
    assert run.code == 0, run.stderr
    assert run.result["changed_files"] == ["calc.py"]


def test_the_fake_server_script_example_parses_turn_by_turn():
    import json

    turns = parse_script(json.loads(_example("fake-script")))
    assert len(turns) == 12
    assert turns[1].function_calls[0].name == "read_file"
    assert turns[6].error is not None and turns[6].error.quota == "daily"


def _write(tmp_path: Path, name: str, example: str) -> Path:
    path = tmp_path / name
    path.write_text(_example(example))
    return path


# ---- nothing cited that a user cannot open ---------------------------------------------


def _tracked_text_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    suffixes = {".py", ".md", ".yml", ".yaml", ".toml", ".txt", ""}
    return [ROOT / f for f in out.stdout.splitlines() if Path(f).suffix in suffixes]


def test_no_file_cites_the_design_notes_by_section():
    cites = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in _tracked_text_files()
        if p.is_file() and p.name != Path(__file__).name
        for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1)
        if re.search(r"DESIGN(\.md)? ?§|§\s?\d", line)
    ]
    assert cites == []


@pytest.mark.parametrize(
    "doc", [ROOT / "README.md", *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name
)
def test_every_relative_link_in_the_docs_opens_a_file(doc: Path):
    text = doc.read_text()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (doc.parent / target.split("#")[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert broken == []
