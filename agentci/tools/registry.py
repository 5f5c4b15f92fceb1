"""The tool registry: the seven built-in tools (docs/tools.md), by name."""

from __future__ import annotations

from agentci.tools.base import Tool
from agentci.tools.files import ListDirectory, ReadFile, Replace, WriteFile
from agentci.tools.search import Glob, GrepSearch
from agentci.tools.shell import RunShellCommand

TOOL_CLASSES: tuple[type[Tool], ...] = (
    ReadFile,
    ListDirectory,
    Glob,
    GrepSearch,
    WriteFile,
    Replace,
    RunShellCommand,
)


def default_tools() -> dict[str, Tool]:
    """A fresh instance of every built-in tool, keyed by the name the model uses."""
    return {cls.name: cls() for cls in TOOL_CLASSES}
