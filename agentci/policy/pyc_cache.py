"""A bytecode cache for the sandbox that nothing in the sandbox can write.

Sandboxed Python (the model's commands, setup, verify) runs with ``PYTHONPYCACHEPREFIX``
(:data:`agentci.policy.env.NO_CACHES`): it never reads a ``.pyc`` from a ``__pycache__``
folder, so a ``.pyc`` the agent planted in the workspace or in a ``.venv`` inside it is never
run — the verdict stays about the patch. Inside the sandbox that prefix was an empty folder,
so every process compiled everything it imported, the standard library and pytest included
(about 1 s of CPU for each verify run).

The **store** (:func:`store_dir`: ``$AGENTCI_PYC_CACHE``, else ``~/.cache/agentci/pyc``) is
what the prefix shows instead. It holds, by the prefix's layout, only:

* copies of the ``.pyc`` files that already sit beside sources **outside** the workspace (the
  interpreter's own ``__pycache__``, a runner's virtualenv), checked against their source
  and re-headed as hash-checked — copies, never links: that folder may lie inside a later
  run's workspace;
* ``.pyc`` files agentci's interpreter compiled itself from such sources, hash-checked.

Python compares a hash-checked ``.pyc``'s source hash on every import: a changed source is
compiled again, even one changed to the same size and modification time.

Nothing under the workspace, agentci's temporary folders or ``/tmp`` (the sandbox's own) is
ever entered. Every sandbox sees the store **read-only**. Only the fill step writes it: a
sandboxed ``python -I -S`` (:mod:`agentci.policy.pyc_fill`) that reads sources as data and
runs no workspace code, no ``.pth`` file, no ``sitecustomize``.

Which sources to fill is learned from verify: each verify run gets a private, writable
**view** of the store (links to its files) as its prefix and may write bytecode there; what
it wrote is what the store lacked. agentci takes only the *names* of those files (source
path, cache tag, magic number), never their content, and throws the view away.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import time
from collections.abc import Mapping
from pathlib import Path

from agentci.childproc import SANDBOX_PYCACHE_PREFIX
from agentci.tempdirs import make_temp_dir

#: Where the prefix is inside every sandbox (its private ``/tmp``): NO_CACHES's value.
SANDBOX_PREFIX = SANDBOX_PYCACHE_PREFIX
#: A store with more entries than this is emptied and filled again (it grows with every
#: interpreter and virtualenv whose modules verify imported).
MAX_ENTRIES = 60_000
#: At most this many names are learned from one verify run.
MAX_LEARNED = 20_000
#: A verify command whose program's last run taught the store nothing sees the store
#: read-only (no view to make) for this long; then it learns again.
QUIET_SECONDS = 24 * 3600
#: The store's folder of those commands (hashes of their text; no .pyc, never a prefix path).
QUIET = ".quiet"


def store_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """The store for sandboxed Python, created when missing; None when it is off
    (``AGENTCI_PYC_CACHE=off``) or unusable (not a folder of ours, writable by others)."""
    env = os.environ if environ is None else environ
    chosen = env.get("AGENTCI_PYC_CACHE")
    if chosen is not None and chosen.strip().lower() in ("", "off", "0", "false", "no"):
        return None
    if chosen:
        path = Path(chosen)
    else:
        base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = Path(base) / "agentci" / "pyc"
    if not path.is_absolute():
        return None
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return None
    mine = st.st_uid == os.getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if not stat.S_ISDIR(st.st_mode) or not mine:
        return None
    return Path(os.path.realpath(path))


def make_view(store: Path) -> Path:
    """A new writable view of ``store`` (in memory when it can be): the same folders, a link
    to each of its ``.pyc`` files. A store past :data:`MAX_ENTRIES` is emptied first."""
    view = make_temp_dir("pycview", in_memory=True)
    links: list[tuple[str, str]] = []
    for dirpath, dirs, files in os.walk(store):
        if dirpath == str(store) and QUIET in dirs:
            dirs.remove(QUIET)
        rel = os.path.relpath(dirpath, store)
        links += [
            (os.path.join(dirpath, f), os.path.join(rel, f)) for f in files if f.endswith(".pyc")
        ]
        if len(links) > MAX_ENTRIES:
            empty_store(store)
            return view
    made: set[str] = set()
    for target, rel in links:
        folder = os.path.dirname(rel)
        if folder not in made:
            os.makedirs(view / folder, exist_ok=True)
            made.add(folder)
        with contextlib.suppress(OSError):
            os.symlink(target, view / rel)
    return view


def _quiet_file(store: Path, command: str, path: str | None) -> Path:
    """The note for ``command``'s program: its first word (a command that names the files to
    check, the pre-commit hook's ``ruff check {{ files }}``, differs from run to run), and for
    a bare name the ``PATH`` it is looked up on (``path``): ``python`` of one virtualenv is not
    ``python`` of another, whose imports the store may still lack. Text only: nothing is
    looked up on disk."""
    words = command.split(maxsplit=1)
    program = words[0] if words else ""
    key = program if "/" in program else f"{program}\0{path or ''}"
    return store / QUIET / hashlib.sha256(key.encode()).hexdigest()[:32]


def is_quiet(store: Path, command: str, path: str | None = None) -> bool:
    """Whether the last run of ``command`` (within :data:`QUIET_SECONDS`; ``path``: the run's
    ``PATH``) taught the store nothing: a linter, or a test suite whose imports the store
    already has."""
    try:
        age = time.time() - _quiet_file(store, command, path).stat().st_mtime
    except OSError:
        return False
    return 0 <= age < QUIET_SECONDS


def mark_quiet(store: Path, command: str, *, quiet: bool, path: str | None = None) -> None:
    """Remember whether a run of ``command`` (``path``: its ``PATH``) taught the store
    nothing."""
    note = _quiet_file(store, command, path)
    with contextlib.suppress(OSError):
        if quiet:
            note.parent.mkdir(exist_ok=True)
            note.touch()
        else:
            note.unlink(missing_ok=True)


def empty_store(store: Path) -> None:
    """Remove everything in ``store`` (it fills again as verify runs)."""
    for entry in list(os.scandir(store)):
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                aside = store.with_name(f".{store.name}-old-{os.getpid()}-{entry.name}")
                os.rename(entry.path, aside)
                shutil.rmtree(aside, ignore_errors=True)
            else:
                os.unlink(entry.path)


def learned(view: Path) -> list[tuple[str, str, str]]:
    """What a verify run compiled that the store lacked: ``(source path, cache tag, magic
    number in hex)`` for each ``.pyc`` file it wrote into ``view`` (its links are the store's
    and are skipped). Only names and the 4-byte magic are read; nothing is followed."""
    found: list[tuple[str, str, str]] = []
    for dirpath, _dirs, files in os.walk(view):
        rel = os.path.relpath(dirpath, view)
        for name in files:
            parts = name.split(".")
            if len(parts) != 3 or parts[2] != "pyc" or not _is_tag(parts[1]):
                continue  # not <module>.<tag>.pyc (optimised, pytest's own, a temp file)
            magic = _magic(os.path.join(dirpath, name))
            if magic is None:
                continue
            source = "/" + os.path.normpath(os.path.join(rel, parts[0] + ".py"))
            found.append((source, parts[1], magic))
            if len(found) >= MAX_LEARNED:
                return found
    return found


def _is_tag(tag: str) -> bool:
    impl, _, version = tag.partition("-")
    return impl.isalpha() and version.isdigit()


def _magic(path: str) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None  # a link: one of the store's
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = os.read(fd, 4)
    finally:
        os.close(fd)
    return head.hex() if len(head) == 4 else None


def remove_view(view: Path) -> None:
    """Throw a view away."""
    shutil.rmtree(view, ignore_errors=True)
