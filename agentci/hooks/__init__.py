"""Recipe hooks: commands the recipe author runs before and after tool calls (docs/hooks.md)."""

from agentci.hooks.commands import resolve_command
from agentci.hooks.runner import CompiledHook, HookRunner, HookVerdict

__all__ = ["CompiledHook", "HookRunner", "HookVerdict", "resolve_command"]
