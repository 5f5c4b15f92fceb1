"""Where hooks run: a private copy of the recipe's folder, made before the first model call.

The documented place for a recipe is inside the checkout (``.github/agentci/``), which the agent
can write. So a hook never runs from there: when a run starts (its first task, before any model
call) the recipe's folder is copied to a temporary folder of agentci's own, outside the
workspace, and every hook of the run uses that copy as its working directory and resolves its
relative words (``./ci/check.sh``, ``python3 ci/review_edit.py``) there. A module the agent puts
next to a hook script is not in the copy, so no Python (3.10 included, where ``PYTHONSAFEPATH``
does nothing) imports it; a git repository it plants in the folder is not there either.

The copy takes regular files only (links and special files are left out, ``.git`` folders,
agentci's own folders, output folders and temp folders too: a ``TMPDIR`` inside the recipe's
folder holds the copy itself), read through :mod:`agentci.workspace_io`, at most
:data:`MAX_FILES` files and :data:`MAX_BYTES` bytes: a bigger folder is ``invalid_input`` (keep a
recipe that has hooks in a folder of its own). Before each hook run the copy is checked against
what was copied (:meth:`HookFiles.changed`): without a sandbox the agent could reach it, and a
hook whose folder changed is not run (the call is denied).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from agentci import workspace_io
from agentci.errors import InvalidInput
from agentci.tempdirs import is_temp_dir_name, make_temp_dir

#: Files of the recipe's folder copied at most.
MAX_FILES = 2_000
#: Bytes of the recipe's folder copied at most.
MAX_BYTES = 32 << 20
#: The file that marks an output folder of agentci's (never copied).
OUT_MARKER = ".agentci-out"
#: Folders never copied, whatever their place.
SKIPPED_NAMES = frozenset({".git", ".agentci", "__pycache__"})

Signature = tuple[int, int, int, int]  # size, mtime_ns, inode, mode


@dataclass
class HookFiles:
    """What the first task of a run fixes for the hooks of every task: the private copy of the
    recipe's folder (``copy``, made from ``source``), what it held then (``manifest``), and the
    SHA-256 of hook files named by absolute path outside the workspace (``fingerprints``)."""

    fingerprints: dict[Path, str] = field(default_factory=dict)
    source: Path | None = None
    copy: Path | None = None
    manifest: dict[str, Signature] = field(default_factory=dict)

    def prepare(self, source: Path, skip: list[Path]) -> Path:
        """The private copy of ``source`` (made on the first call; ``skip``: folders left out,
        such as a workspace or output folder below the recipe's)."""
        if self.copy is not None:
            return self.copy
        folder = make_temp_dir("hooks")
        weakref.finalize(self, shutil.rmtree, folder, True)
        copy = folder / "recipe"
        copy.mkdir()
        try:
            temp = [folder, Path(tempfile.gettempdir())]  # a TMPDIR below the recipe's folder
            skipped = {Path(os.path.realpath(p)) for p in [*skip, *temp]}
            _copy_tree(Path(os.path.realpath(source)), copy, skipped)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        self.source, self.copy, self.manifest = source, copy, _manifest(copy)
        return copy

    def changed(self) -> str:
        """What changed in the copy since it was made (``""``: nothing)."""
        if self.copy is None:
            return ""
        now = _manifest(self.copy)
        if now == self.manifest:
            return ""
        diff = sorted(
            set(now) ^ set(self.manifest) | {k for k in now if now.get(k) != self.manifest.get(k)}
        )
        return ", ".join(diff[:5]) + (" …" if len(diff) > 5 else "")


def _copy_tree(src: Path, dst: Path, skip: set[Path]) -> None:
    files = size = 0
    for top, dirs, names in os.walk(src, followlinks=False):
        here = Path(top)
        rel_top = here.relative_to(src)
        dirs[:] = sorted(
            d for d in dirs
            if d not in SKIPPED_NAMES and (here / d) not in skip and not (here / d).is_symlink()
            and not is_temp_dir_name(d)  # another run's, when TMPDIR is in the recipe's folder
            and not (here / d / OUT_MARKER).exists()  # an output folder of agentci's
        )  # fmt: skip
        for d in dirs:
            (dst / rel_top / d).mkdir()
        for name in sorted(names):
            rel = (rel_top / name).as_posix()
            try:
                st = os.lstat(here / name)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue  # links, FIFOs, sockets: never copied, never followed
            files += 1
            size += st.st_size
            if files > MAX_FILES or size > MAX_BYTES:
                raise InvalidInput(
                    f"hooks run from a private copy of the recipe's folder, made when the run "
                    f"starts; {src} holds more than {MAX_FILES} files or {MAX_BYTES >> 20} MB: "
                    "keep a recipe with hooks and its hook scripts in a folder of their own "
                    "(e.g. .github/agentci/)"
                )
            with contextlib.suppress(workspace_io.UnsafePath):
                data = workspace_io.read_bytes(src, rel, MAX_BYTES, hardlinks=True)
                workspace_io.write_bytes(dst, rel, data, stat.S_IMODE(st.st_mode) & 0o755)


def _manifest(folder: Path) -> dict[str, Signature]:
    out: dict[str, Signature] = {}
    for top, dirs, names in os.walk(folder, followlinks=False):
        dirs.sort()
        for name in [*dirs, *names]:
            path = Path(top, name)
            with contextlib.suppress(OSError):
                st = os.lstat(path)
                sig = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode)
                out[path.relative_to(folder).as_posix()] = (
                    sig if name in names else (0, 0, 0, st.st_mode)
                )
    return out
