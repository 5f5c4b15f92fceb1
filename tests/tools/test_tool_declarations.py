"""The function declarations the model reads in every request say each thing once."""

from __future__ import annotations

from agentci.tools.registry import default_tools


def test_an_optional_argument_is_declared_as_its_plain_type() -> None:
    params = default_tools()["run_shell_command"].spec().parameters
    assert params["required"] == ["command"]
    assert params["properties"]["timeout_seconds"] == {
        "description": "Wall-clock limit; the task's limit still applies.",
        "exclusiveMinimum": 0,
        "type": "number",
    }
    assert params["properties"]["dir_path"] == {
        "description": "Directory to run in, relative to the workspace root.",
        "type": "string",
    }


def test_a_default_other_than_null_is_kept() -> None:
    params = default_tools()["list_directory"].spec().parameters
    assert params["properties"]["dir_path"]["default"] == "."
    assert params["properties"]["ignore"] == {
        "description": "Glob patterns to leave out.",
        "items": {"type": "string"},
        "type": "array",
    }


def test_no_declaration_holds_a_null_type_or_a_title() -> None:
    for tool in default_tools().values():
        text = str(tool.spec().parameters)
        assert "'null'" not in text and "'title'" not in text, tool.name
