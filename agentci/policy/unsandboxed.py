"""Fewer powers when ``sandbox: auto`` found no sandbox (a laptop, a pre-commit hook).

Without bubblewrap a command runs on the host with the user's rights: it can read the user's
files and, through ``/proc/<pid>/environ`` of agentci's parent processes (the shell that
started it), every secret the user's session holds. An allowed ``pytest`` or ``make`` runs the
workspace's code, which the agent may have written; a read-only ``git`` obeys the
repository's config. ``sandbox: auto`` falling back is not a choice the recipe made, so then
only the built-in read-only commands that run nothing of the workspace are allowed (``cat``,
``grep``, ``ls``, ``find``, ``sed -n`` … but not ``git``, nor one told to follow links as it
walks folders, ``grep -R``); everything else is denied with a reason naming
``sandbox: none``, the explicit opt-in.

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

#: Read-only commands' options that follow links while walking folders: short letters, long
#: names (abbreviations count), whole words.
_FOLLOW: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "grep": ("R", ("dereference-recursive",), ()),
    "egrep": ("R", ("dereference-recursive",), ()),
    "fgrep": ("R", ("dereference-recursive",), ()),
    "rg": ("L", ("follow",), ()),
    "tree": ("l", (), ()),
    "du": ("L", ("dereference",), ()),
    "ls": ("L", ("dereference",), ()),
    "find": ("", (), ("-L", "-follow")),
}


def follows_links(words: list[str | None]) -> bool:
    """Whether a read-only command is told to follow symbolic links as it walks folders
    (``grep -R``, ``rg -L``, ``find -L`` …): a committed link then leads out of the
    workspace."""
    if not words or words[0] not in _FOLLOW:
        return False
    letters, longs, whole = _FOLLOW[str(words[0])]
    for w in words[1:]:
        if w is None or not w.startswith("-") or w == "--":
            continue
        if w in whole:
            return True
        if w.startswith("--"):
            name = w[2:].split("=", 1)[0]
            if len(name) >= 3 and any(n.startswith(name) for n in longs):
                return True
        elif letters and not w.startswith("--") and any(ch in letters for ch in w[1:]):
            return True
    return False


def unsandboxed(found: sp.Analysis, deciding: list[str], reason: str | None) -> Decision | None:
    """The deny for a command line allowed by ``deciding`` (one rule per command) when the
    sandbox is missing for ``reason``; None when it may run (or the sandbox is there)."""
    if reason is None:
        return None
    for i, c in enumerate(found.commands):
        rule = deciding[i] if i < len(deciding) else deciding[-1]
        words = allow_form(c.words)
        if rule != "read_only_command":
            what = f"it is allowed by {rule}, and it may run content of the workspace"
        elif words[0] == "git":
            what = "git obeys the repository's config"
        elif follows_links(words):
            what = "it follows links while it walks folders (a link can lead to your files)"
        else:
            continue
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
    "rule-allowed or yolo command): set `sandbox: none` in the recipe to allow them anyway. "
    "verify and later setups still run on this machine, with your rights"
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
