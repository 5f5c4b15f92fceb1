"""The tool names ``validate`` checks rules against are the tools a task has."""

from __future__ import annotations

from agentci.tools.names import BUILTIN_TOOLS, SUBMIT_TOOL
from agentci.tools.registry import TOOL_CLASSES, default_tools
from agentci.tools.submit import SubmitResult


def test_the_names_are_the_registry_tools_in_its_order():
    assert tuple(cls.name for cls in TOOL_CLASSES) == BUILTIN_TOOLS
    assert list(default_tools()) == list(BUILTIN_TOOLS)


def test_the_answer_tool_has_the_submit_name():
    assert SubmitResult.name == SUBMIT_TOOL
