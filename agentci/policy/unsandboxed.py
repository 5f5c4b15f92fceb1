"""Fewer powers when ``sandbox: auto`` found no sandbox (a laptop, a pre-commit hook).

Without bubblewrap a command runs on the host with the user's rights: it can read the user's
files and, through ``/proc/<pid>/environ`` of agentci's parent processes (the shell that
started it), every secret the user's session holds. An allowed ``pytest`` or ``make`` runs the
workspace's code, which the agent may have written; a read-only ``git`` obeys the
repository's config. ``sandbox: auto`` falling back is not a choice the recipe made, so then
only the built-in read-only commands that run nothing of the workspace are allowed (``cat``,
``grep``, ``ls``, ``find``, ``sed -n`` … but not ``git``); everything else is denied with a
reason naming ``sandbox: none``, the explicit opt-in.

``sandbox: none`` is that opt-in; when agentci's environment then holds secret-looking
variables, :func:`secrets_warning` is the warning the run gives (an event and a line in
summary.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from agentci.policy import shell_parse as sp
from agentci.policy.command_forms import allow_form
from agentci.policy.decision import Decision, deny
from agentci.policy.env import looks_secret

RULE = "no_sandbox"


def unsandboxed(found: sp.Analysis, deciding: list[str], reason: str | None) -> Decision | None:
    """The deny for a command line allowed by ``deciding`` (one rule per command) when the
    sandbox is missing for ``reason``; None when it may run (or the sandbox is there)."""
    if reason is None:
        return None
    for i, c in enumerate(found.commands):
        rule = deciding[i] if i < len(deciding) else deciding[-1]
        if rule == "read_only_command" and allow_form(c.words)[0] != "git":
            continue
        what = "git obeys the repository's config" if rule == "read_only_command" else (
            f"it is allowed by {rule}, and it may run content of the workspace"
        )  # fmt: skip
        return deny(
            RULE,
            f"`{c.text[:120]}` would run without a sandbox ({reason}) and {what}, on this "
            "machine with your rights. Without a sandbox only read-only commands that run "
            "nothing of the workspace are allowed; set `sandbox: none` in the recipe to "
            "allow the rest anyway, or install bubblewrap",
        )
    return None


#: Added to the ``sandbox_unavailable`` warning when ``sandbox: auto`` falls back.
FALLBACK_NOTE = (
    "; only read-only commands that run nothing of the workspace are allowed (no git, no "
    "rule-allowed or yolo command): set `sandbox: none` in the recipe to allow them anyway"
)


def secrets_warning(environ: Mapping[str, str]) -> str | None:
    """For ``sandbox: none``: the warning when agentci's environment holds secret-looking
    variables (their names, never their values), else None."""
    names = sorted(n for n, v in environ.items() if v and looks_secret(n))
    if not names:
        return None
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return (
        f"sandbox: none with secrets in agentci's environment ({shown}): they are not passed "
        "to the agent's commands, but those commands run on this machine with your rights and "
        "can read them in /proc/<pid>/environ of agentci's parent processes (the shell or CI "
        "step that started agentci; agentci's own too when run as root), with every other "
        "secret those processes hold and every file your user can read. Use `sandbox: auto` "
        "where bubblewrap works, or run agentci without these variables"
    )
