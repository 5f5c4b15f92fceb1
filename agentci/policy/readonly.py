"""Built-in read-only commands, allowed without a rule in ``read_only`` and ``auto_edit``.

A command is read-only only without its escape hatches: ``find -exec/-delete``,
``git -c …``, ``git diff --ext-diff``, ``sed -i`` or ``sed … e/w``, ``awk`` with
``system()``/pipes/redirections or a program file, ``rg --pre``, ``sort -o``, ``printf -v``,
``date -s`` or ``date MMDDhhmm``, ``hostname NAME`` … and only when every path it names stays
inside the workspace: its operands and the values of its options alike (``-fFILE``,
``--file=FILE``, ``--file FILE``, ``@FILE``), links resolved. ``sort``, ``uniq``, ``tree``,
``date``, ``hostname`` and ``awk`` options are read against an allowlist, as the programs read
them (clusters, abbreviated long options: ``sort --ou=F`` is ``sort --output=F``). Under
``xargs`` (words appended from its input, unseen) only commands no argument can turn into a
writer qualify. Output redirections are judged separately.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
from collections.abc import Sequence
from pathlib import Path

from agentci.policy import readonly_specs as specs
from agentci.policy.getopt import parse
from agentci.policy.paths import is_below
from agentci.policy.shell_words import GlobWord

#: Commands that only read (or print what they are given) whatever their options.
SIMPLE = frozenset({
    "ls", "cat", "head", "tail", "wc", "pwd", "echo", "printf", "grep", "egrep", "fgrep",
    "stat", "which", "tree", "du", "basename", "dirname", "realpath", "readlink", "true",
    "false", "test", "[", "nl", "cut", "tr", "diff", "cmp", "md5sum", "sha1sum", "sha256sum",
    "od", "hexdump", "column", "whoami", "uname", "env", "type", "comm", "exit", ":",
    "sleep", "seq", "id", "nproc", "printenv", "tac",
})  # fmt: skip
GIT_READ = frozenset(
    {
        "status",
        "diff",
        "log",
        "show",
        "ls-files",
        "rev-parse",
        "blame",
        "grep",
        "shortlog",
        "describe",
        "ls-tree",
        "cat-file",
        "merge-base",
    }
)
SED_SAFE = re.compile(
    r"^((\d+|\$)(,(\d+|\$))?)?[pd]$|^((\d+|\$)(,(\d+|\$))?)?s(.)(?:(?!\9).)*\9(?:(?!\9).)*\9[gpiI0-9]*$"
)
#: Commands whose options can write or run: a pattern that could expand to an option (it
#: starts with ``*``, ``?`` or ``[``, so a file named ``--output=f`` matches) is refused.
GLOB_SENSITIVE = frozenset({"find", "git", "sed", "awk", "gawk", "rg", "printf", *specs.OPTIONS})
#: Names one pattern may expand to and still be judged (more: not read-only).
MAX_MATCHES = 5000
AWK_BAD = re.compile(r"system|getline|[|>]|@|fflush|close\(")


def why_not_read_only(
    words: list[str | None],
    *,
    cwd: Path,
    workspace: Path,
    open_args: bool = False,
    bases: Sequence[Path] | None = None,
) -> str | None:
    """None when ``words`` is a read-only command; else the reason it is not.

    ``open_args``: the command runs under ``xargs``, which appends words nobody has seen.
    ``bases``: every folder the command may run in (``cwd`` and where the line's ``cd``
    commands lead); every path it names, options' values included, is judged from each.
    """
    if not words or words[0] is None:
        return "its command name expands at run time"
    if open_args:
        if words[0] not in specs.XARGS_SAFE:
            return (
                f"xargs adds words from its input to `{words[0]}`, which some arguments "
                "turn into a writer or a runner"
            )
        words = [w for w in words if w is not None]
    if any(w is None for w in words):
        return "it has arguments that expand at run time"
    name: str = words[0]  # type: ignore[assignment]
    args: list[str] = words[1:]  # type: ignore[assignment]
    if name not in SIMPLE | {"cd", "find", "git", "sed", "awk", "gawk", "rg", *specs.OPTIONS}:
        return f"`{name}` is not a built-in read-only command"
    if name == "cd" and len(args) != 1:
        return "cd without exactly one directory"
    if name in GLOB_SENSITIVE and any(isinstance(a, GlobWord) and a[:1] in "*?[" for a in args):
        return (
            f"an unquoted pattern could expand to an option of {name} (a file named "
            "--output=…); quote the pattern"
        )
    reason = _escape_hatch(name, args)
    if reason:
        return reason
    for a in args:
        words_of_a = _expand(a, bases or [cwd])
        if words_of_a is None:
            return f"the pattern {a} matches more than {MAX_MATCHES} names; narrow it"
        for word in words_of_a:
            for value, certain in _named_paths(word):
                if _outside(value, certain, bases or [cwd], workspace):
                    return f"it names a path outside the workspace ({value})"
    return None


def _expand(arg: str, bases: Sequence[Path]) -> list[str] | None:
    """``arg``, and for a pattern the names bash would put in its place (judged like typed
    names: ``cat *`` must not reach a committed link to a file outside); None when there
    are too many to judge."""
    if not isinstance(arg, GlobWord):
        return [arg]
    out = [str(arg)]
    for base in bases:
        found = list(itertools.islice(glob.iglob(arg, root_dir=base), MAX_MATCHES + 1))
        if len(found) > MAX_MATCHES:
            return None
        out += found
    return out


def _named_paths(arg: str) -> list[tuple[str, bool]]:
    """What in ``arg`` may name a file, and whether it surely does: the word itself, the value
    of ``--opt=VALUE``, a short option's attached value (``-fFILE``, ``-nfFILE``: every tail
    of the cluster, since which letters take a value differs per program) and a response
    file (``@FILE``)."""
    out = [(arg, True)]
    if arg.startswith("--") and "=" in arg:
        out.append((arg.split("=", 1)[1], True))
    elif arg.startswith("-") and len(arg) > 2:
        out += [(arg[i:], False) for i in range(2, len(arg))]
    if arg.startswith("@") and len(arg) > 1:
        out.append((arg[1:], False))
    return out


def _outside(value: str, certain: bool, bases: Sequence[Path], workspace: Path) -> bool:
    """Whether ``value`` names a path outside the workspace from any of ``bases``.

    A word or ``--opt=`` value that looks like a path (absolute, ``~``, ``..``) must be
    inside; an attached value only when it names an existing file (``cut -d/`` names no
    file). Anything that exists, link or not, must resolve inside.
    """
    root = Path(os.path.realpath(workspace))
    looks = value.startswith(("/", "~", "..")) or "/../" in value or value == ".."
    if looks and value == "/dev/null":
        return False
    if value.startswith("~"):
        return certain
    for base in bases:
        path = base / value
        real = Path(os.path.realpath(path))
        if is_below(real, root):
            continue
        if looks and certain:
            return True
        if os.path.lexists(path) and (certain or not real.is_dir()):
            return True
    return False


def _escape_hatch(name: str, args: list[str]) -> str | None:
    if name == "find":
        bad = {
            "-exec",
            "-execdir",
            "-ok",
            "-okdir",
            "-delete",
            "-fprint",
            "-fprint0",
            "-fprintf",
            "-fls",
        }
        hit = next((a for a in args if a in bad), None)
        return f"find {hit} runs commands or writes files" if hit else None
    if name == "git":
        i = 0
        while i < len(args) and args[i].startswith("-"):
            if args[i] in ("--no-pager", "-P"):
                i += 1
            elif args[i] == "-C" and i + 1 < len(args):
                i += 2  # a folder, judged as a path below (and for the repository it is in)
            else:
                return f"git option {args[i]} can run commands"
        sub = args[i] if i < len(args) else ""
        if sub not in GIT_READ:
            return f"`git {sub}` is not a read-only git command"
        unsafe = next((a for a in args[i + 1 :] if _git_bad(a)), None)
        return f"git {sub} {unsafe} can run commands or write files" if unsafe else None
    if name == "sed":
        scripts: list[str] = []
        rest = list(args)
        while rest:
            a = rest.pop(0)
            if a.startswith("-i") or a.startswith("--in-place"):
                return "sed -i edits files"
            if a in ("-e", "--expression"):
                scripts.append(rest.pop(0) if rest else "")
            elif a.startswith("--expression="):
                scripts.append(a.split("=", 1)[1])
            elif a in ("-f", "--file") or a.startswith("--file="):
                return "sed -f runs a script file"
            elif a.startswith("-") and a != "-":
                if not re.fullmatch(r"-[nEsruz]+", a):
                    return f"sed option {a} is not known to be safe"
            elif not scripts:
                scripts.append(a)
        if not scripts or not all(SED_SAFE.match(s.strip()) for s in scripts):
            return "the sed script may run commands or write files (e/w/r)"
        return None
    if name in ("awk", "gawk"):
        found = parse(args, specs.AWK)
        if found.error:
            return f"awk: {found.error} (it may load a program file or write files)"
        if any(AWK_BAD.search(a) for a in args):
            return "the awk program may run commands or write files"
        return None
    if name == "rg":
        unsafe = next((a for a in args if a.startswith(("--pre", "--hostname-bin"))), None)
        return f"rg {unsafe} runs commands" if unsafe else None
    if name == "printf" and args and args[0].startswith("-") and args[0] != "--":
        return "printf -v assigns a shell variable (PATH, for one)"
    if name in specs.OPTIONS:
        spec, danger = specs.OPTIONS[name]
        found = parse(args, spec)
        if found.error:
            return f"{name}: {found.error}; only options known to be safe are allowed"
        option = next((o for o, _ in found.options if o in danger), None)
        if option:
            return f"{name} {option} {danger[option]}"
        return _operands_write(name, found.operands)
    return None


def _operands_write(name: str, operands: list[str]) -> str | None:
    """Why the operands of an allowlisted command make it change something, if they do."""
    if name == "uniq" and len(operands) > 1:
        return "uniq with two files writes the second"
    if name == "date" and (len(operands) > 1 or any(o[:1] != "+" for o in operands)):
        return "date with an operand that is not +FORMAT (MMDDhhmm…) sets the system clock"
    if name == "hostname" and operands:
        return "hostname NAME sets the host name"
    return None


def _git_bad(arg: str) -> bool:
    """A git option that runs a program or writes a file, abbreviated or not."""
    if arg.startswith("--"):
        name = arg[2:].split("=", 1)[0]
        return bool(name) and any(bad.startswith(name) for bad in specs.GIT_BAD_LONG)
    return arg.startswith("-") and "O" in arg  # -O[pager] of git grep, also in a cluster
