"""What a hook's command names: its first word resolved in the hooks' folder, and every file
any of its words names (interpreter arguments included), for protection and fingerprints."""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from pathlib import Path

# The first word of a command when it is a plain (unquoted, unexpanded) word.
_FIRST_WORD = re.compile(r"^(\s*)([^\s;&|<>()'\"`$~\\]+)(?=$|[\s;&|<>()])")


def real_path(path: Path) -> Path:
    return Path(os.path.realpath(path))


def is_inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def fingerprint(path: Path) -> str:
    """SHA-256 of the file's bytes (``missing`` when it cannot be read)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "missing"


def resolve_command(command: str, recipe_dir: Path) -> tuple[str, Path | None]:
    """Resolve a relative path as first word against the recipe's folder.

    ``./ci/check.sh --x`` with the recipe in ``/r`` becomes ``/r/ci/check.sh --x``; a
    bare name (``python3 …``) is looked up on ``PATH`` as usual; an absolute path stays.
    Returns the command to run and the script file it names (None for a bare name).
    """
    m = _FIRST_WORD.match(command)
    if m is None or "/" not in m.group(2):
        return command, None
    word = m.group(2)
    path = Path(word) if word.startswith("/") else recipe_dir / word
    path = Path(os.path.normpath(path))
    if word.startswith("/"):
        return command, path
    rest = command[m.end() :]
    return m.group(1) + shlex.quote(str(path)) + rest, path


def _words(command: str) -> list[str]:
    """The words of ``command`` as the shell splits them (on whitespace if it cannot), and
    the value of each ``--option=value``."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    values = [w.split("=", 1)[1] for w in words if w.startswith("-") and "=" in w]
    return [*words, *values]


def named_files(command: str, home: Path) -> tuple[list[Path], list[Path]]:
    """Files ``command`` names (any word, interpreter arguments included): those relative to
    ``home`` that exist there, and those named by absolute path that exist."""
    relative: list[Path] = []
    absolute: list[Path] = []
    for word in _words(command):
        if not word or "\x00" in word or word.startswith("-"):
            continue
        path = Path(word)
        if path.is_absolute():
            if path.is_file() and path not in absolute:
                absolute.append(path)
        elif ".." not in path.parts:
            here = home / path
            if here.is_file() and not here.is_symlink() and here not in relative:
                relative.append(path)
    return relative, absolute
