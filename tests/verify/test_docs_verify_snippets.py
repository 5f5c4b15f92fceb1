"""Every recipe snippet in docs/ that names a verify command runs, as a user would run it.

The YAML blocks of docs/*.md (markdown-it finds them, also inside list items) whose mapping has
``verify.command`` become recipes: the snippet on top of a minimal one (a name, a prompt, a
``target`` parameter), its model replaced by a scripted one that fixes a small real project
(``src/calc``, two failing tests, no docstrings). A snippet's ``setup`` is left out: it installs
packages (``pip install -e .``), which would change the test's own interpreter and needs the
network. ``agentci run`` then runs in a subprocess, with the sandbox when bubblewrap works: the
baseline verify must fail, the last verify pass, the patch hold only the fix, and the
workspace keep nothing the verify command wrote (a JUnit file under ``.agentci/`` included).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from markdown_it import MarkdownIt
from verify_helpers import PATH_ENV, TESTS

from agentci.testing.case import write_case

DOCS = Path(__file__).parents[2] / "docs"
BROKEN = (
    "def add(a, b):\n    return a - b\n\n\n"
    "def sub(a, b):\n    return a - b\n\n\n"
    "def mul(a, b):\n    return a + b\n"
)
FIXED = (
    '"""Arithmetic."""\n\n\n'
    'def add(a, b):\n    """Return a + b."""\n    return a + b\n\n\n'
    'def sub(a, b):\n    """Return a - b."""\n    return a - b\n\n\n'
    'def mul(a, b):\n    """Return a * b."""\n    return a * b\n'
)
PROJECT = {
    "src/calc/__init__.py": BROKEN,
    "tests/test_calc.py": TESTS,
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    ".gitignore": "__pycache__/\n.pytest_cache/\n.ruff_cache/\n",
}
#: Values for parameters a snippet declares without a default.
PARAMS = {"files": "src/calc/__init__.py", "target": "tests/"}
LEFT_OUT = ("setup", "model")


def _names_a_verify_command(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    tasks = data.get("tasks") or []
    verify = data.get("verify")
    return (isinstance(verify, dict) and "command" in verify) or any(
        _names_a_verify_command(t) for t in tasks
    )


def snippets() -> list[Any]:
    """``pytest.param(snippet, id="docs/FILE.md:LINE")`` for every YAML block naming verify."""
    found = []
    for path in sorted(DOCS.glob("*.md")):
        for token in MarkdownIt().parse(path.read_text()):
            if token.type != "fence" or token.info.strip() not in ("yaml", "yml"):
                continue
            data = yaml.safe_load(token.content)
            if _names_a_verify_command(data):
                line = token.map[0] + 1 if token.map else 0
                found.append(pytest.param(data, id=f"docs/{path.name}:{line}"))
    return found


SNIPPETS = snippets()


def test_the_docs_have_verify_snippets_including_the_agentci_report_folder() -> None:
    verifies = [p.values[0].get("verify", {}) for p in SNIPPETS]
    assert len(SNIPPETS) >= 3, [p.id for p in SNIPPETS]
    assert any(v.get("junit", "").startswith(".agentci/") for v in verifies)


def _recipe(snippet: dict[str, Any]) -> dict[str, Any]:
    recipe = {k: v for k, v in snippet.items() if k not in LEFT_OUT}
    recipe["parameters"] = {
        "target": {"type": "string", "default": "tests/"},
        **(snippet.get("parameters") or {}),
    }
    recipe["model"] = {"name": "scripted:script.yaml"}
    return recipe


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_a_docs_verify_snippet_runs(tmp_path: Path, snippet: dict[str, Any]) -> None:
    script = [
        {"calls": [{"name": "write_file", "args": {"file_path": "src/calc/__init__.py",
                                                   "content": FIXED}}]},
        {"text": "fixed"},
    ]  # fmt: skip
    case = write_case(tmp_path, script, _recipe(snippet), PROJECT)
    args = [f"-p{name}={PARAMS[name]}" for name in _recipe(snippet)["parameters"]]
    run = case.run(*args, env=PATH_ENV)
    assert run.code == 0, run.stderr[-3000:]
    verify = [e for e in run.events if e.type == "verify_result"]
    assert verify[0].phase == "baseline" and not verify[0].passed
    assert verify[-1].passed, verify[-1].output_tail
    assert "src/calc/__init__.py" in run.patch and "tests/" not in run.patch
    left = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=case.repo, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    junit = (snippet.get("verify") or {}).get("junit")
    assert junit is None or junit not in left
    assert not (case.repo / ".agentci").exists() or not any((case.repo / ".agentci").iterdir())
