"""Every recipe snippet in docs/ that declares ``tools`` runs, as a user would run it.

The YAML blocks of docs/*.md (markdown-it finds them) whose mapping has ``tools`` become
recipes: the snippet on top of a minimal one (a name, a prompt, ``allow_no_changes``), its model
a script that calls every tool the snippet's rules allow by name, with the arguments below.
``agentci run`` then runs in a subprocess, in the sandbox when bubblewrap works, with
``github-mcp-server`` on PATH — a stand-in built with the SDK (``github_stub.py``) — and the
token variable the docs name set to a canary value: every call must be allowed and answered, and
the canary must appear in no output.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from markdown_it import MarkdownIt
from mcp_case import SANDBOX, call

from agentci.testing.case import write_case

DOCS = Path(__file__).parents[2] / "docs"
STUB = Path(__file__).with_name("github_stub.py")
CANARY = "github_pat_canary_0123456789abcdef"
#: The arguments of each tool a snippet's rules allow, and what its answer must contain.
CALLS: dict[str, tuple[dict[str, Any], str]] = {
    "github__issue_read": (
        {"method": "get", "owner": "octo", "repo": "demo", "issue_number": 7},
        "octo/demo#7 (get): The tests fail on main",
    ),
    "github__add_issue_comment": (
        {"owner": "octo", "repo": "demo", "issue_number": 7, "body": "Fixed in the patch."},
        "commented on octo/demo#7: Fixed in the patch.",
    ),
    "run_tests": ({"path": "tests/"}, "1 passed"),
}


def snippets() -> list[Any]:
    """``pytest.param(snippet, id="docs/FILE.md:LINE")`` for every YAML block with ``tools``."""
    found = []
    for path in sorted(DOCS.glob("*.md")):
        for token in MarkdownIt().parse(path.read_text()):
            if token.type != "fence" or token.info.strip() not in ("yaml", "yml"):
                continue
            data = yaml.safe_load(token.content)
            if isinstance(data, dict) and "tools" in data:
                line = token.map[0] + 1 if token.map else 0
                found.append(pytest.param(data, id=f"docs/{path.name}:{line}"))
    return found


SNIPPETS = snippets()


def test_the_docs_show_an_mcp_server_and_a_command_tool() -> None:
    kinds = {k for p in SNIPPETS for k in p.values[0]["tools"]}
    assert kinds == {"mcp_servers", "commands"}, [p.id for p in SNIPPETS]


def _allowed(snippet: dict[str, Any]) -> list[str]:
    names = []
    for rule in snippet.get("policy", {}).get("rules", []):
        tools = [rule["tool"]] if isinstance(rule["tool"], str) else rule["tool"]
        if rule["decision"] == "allow":
            names += [t for t in tools if not any(c in t for c in "*?[")]
    return names


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_a_docs_snippet_with_tools_runs(tmp_path: Path, snippet: dict[str, Any]) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    server = bin_dir / "github-mcp-server"
    server.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STUB}" "$@"\n')
    server.chmod(server.stat().st_mode | stat.S_IEXEC)
    names = _allowed(snippet)
    assert names and all(n in CALLS for n in names), names
    script = [call(n, CALLS[n][0]) for n in names] + [{"text": "done"}]
    recipe = {"sandbox": SANDBOX, "allow_no_changes": True, **snippet}
    files = {"tests/test_ok.py": "def test_ok():\n    assert True\n"}
    case = write_case(tmp_path / "case", script, recipe, files)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "GITHUB_MCP_TOKEN": CANARY}
    run = case.run("-q", env=env)
    assert run.code == 0, run.stderr
    answers = {e.name: e for e in run.events if e.type == "tool_call_response"}
    for name in names:
        assert answers[name].ok, answers[name]
        assert CALLS[name][1] in answers[name].output
    for path in case.out.rglob("*"):
        if path.is_file():
            assert CANARY not in path.read_text(errors="replace"), path
