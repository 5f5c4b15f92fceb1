"""What the model is told about an MCP tool: its name (as Gemini accepts function names) and
its result as text (images described, structured content kept); what validate does with a
server (nothing: it is started by run only)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mcp_types as types

from agentci.tools.mcp.tool import result_text, tool_name


def test_a_plain_tool_name_is_server_double_underscore_tool():
    assert tool_name("github", "add_issue_comment", set()) == "github__add_issue_comment"


def test_characters_gemini_refuses_become_underscores():
    assert tool_name("docs", "search.pages/v2", set()) == "docs__search_pages_v2"


def test_a_long_or_clashing_name_is_cut_and_ends_with_a_hash_of_the_real_name():
    long = tool_name("srv", "x" * 80, set())
    assert len(long) == 64 and long.startswith("srv__xxx") and long[-9] == "_"
    first = tool_name("docs", "a.b", set())
    second = tool_name("docs", "a/b", {first})
    assert first == "docs__a_b" and second != first and second.startswith("docs__a_b_")
    assert second == tool_name("docs", "a/b", {first})  # stable


def test_an_image_is_described_and_structured_content_added_once():
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="found 2"),
            types.ImageContent(type="image", data="aGVsbG8=", mime_type="image/png"),
        ],
        structured_content={"count": 2},
    )
    assert result_text(result) == (
        'found 2\n[image image/png, 5 bytes: not shown to the model]\n[structured content]\n{\n "count": 2\n}'
    )
    same = types.CallToolResult(
        content=[types.TextContent(type="text", text='{"count": 2}')],
        structured_content={"count": 2},
    )
    assert result_text(same) == '{"count": 2}'


def test_validating_a_recipe_with_mcp_servers_neither_starts_them_nor_imports_the_sdk(
    tmp_path: Path,
):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(
        "version: 1\nname: v\nmodel: {name: gemini-2.5-flash}\nprompt: p\n"
        "tools: {mcp_servers: {demo: {command: [no-such-server-program]}}}\n"
        "policy: {rules: [{tool: 'demo__*', decision: allow}]}\n"
    )
    code = (
        "import sys; from agentci.cli import cli\n"
        f"try:\n    cli(['validate', {str(recipe)!r}])\nexcept SystemExit as e:\n    print(e.code)\n"
        "print('mcp' in sys.modules, 'httpx2' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.splitlines()[-2:] == ["0", "False False"], done.stderr
