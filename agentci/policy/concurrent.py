"""Which shell commands only read, so the scheduler may run them together with the reads.

A ``run_shell_command`` call runs alongside other read-only calls of its turn only when every
sub-command is a built-in read-only command (:mod:`agentci.policy.readonly`, the same test the
``read_only`` and ``auto_edit`` modes apply), with no output redirection to a file, no
command or process substitution or other shell shape, no variable assignment, no program
from the workspace, and no ``git`` (``git status`` may refresh the index and take its lock).
This says nothing about whether the call is allowed: the policy still judges it, alone.
"""

from __future__ import annotations

from pathlib import Path

from agentci.errors import ToolFailure
from agentci.policy import shell_parse as sp
from agentci.policy.command_forms import allow_form
from agentci.policy.gitpin import command_dirs
from agentci.policy.paths import resolve
from agentci.policy.program_path import workspace_program
from agentci.policy.readonly import why_not_read_only

_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def only_reads(command: str, dir_path: str | None, *, workspace: Path, search_path: str) -> bool:
    """True when ``command`` (run in ``dir_path``) can only read the workspace."""
    try:
        cwd = resolve(workspace, dir_path or ".").real
    except ToolFailure:
        return False
    found = sp.analyze(command)
    if found.error or found.shapes or found.variables or not found.commands:
        return False
    if any(r.target not in _HARMLESS_TARGETS for r in found.redirects):
        return False
    bases = command_dirs(found, cwd) or [cwd]
    for c in found.commands:
        words = allow_form(c.words)
        if c.env or not words or words[0] == "git":
            return False
        why = why_not_read_only(
            words, cwd=cwd, workspace=workspace, open_args=c.open_args, bases=bases
        )
        if why is not None:
            return False
        for name in [*c.wrappers, words[0]]:
            if workspace_program(str(name), search_path, bases, workspace) is not None:
                return False
    return True
