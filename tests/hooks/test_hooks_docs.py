"""Every recipe snippet and hook script of docs/hooks.md runs, as a user would run them.

The Python blocks whose first line is ``# ci/NAME.py`` are the scripts, written into the
recipe's folder; each YAML block with ``hooks`` becomes a recipe (the snippet over a minimal
one) run with ``agentci run`` on a real git repository, with a scripted model that runs
``pytest --version``, edits a file, answers, adds a test when asked, and answers again."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from markdown_it import MarkdownIt

from agentci.testing.case import shell_call, write_call, write_case

DOC = Path(__file__).parents[2] / "docs" / "hooks.md"


def _fences() -> list[tuple[str, str, int]]:
    tokens = MarkdownIt().parse(DOC.read_text())
    return [
        (t.info.strip(), t.content, (t.map[0] + 1) if t.map else 0)
        for t in tokens
        if t.type == "fence"
    ]


def _scripts() -> dict[str, str]:
    found = {}
    for info, text, _ in _fences():
        first = text.splitlines()[0] if text else ""
        if info == "python" and first.startswith("# ci/"):
            found[first[2:].strip()] = text
    return found


def _snippets() -> list[Any]:
    found = []
    for info, text, line in _fences():
        if info in ("yaml", "yml"):
            data = yaml.safe_load(text)
            if isinstance(data, dict) and "hooks" in data:
                found.append(pytest.param(data, id=f"docs/hooks.md:{line}"))
    return found


SNIPPETS = _snippets()
SCRIPT = [
    shell_call("pytest --version"),
    write_call("src/app.py", "def greet():\n    return 'hello'\n"),
    {"text": "Done."},
    write_call("tests/test_app.py", "from app import greet\n"),
    {"text": "Done, with a test."},
]


def test_the_page_has_a_snippet_and_a_script_for_every_stage():
    stages = {stage for p in SNIPPETS for stage in p.values[0]["hooks"]}
    assert stages >= {
        "session_start",
        "before_model",
        "before_tool",
        "after_tool",
        "after_agent",
        "pre_compress",
        "session_end",
    }
    assert len(_scripts()) >= 7


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_a_docs_snippet_runs_with_its_scripts(tmp_path: Path, snippet: dict[str, Any]) -> None:
    recipe = {**snippet, "sandbox": "none", "policy": {"mode": "yolo"}}
    case = write_case(tmp_path, SCRIPT, recipe, {"README.md": "# app\n"})
    for name, text in _scripts().items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    # the hooks' python3 is the interpreter of the tests (setup-python's in CI), not a version
    # manager's shim: pyenv's bash shim costs ~250 ms CPU a start on top of Python's (measured
    # at load 15: 317 vs 129 ms for the whole hook), seconds at load 20, which the page's 5 s
    # before_model timeout is not about; agentci's own start of a hook still counts in it
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    run = case.run(env={"PATH": path})
    assert run.code == 0, run.stderr
    results = [e for e in run.events if e.type == "hook_result"]
    broken = [(e.hook, e.exit_code, e.output) for e in results if e.exit_code != 0]
    assert broken == []
    ran = {e.hook for e in results}
    hooks = snippet["hooks"]
    for stage, entries in hooks.items():
        if stage in ("max_continuations", "pre_compress"):  # no compression in this short run
            continue
        assert {f"hooks.{stage}[{i}]" for i in range(len(entries))} <= ran, stage
    if "after_agent" in hooks:
        assert [e.decision for e in results if e.stage == "after_agent"] == ["block", "continue"]
        assert run.result["changed_files"] == ["src/app.py", "tests/test_app.py"]
    rewrites = [e for e in results if e.decision == "rewrite"]
    if any("quiet-pytest" in h["command"] for h in hooks.get("before_tool", [])):
        assert [e.args["command"] for e in rewrites] == ["pytest --version -q"]
