"""Filling the bytecode store (:mod:`agentci.policy.pyc_cache`) without running anyone's code.

The fill is one ``python -I -S -c`` process — agentci's own interpreter, never one from the
workspace; no ``site``, so no ``.pth`` file and no ``sitecustomize`` runs — in a sandbox whose
only writable folder is the store: no network, no host sockets, no capabilities, the same view
of the machine as the commands' sandbox (so it can read no file they could not). It gets the
names a verify run learned and, for each source:

* skips it unless it is a ``.py`` file outside every excluded folder (the workspace, the
  store, agentci's temporary folders), also after following links;
* copies the code of the ``.pyc`` beside it (``__pycache__/<module>.<tag>.pyc``, outside the
  excluded folders too) when its magic number is the one the verify run used and its header
  matches the source (modification time and size, or the source's hash), under a new header
  that makes it hash-checked: the store's entry never depends on a file outside the store
  again (that folder may lie in a later run's workspace, where the agent could rewrite the
  ``.pyc``), and a source changed later, even to the same size and time, is compiled again;
* otherwise compiles the source itself into a hash-checked ``.pyc``, when the run's tag and
  magic number are those of agentci's interpreter.

A wrong guess costs speed only: Python checks each ``.pyc`` against its source before using it.
Each entry is written beside its final name and renamed into place, so runs that fill the
same store at once never see half a file.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from agentci.policy.paths import is_below
from agentci.policy.pyc_cache import mark_quiet
from agentci.policy.pyc_view import to_fill
from agentci.policy.sandbox import Sandbox
from agentci.process import run_process

#: The fill, run as ``python -I -S -c FILL`` with a JSON request on stdin; prints its counts.
FILL = r"""
import importlib.util, json, os, py_compile, stat, sys, _imp
req = json.load(sys.stdin)
store, excluded = req["store"], req["excluded"]
own_tag, own_magic = sys.implementation.cache_tag, importlib.util.MAGIC_NUMBER.hex()
counts = {"copied": 0, "compiled": 0, "skipped": 0}

def allowed(path):
    return not any(path == e or path.startswith(e.rstrip("/") + "/") for e in excluded)

def matches(header, st, real, magic):
    if len(header) < 16 or header[:4].hex() != magic:
        return False
    flags = int.from_bytes(header[4:8], "little")
    if flags == 0:
        return (int.from_bytes(header[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
                and int.from_bytes(header[12:16], "little") == st.st_size & 0xFFFFFFFF)
    if flags in (1, 3):
        with open(real, "rb") as f:
            data = f.read()
        return _imp.source_hash(int.from_bytes(bytes.fromhex(magic), "little"), data) == header[8:16]
    return False

def place(dest, make):
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = dest + "." + os.urandom(6).hex() + ".tmp"
    try:
        make(tmp)
        os.replace(tmp, dest)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)

for source, tag, magic in req["sources"]:
    try:
        real = os.path.realpath(source)
        if (not source.endswith(".py") or not os.path.isabs(source)
                or os.path.normpath(source) != source or not allowed(source) or not allowed(real)):
            counts["skipped"] += 1
            continue
        st = os.stat(real)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 32 << 20:
            counts["skipped"] += 1
            continue
        head, name = os.path.split(source)
        dest = store + head + "/" + name[:-3] + "." + tag + ".pyc"
        beside = os.path.realpath(os.path.join(head, "__pycache__", name[:-3] + "." + tag + ".pyc"))
        code = None
        try:
            with open(beside, "rb") as f:
                if allowed(beside) and stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    data = f.read(64 << 20)
                    if matches(data[:16], st, real, magic):
                        code = data[16:]
        except OSError:
            code = None
        if code is not None:
            with open(real, "rb") as f:
                source_hash = _imp.source_hash(int.from_bytes(bytes.fromhex(magic), "little"), f.read())
            header = bytes.fromhex(magic) + (3).to_bytes(4, "little") + source_hash
            def write(tmp, body=header + code):
                with open(tmp, "xb") as out:
                    out.write(body)
            place(dest, write)
            counts["copied"] += 1
        elif tag == own_tag and magic == own_magic:
            place(dest, lambda tmp: py_compile.compile(
                real, cfile=tmp, dfile=source, doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH))
            counts["compiled"] += 1
        else:
            counts["skipped"] += 1
    except (OSError, SyntaxError, ValueError, py_compile.PyCompileError):
        counts["skipped"] += 1
print(json.dumps(counts))
"""


def fill_interpreter(excluded: Sequence[Path]) -> str | None:
    """agentci's interpreter as a real file (a virtualenv's base), or None when it lies in
    an excluded folder (agentci installed in the workspace: the agent could have replaced it)."""
    exe = getattr(sys, "_base_executable", "") or sys.executable
    real = Path(os.path.realpath(exe))
    if not real.is_file() or any(is_below(real, e) for e in excluded):
        return None
    return str(real)


async def fill_store(
    store: Path,
    sources: Sequence[tuple[str, str, str]],
    *,
    like: Sandbox,
    excluded: Sequence[Path],
    timeout: float = 300,
) -> dict[str, int] | None:
    """Fill ``store`` with bytecode for ``sources`` (see the module docstring), in a sandbox
    like ``like`` (its bubblewrap and the virtualenvs it carries under /tmp) whose only
    writable folder is the store. Returns the counts, or None when the fill did not run."""
    excluded = [*excluded, store, Path("/proc"), Path("/dev"), Path("/sys")]
    python = fill_interpreter(excluded)
    if python is None or not sources:
        return None
    box = Sandbox(store, bwrap=like.bwrap, tmp_tools=like.tmp_tools)
    request = {
        "store": str(store),
        "excluded": [os.path.realpath(p) for p in excluded],
        "sources": [list(s) for s in sources],
    }
    result = await run_process(
        shlex.join([python, "-I", "-S", "-c", FILL]),
        cwd=store,
        env={"PATH": os.defpath, "LC_ALL": "C.UTF-8"},
        timeout=timeout,
        output_cap=4000,
        sandbox=box,
        stdin=json.dumps(request).encode(),
    )
    if result.exit_code != 0:
        return None
    try:
        counts = json.loads(result.output.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return counts if isinstance(counts, dict) else None


async def fill_from_view(
    view: Path, box: Sandbox, command: str, path: str | None = None
) -> dict[str, int] | None:
    """Add to the store what a verify run of ``command`` in ``box`` wrote into ``view``
    (names only), and remember when it taught the store nothing (for its program as the
    run's ``PATH``, ``path``, finds it)."""
    if box.pycache is None:
        return None
    names, excluded = to_fill(view, box)
    counts = await fill_store(box.pycache, names, like=box, excluded=excluded)
    new = 0 if counts is None else counts.get("copied", 0) + counts.get("compiled", 0)
    mark_quiet(box.pycache, command, quiet=new == 0, path=path)
    return counts
