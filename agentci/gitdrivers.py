"""Every filter, diff and merge driver a repository's config could define, found without
asking under which conditions git would read it.

git runs a driver a repository's ``.gitattributes`` selects (``*.txt filter=x``) when its
config defines it (``filter.x.smudge``), in any config file git reads for the command: the
repository's ``config``, a worktree's ``config.worktree``, and every file those include —
``include.path``, and ``includeIf.<condition>.path`` when the condition holds *for that git
process* (``gitdir:``, ``onbranch:``, ``hasconfig:``). Asking git to list the config from
another folder, another git dir or another branch can judge a condition differently (an
``includeIf "gitdir:**/worktrees/**"`` is false for the checkout and true in its worktrees).

So :func:`driver_names` does not evaluate conditions: it reads each config file, then every
file any ``include.path`` or ``includeIf.*.path`` of it names (relative to the including file,
as git does, under both the path git opens and its real path), whatever the condition, and so
on. The key names found are a superset of the ones any git process on the repository can
see. git itself parses each file (``git config --file - --no-includes``, the bytes on stdin:
no second open, no FIFO to block on); parsing config runs nothing.

Names are kept exactly: a subsection may hold ``=``, ``.``, quotes, spaces or bytes that are
not UTF-8 (carried as :func:`os.fsdecode` text, which :mod:`subprocess` turns back into the
same bytes). They are meant for ``GIT_CONFIG_KEY_<n>`` (:func:`agentci.gitenv.config_env`),
never for ``-c key=value``, which git splits at the first ``=``.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
from collections.abc import Mapping
from pathlib import Path

#: Key names of a repository config that make git start a program the config names.
DRIVER = re.compile(
    r"(?:filter\..+\.(?:clean|smudge|process|required)"
    r"|diff\..+\.(?:textconv|command)"
    r"|merge\..+\.(?:driver|recursive)"
    r"|diff\.external)",
    re.I | re.S,
)

_INCLUDE = re.compile(r"include(?:if\..*)?\.path", re.I | re.S)

#: Include levels followed (git stops at 10; more are read anyway: a superset).
MAX_DEPTH = 32

#: Parsed config files, by the hash of their bytes: (key names, include values as written).
_PARSED: dict[bytes, tuple[list[str], list[str]]] = {}
_PARSED_KEPT = 256


def _read(path: Path) -> bytes | None:
    """The bytes of the regular file ``path``; None when it is not one or cannot be read
    (git reads nothing from it either)."""
    try:
        with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NONBLOCK)) as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            return fh.read()
    except OSError:
        return None


def _git_config(data: bytes, args: list[str], git: str, env: Mapping[str, str]) -> bytes | None:
    """``git config --file - --no-includes --null <args>`` of the config text ``data``; its
    output, or None when git failed (exit 1: nothing matched, is an empty answer)."""
    done = subprocess.run(
        [git, "config", "--file", "-", "--no-includes", "--null", *args],
        input=data,
        env=dict(env),
        capture_output=True,
        check=False,
    )
    if done.returncode == 1 and not done.stdout:
        return b""
    return done.stdout if done.returncode == 0 else None


def _pairs(out: bytes) -> list[tuple[str, str]]:
    """``key\\nvalue\\0`` records as (key, value) text (bytes kept: :func:`os.fsdecode`)."""
    pairs = []
    for record in out.split(b"\0"):
        if record:
            key, _, value = record.partition(b"\n")
            pairs.append((os.fsdecode(key), os.fsdecode(value)))
    return pairs


def _parse(data: bytes, git: str, env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """The key names of config text ``data`` and the paths its includes name (``~`` and
    ``%(prefix)`` expanded by git; relative ones as written)."""
    digest = hashlib.sha256(data).digest()
    if digest in _PARSED:
        return _PARSED[digest]
    listed = _git_config(data, ["--list"], git, env)
    pairs = _pairs(listed or b"")
    names = [k for k, _ in pairs]
    raw = [v for k, v in pairs if _INCLUDE.fullmatch(k)]
    paths: list[str] = []
    if raw:
        typed = _git_config(
            data, ["--type=path", "--get-regexp", r"^include(if\..*)?\.path$"], git, env
        )
        if typed is not None:
            paths = [v for _, v in _pairs(typed)]
        else:  # a path git cannot expand (``~nobody/x``): git fails on it; the rest still count
            paths = [os.path.expanduser(v) for v in raw if not v.startswith("%(prefix)")]
    if listed is not None:
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.clear()
        _PARSED[digest] = (names, paths)
    return names, paths


def _targets(including: Path, value: str) -> list[Path]:
    """Where an include ``value`` of the file ``including`` may lead: an absolute path, or
    relative to the folder of the path git opened and of its real path."""
    if not value:
        return []
    if os.path.isabs(value):
        return [Path(value)]
    bases = dict.fromkeys([including.parent, Path(os.path.realpath(including)).parent])
    return [base / value for base in bases]


def config_files(git_dir: Path) -> list[Path]:
    """The config files git reads for the git dir ``git_dir``: its ``config`` and
    ``config.worktree``, and those of its common dir (a linked worktree's ``commondir``)."""
    files = [git_dir / "config", git_dir / "config.worktree"]
    common = git_dir / "commondir"
    data = _read(common)
    if data is not None:
        base = Path(os.path.realpath(git_dir / os.fsdecode(data.strip())))
        files += [base / "config", base / "config.worktree"]
    return files


def driver_names(git_dir: Path, *, git: str, env: Mapping[str, str]) -> list[str]:
    """The driver key names (:data:`DRIVER`) of ``git_dir``'s config files and of every file
    they include, at any depth and whatever the ``includeIf`` condition, in order, once
    each. ``git`` and ``env`` are the git program and environment that parse them."""
    queue = [(path, 0) for path in config_files(git_dir)]
    seen: set[tuple[str, str]] = set()
    found: list[str] = []
    while queue:
        path, depth = queue.pop(0)
        key = (os.path.realpath(path), os.path.realpath(path.parent))
        if key in seen:
            continue
        seen.add(key)
        data = _read(path)
        if data is None:
            continue
        names, includes = _parse(data, git, env)
        found += [n for n in dict.fromkeys(names) if DRIVER.fullmatch(n) and n not in found]
        if depth < MAX_DEPTH:
            queue += [(t, depth + 1) for value in includes for t in _targets(path, value)]
    return found
