"""Built-in read-only commands, allowed without a rule in ``read_only`` and ``auto_edit``.

A command is read-only only without its escape hatches: ``find -exec/-delete``,
``git -c …``, ``git diff --ext-diff``, ``sed -i`` or ``sed … e/w``, ``awk`` with
``system()``/pipes/redirections, ``rg --pre``, ``sort -o`` … and only when every path it
names stays inside the workspace. Output redirections are judged separately.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

SIMPLE = frozenset(
    {
        "ls",
        "cat",
        "head",
        "tail",
        "wc",
        "pwd",
        "echo",
        "printf",
        "grep",
        "egrep",
        "fgrep",
        "stat",
        "which",
        "tree",
        "du",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "true",
        "false",
        "test",
        "[",
        "nl",
        "cut",
        "tr",
        "diff",
        "cmp",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "od",
        "hexdump",
        "column",
        "whoami",
        "uname",
        "env",
        "type",
        "comm",
        "exit",
        ":",
    }
)
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
GIT_BAD_ARGS = re.compile(r"^(--ext-diff|--output(=.*)?|-O.*|--open-files-in-pager.*|--exec.*)$")
SED_SAFE = re.compile(
    r"^((\d+|\$)(,(\d+|\$))?)?[pd]$|^((\d+|\$)(,(\d+|\$))?)?s(.)(?:(?!\9).)*\9(?:(?!\9).)*\9[gpiI0-9]*$"
)
AWK_BAD = re.compile(r"system|getline|[|>]|@load|fflush|close\(")


def why_not_read_only(words: list[str | None], *, cwd: Path, workspace: Path) -> str | None:
    """None when ``words`` is a read-only command; else the reason it is not."""
    if not words or any(w is None for w in words):
        return "it has arguments that expand at run time"
    name = words[0]
    args: list[str] = words[1:]  # type: ignore[assignment]
    if name not in SIMPLE | {"cd", "find", "git", "sed", "awk", "gawk", "rg", "sort", "uniq"}:
        return f"`{name}` is not a built-in read-only command"
    if name == "cd" and len(args) != 1:
        return "cd without exactly one directory"
    reason = _escape_hatch(name, args)
    if reason:
        return reason
    for a in args:
        value = a.split("=", 1)[1] if a.startswith("--") and "=" in a else a
        if value.startswith(("/", "~", "..")) or "/../" in value or value == "..":
            if value == "/dev/null" or _inside(value, cwd, workspace):
                continue
            return f"it names a path outside the workspace ({value})"
    return None


def _inside(value: str, cwd: Path, workspace: Path) -> bool:
    if value.startswith("~"):
        return False
    real = Path(os.path.realpath(cwd / value))
    try:
        real.relative_to(Path(os.path.realpath(workspace)))
    except ValueError:
        return False
    return True


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
            else:
                return f"git option {args[i]} can run commands"
        sub = args[i] if i < len(args) else ""
        if sub not in GIT_READ:
            return f"`git {sub}` is not a read-only git command"
        bad = next((a for a in args[i + 1 :] if GIT_BAD_ARGS.match(a)), None)
        return f"git {sub} {bad} can run commands or write files" if bad else None
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
        if any(a.startswith(("-f", "-i", "--include", "-l", "--load", "-E")) for a in args):
            return "awk loads a program file or extension"
        if any(AWK_BAD.search(a) for a in args):
            return "the awk program may run commands or write files"
        return None
    if name == "rg":
        bad = next((a for a in args if a.startswith(("--pre", "--hostname-bin"))), None)
        return f"rg {bad} runs commands" if bad else None
    if name == "sort":
        bad = next((a for a in args if a.startswith(("-o", "--output", "--compress"))), None)
        return f"sort {bad} writes files or runs programs" if bad else None
    if name == "uniq":
        operands = [a for a in args if not a.startswith("-")]
        return "uniq with two files writes the second" if len(operands) > 1 else None
    if name == "tree" and any(a.startswith("-o") for a in args):
        return "tree -o writes a file"
    return None
