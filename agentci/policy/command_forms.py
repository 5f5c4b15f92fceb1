"""How rules see a parsed command's words.

Deny rules are generous (``/usr/bin/rm`` is ``rm``; ``git -C dir push`` is ``git push``);
allow rules are strict (only a system directory is stripped, so an agent-written ``./pytest``
is not ``pytest``).
"""

from __future__ import annotations

SYSTEM_DIRS = ("/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/")


def deny_form(words: list[str | None]) -> list[str | None]:
    """Words as deny rules see them: path stripped from the command, git options dropped."""
    if not words or words[0] is None:
        return words
    out = [words[0].rsplit("/", 1)[-1], *words[1:]]
    if out[0] == "git":
        out = ["git", *_git_rest(out[1:])]
    return out


def allow_form(words: list[str | None]) -> list[str | None]:
    """Words as allow rules see them: only a system directory is stripped from the command."""
    if not words or words[0] is None:
        return words
    name = words[0]
    if name.startswith(SYSTEM_DIRS) and name.count("/") <= 3:
        name = name.rsplit("/", 1)[-1]
    return [name, *words[1:]]


GIT_VALUE_OPTS = frozenset(
    {
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
        "--exec-path",
    }
)


def _git_rest(args: list[str | None]) -> list[str | None]:
    """Drop git's global options so ``git -C dir push`` reads as ``git push``.

    With ``-c``/``--config-env`` the subcommand is unknown (None): an alias or a pager set
    there can make any git command run another (``git -c alias.x=push x``).
    """
    i = 0
    configured = False
    while i < len(args):
        a = args[i]
        if a is None or not a.startswith("-"):
            break
        configured = configured or a in ("-c", "--config-env") or a.startswith("--config-env=")
        i += 2 if a in GIT_VALUE_OPTS else 1
    return [None, *args[i:]] if configured else args[i:]
