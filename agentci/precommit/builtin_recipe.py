"""The built-in recipe ``recipes/fix-lint.yaml`` as YAML's safe loader reads it, for the
hook's clean path (:mod:`agentci.precommit.quick`), which then imports no YAML parser
(PyYAML's import is about 20 ms, a twentieth of the hook). Used only for the very bytes it was read from
(:data:`SOURCE_SHA256`); a recipe file that differs is parsed as YAML. When the recipe
changes, tests/precommit/test_builtin_recipe.py fails and prints the new values for this file.
"""

from __future__ import annotations

import hashlib
from typing import Any

#: sha256 of the recipe file :data:`PARSED` was read from.
SOURCE_SHA256 = "674b3df45002087c24c5b62d724ba6334d897b79d11cda9ef271c9b59d256119"

#: ``yaml.safe_load`` of that file.
PARSED: dict[str, Any] = {
    "version": 1,
    "name": "fix-lint",
    "description": "Make `ruff check` pass on the staged files without disabling rules.",
    "model": {"name": "gemini-2.5-flash", "temperature": 0.2},
    "parameters": {
        "files": {
            "type": "list",
            "description": "The files being committed (pre-commit passes them)",
        }
    },
    "instructions": "Fix the code itself. Never add `# noqa`, never change the ruff "
    "configuration\n"
    "(pyproject.toml, ruff.toml, .ruff.toml) to make a warning go away. Change "
    "only the files\n"
    "named in the task.\n",
    "prompt": "`{{ verify.command }}` reports problems in the files being committed:\n"
    "\n"
    "{{ verify.output }}\n"
    "\n"
    "Fix each one in the code of these files: {{ files }}. You may run\n"
    "`ruff check --no-cache {{ files }}` to check, then finish with a one-line "
    "summary.\n",
    "workspace": {"path": ".", "isolation": "none"},
    "verify": {
        "command": "ruff check --no-cache --force-exclude --output-format=concise {{ files }}",
        "attempts": 2,
        "timeout_seconds": 60,
        "skip_if_passing": True,
    },
    "policy": {
        "mode": "auto_edit",
        "rules": [
            {"tool": "run_shell_command", "command": "ruff check", "decision": "allow"},
            {
                "tool": "run_shell_command",
                "command": "ruff check --fix",
                "decision": "deny",
                "reason": "fix the code by hand so each change is reviewed",
            },
        ],
    },
    "budget": {
        "max_turns": 20,
        "max_cost_usd": 0.25,
        "max_wall_seconds": 240,
        "tool_timeout_seconds": 60,
    },
    "guards": {"max_changed_lines": 200},
}


def parsed(data: bytes) -> dict[str, Any] | None:
    """The recipe ``data`` holds, when it is the file :data:`PARSED` was read from (a copy);
    None for any other bytes."""
    if hashlib.sha256(data).hexdigest() != SOURCE_SHA256:
        return None
    return copy_of(PARSED)


def copy_of(value: Any) -> Any:
    """A deep copy of plain data (dicts, lists, scalars), as a fresh parse would return."""
    if isinstance(value, dict):
        return {k: copy_of(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_of(v) for v in value]
    return value
