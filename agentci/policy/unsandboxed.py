"""Fewer powers when ``sandbox: auto`` found no sandbox (a laptop, a pre-commit hook).

Without bubblewrap a command runs on the host with the user's rights: it can read the user's
files and, through ``/proc/<pid>/environ`` of agentci's parent processes (the shell that
started it), every secret the user's session holds. An allowed ``pytest`` or ``make`` runs the
workspace's code, which the agent may have written; a read-only ``git`` obeys the
repository's config. ``sandbox: auto`` falling back is not a choice the recipe made, so then
only the built-in read-only commands that run nothing of the workspace are allowed (``cat``,
``grep``, ``ls``, ``find``, ``sed -n`` …); everything else is denied with a reason naming
``sandbox: none``, the explicit opt-in. So is a read-only command that would open a name the
policy never judged, since without the confined sandbox (:mod:`agentci.policy.confined`)
nothing else keeps it from the user's files: one told to follow links as it walks folders
(``grep -R``, ``rg -L``, ``find -L``, ``diff -r``), one that reads the names of the files to
open from a file or its input (``--files0-from``, ``md5sum -c``, anything run by ``xargs``),
an ``awk`` program that sets its own ``ARGV``, and a ``< FILE`` outside the workspace.

``sandbox: none`` is that opt-in; when agentci's environment then holds secret-looking
variables, :func:`secrets_warning` is the warning the run gives (an event and a line in
summary.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from agentci.errors import ToolFailure
from agentci.policy import shell_parse as sp
from agentci.policy.command_forms import allow_form
from agentci.policy.decision import Decision, deny
from agentci.policy.env import looks_secret
from agentci.policy.paths import resolve

RULE = "no_sandbox"

_SUMS = ("c", ("check",), ())
#: Read-only commands' options that follow links while walking folders or read the names of
#: the files to open from a file: short letters, long names (abbreviations count), whole
#: words. ``diff`` compares what a link in a folder points to (unless ``--no-dereference``).
_FOLLOW: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "grep": ("R", ("dereference-recursive",), ()),
    "egrep": ("R", ("dereference-recursive",), ()),
    "fgrep": ("R", ("dereference-recursive",), ()),
    "rg": ("L", ("follow",), ()),
    "tree": ("l", (), ()),
    "du": ("L", ("dereference", "files0-from"), ()),
    "wc": ("", ("files0-from",), ()),
    "sort": ("", ("files0-from",), ()),
    "ls": ("L", ("dereference",), ()),
    "find": ("", (), ("-L", "-follow", "-files0-from")),
    "diff": ("rN", ("recursive", "new-file", "unidirectional-new-file"), ()),
    "md5sum": _SUMS,
    "sha1sum": _SUMS,
    "sha256sum": _SUMS,
}


def follows_links(words: list[str | None]) -> bool:
    """Whether a read-only command is told to follow symbolic links as it walks folders
    (``grep -R``, ``rg -L``, ``find -L`` …) or to read the names of the files it opens from
    a file (``--files0-from``, ``md5sum -c``): a committed link then leads out of the
    workspace."""
    if not words or words[0] not in _FOLLOW:
        return False
    letters, longs, whole = _FOLLOW[str(words[0])]
    if words[0] == "diff" and "--no-dereference" in words:
        return False
    for w in words[1:]:
        if w is None or not w.startswith("-") or w == "--":
            continue
        if w in whole:
            return True
        if w.startswith("--"):
            # an abbreviation that is not this option's is ambiguous or another option's
            name = w[2:].split("=", 1)[0]
            if name and any(n.startswith(name) for n in longs):
                return True
        elif letters and any(ch in letters for ch in w[1:]):
            return True
    return False


def _opens_unjudged(c: sp.SimpleCommand, words: list[str | None]) -> str | None:
    """Why a read-only command would open files whose names the policy never saw, or None."""
    if follows_links(words):
        return (
            "it follows links while it walks folders, or reads the names of the files it "
            "opens from a file (a link can lead to your files; use `-r`, no `-L`)"
        )
    if c.open_args:
        return "xargs gives it names from its input, which nobody judged (a link or `/…`)"
    if words[0] in ("awk", "gawk") and any(w is not None and "ARGV" in w for w in words):
        return "its program sets ARGV, the files awk opens"
    return None


def _outside_input(found: sp.Analysis, cwd: Path, workspace: Path) -> str | None:
    """A ``< FILE`` of the line that is computed or not inside the workspace, or None."""
    moves = any(c.name in ("cd", "pushd", "popd") for c in found.commands)
    for name in found.inputs:
        if name == "/dev/null":
            continue
        if name is None or (moves and not name.startswith("/")):
            return "a `<` redirection from a name computed at run time or after a cd"
        try:
            resolve(workspace, name, base=cwd)
        except (ToolFailure, OSError, ValueError):
            return f"`< {name}` reads a file outside the workspace"
    return None


def unsandboxed(
    found: sp.Analysis,
    deciding: list[str],
    reason: str | None,
    *,
    cwd: Path,
    workspace: Path,
) -> Decision | None:
    """The deny for a command line (run in ``cwd``) allowed by ``deciding`` (one rule per
    command) when the sandbox is missing for ``reason``; None when it may run (or the sandbox
    is there)."""
    if reason is None:
        return None
    for i, c in enumerate(found.commands):
        rule = deciding[i] if i < len(deciding) else deciding[-1]
        words = allow_form(c.words)
        if rule != "read_only_command":
            what = f"it is allowed by {rule}, and it may run content of the workspace"
        elif words[0] == "git":
            what = "git obeys the repository's config"
        else:
            what = _opens_unjudged(c, words) or ""
        if what:
            return _deny(c.text, reason, what)
    if deciding and all(d == "read_only_command" for d in deciding):
        why = _outside_input(found, cwd, workspace)
        if why is not None:
            return _deny(found.commands[0].text, reason, why)
    return None


def _deny(text: str, reason: str, what: str) -> Decision:
    return deny(
        RULE,
        f"`{text[:120]}` would run without a sandbox ({reason}) and {what}, on this "
        "machine with your rights. Without a sandbox only read-only commands that run "
        "nothing of the workspace and open only the files they name are allowed; set "
        "`sandbox: none` in the recipe to allow the rest anyway, or install bubblewrap",
    )


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
