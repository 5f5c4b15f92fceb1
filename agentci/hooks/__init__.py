"""Recipe hooks: commands the recipe author runs before and after tool calls (docs/hooks.md).

The names below load their module when first read: checking a recipe's hook commands
(:mod:`agentci.hooks.commands`, ``agentci validate``) does not load the runner and its shell
parser."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentci.hooks.commands import resolve_command
    from agentci.hooks.runner import CompiledHook, HookRunner, HookVerdict

__all__ = ["CompiledHook", "HookRunner", "HookVerdict", "resolve_command"]

_MODULES = {
    "resolve_command": "agentci.hooks.commands",
    "CompiledHook": "agentci.hooks.runner",
    "HookRunner": "agentci.hooks.runner",
    "HookVerdict": "agentci.hooks.runner",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module 'agentci.hooks' has no attribute {name!r}")
    return getattr(importlib.import_module(_MODULES[name]), name)
