"""What the sandbox shows a command line made only of built-in read-only commands.

The policy judges every path such a command *names* (links resolved), but a command also
opens names nobody judged: ``grep -R``, ``rg -L`` or ``find -L`` follow a committed link to a
folder outside the workspace as they walk, ``xargs cat`` opens the names its input spells, an
``awk`` program can set its own ``ARGV``, ``cat < link/x`` opens what the shell redirects. So
such a line does not see the host's file system at all: only

* the system's folders (:data:`SYSTEM`: ``/usr``, ``/bin``, ``/lib*``, ``/nix/store``, kept as
  links where the host has them as links) and the few files of ``/etc`` the read-only programs
  and the dynamic loader read (:data:`ETC`; not ``/etc`` itself: run as root, ``/etc/shadow``
  or ``/etc/ssl/private`` would be readable);
* the folders on the tools' ``PATH`` and the real folders of the programs the line may run
  (``rg`` in ``~/.cargo/bin``, ``git`` behind a link), but not ``/``, a top-level folder or a
  folder the workspace is in;
* for a line with a read-only ``git``: the repository it is pinned to (its git dir, the
  common dir, the object stores it borrows from, and its work tree when that is above the
  workspace);

and then, as in every sandbox, the workspace, a private ``/tmp``, ``/dev``, ``/proc`` and the
sanitised git config copies. A link to anything else dangles inside.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

from agentci.policy.paths import is_below

#: Top-level system folders shown when they exist (as the link they are, when one).
SYSTEM: tuple[str, ...] = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
                           "/nix/store")  # fmt: skip
#: Files and folders of ``/etc`` the loader and the read-only programs read.
ETC: tuple[str, ...] = (
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
    "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/timezone",
    "/etc/alternatives", "/etc/locale.alias", "/etc/locale.conf", "/etc/default/locale",
)  # fmt: skip
#: The programs a read-only line may run (the commands of :mod:`agentci.policy.readonly`,
#: the wrappers it peels off and the shell that runs the line): their real folders are shown.
PROGRAMS: tuple[str, ...] = tuple(
    name
    for line in (
        "bash sh ls cat head tail wc pwd echo printf grep egrep fgrep stat which tree du",
        "basename dirname realpath readlink true false test nl cut tr diff cmp md5sum sha1sum",
        "sha256sum od hexdump column whoami uname env comm sleep seq id nproc printenv tac",
        "find git sed awk gawk mawk rg sort uniq date hostname timeout nice nohup stdbuf",
        "setsid ionice xargs time",
    )
    for name in line.split(" ")
)
#: How deep ``objects/info/alternates`` is followed (git itself stops at 5).
MAX_ALTERNATES = 5


def root_args(shown: Iterable[tuple[Path, Path]]) -> list[str]:
    """bwrap arguments that build the root from the system's folders and ``shown``
    (``(source, target)`` pairs, mounted read-only), instead of the host's whole ``/``."""
    args: list[str] = []
    for top in [*SYSTEM, *ETC]:
        if os.path.islink(top) and top in SYSTEM:
            args += ["--symlink", os.readlink(top), top]
        elif os.path.exists(top):
            args += ["--ro-bind", top, top]
    for source, target in shown:
        args += ["--ro-bind", str(source), str(target)]
    return args


def tool_folders(env: Mapping[str, str], workspace: Path) -> tuple[tuple[Path, Path], ...]:
    """``(source, target)`` pairs for the folders on ``PATH`` in ``env`` and the real folders
    of :data:`PROGRAMS` found there, but what the system folders already show, what lies under
    ``/tmp`` (the sandbox carries those over itself) or in the workspace."""
    return _tool_folders(env.get("PATH", os.defpath), str(workspace))


@functools.lru_cache(maxsize=16)
def _tool_folders(path: str, workspace: str) -> tuple[tuple[Path, Path], ...]:
    ws = Path(workspace)
    pairs: list[tuple[Path, Path]] = []
    entries = [e for e in path.split(os.pathsep) if os.path.isabs(e)]
    for name in PROGRAMS:
        found = shutil.which(name, path=path)
        if found is not None:
            entries.append(os.path.dirname(os.path.realpath(found)))
    for entry in entries:
        real = Path(os.path.realpath(entry))
        if not real.is_dir() or _too_broad(real, ws):
            continue
        for target in (real, Path(os.path.normpath(entry))):
            if not _shown_already(target, ws) and (real, target) not in pairs:
                pairs.append((real, target))
    return _outermost(pairs)


def repository_folders(env: Mapping[str, str], workspace: Path) -> tuple[tuple[Path, Path], ...]:
    """``(folder, folder)`` pairs a git pinned by ``env`` (``GIT_DIR``, ``GIT_WORK_TREE``)
    reads: the git dir, its common dir, the object stores it borrows (``alternates``) and the
    work tree when the workspace is below it; nothing without ``GIT_DIR``."""
    git_dir = env.get("GIT_DIR")
    if not git_dir:
        return ()
    ws = Path(workspace)
    found = [Path(os.path.realpath(git_dir))]
    common = found[0] / "commondir"
    if common.is_file():
        text = common.read_text(errors="replace").strip()
        found.append(Path(os.path.realpath(found[0] / text)))
    objects = [d / "objects" for d in found]
    for _ in range(MAX_ALTERNATES):
        more = [alt for d in objects for alt in _alternates(d) if alt not in objects]
        if not more:
            break
        objects += more
    found += objects
    tree = env.get("GIT_WORK_TREE")
    if tree:
        found.append(Path(os.path.realpath(tree)))
    pairs = [(p, p) for p in found if p.is_dir() and not _shown_already(p, ws)]
    return _outermost([(p, q) for p, q in pairs if p != Path("/")])


def _alternates(objects: Path) -> list[Path]:
    """The object stores ``objects/info/alternates`` names (relative to ``objects``)."""
    try:
        text = (objects / "info" / "alternates").read_text(errors="replace")
    except OSError:
        return []
    lines = [line.strip() for line in text.splitlines()]
    return [
        Path(os.path.realpath(objects / line))
        for line in lines
        if line and not line.startswith("#")
    ]


def _too_broad(folder: Path, workspace: Path) -> bool:
    """Whether a folder on ``PATH`` would show too much: ``/``, a top-level folder (``/home``,
    ``/opt``), or a folder the workspace is in (its siblings: a runner's ``_temp``)."""
    return len(folder.parts) < 3 or (folder != workspace and is_below(workspace, folder))


def _shown_already(path: Path, workspace: Path) -> bool:
    """Whether ``path`` needs no mount of its own: the system folders or the workspace show it,
    or it is under ``/tmp``, which the sandbox makes private (carrying over the tools' folders
    there itself, :mod:`agentci.policy.private_tmp`)."""
    if is_below(path, workspace) or is_below(path, Path("/tmp")):
        return True
    return any(is_below(path, Path(top)) for top in SYSTEM)


def _outermost(pairs: list[tuple[Path, Path]]) -> tuple[tuple[Path, Path], ...]:
    """The pairs whose target is inside no other pair's target, outermost first."""
    pairs = sorted(set(pairs), key=lambda p: (len(p[1].parts), str(p[1])))
    out: list[tuple[Path, Path]] = []
    for source, target in pairs:
        if not any(is_below(target, t) for _, t in out):
            out.append((source, target))
    return tuple(out)
