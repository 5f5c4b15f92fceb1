"""Recipe hooks: commands the recipe author runs before and after tool calls (docs/hooks.md)."""

from agentci.hooks.runner import CompiledHook, HookRunner, HookVerdict, resolve_command

__all__ = ["CompiledHook", "HookRunner", "HookVerdict", "resolve_command"]
