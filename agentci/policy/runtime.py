"""agentci's own runtime, protected when it lies inside the workspace.

agentci installed in a virtualenv inside the repository it works on (``.venv``, as
``uv add --dev agentci-runner`` makes) would otherwise hand the agent the programs and modules
the host runs later: ``.venv/bin/rg`` (run by ``grep_search`` on the host), a module of
``site-packages`` that agentci imports lazily, the Python executable itself. So every path of
:func:`runtime_paths` that lies inside the workspace is protected like ``.git``: mounted
read-only in the sandbox and refused to the file tools (the model is told why).

:func:`host_path` is the ``PATH`` of a process agentci starts on the host (a hook): the
workspace's folders go, except agentci's own protected ones, so no program the agent could
have written stands in for ``git`` or ``python`` there.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from pathlib import Path

import agentci
from agentci.gitenv import git_program

#: Programs agentci chose at start-up to run on the host (ripgrep): protected like the rest.
_CHOSEN: list[Path] = []

#: (device, inode) of each protected path inside a workspace, as found when its task started.
_PINNED: dict[Path, tuple[int, int]] = {}


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(path))


def choose_program(path: str | os.PathLike[str]) -> None:
    """Record a program agentci will run on the host (its real path joins :func:`runtime_paths`)."""
    real = _real(path)
    if real not in _CHOSEN:
        _CHOSEN.append(real)


def runtime_paths() -> list[Path]:
    """agentci's installation: ``sys.prefix``/``sys.exec_prefix``, the site-packages and
    scripts folders, the folder of the Python executable (not followed through its link), the
    ``agentci`` package folder, the programs recorded with :func:`choose_program` and the git
    agentci runs (:func:`agentci.gitenv.git_program`)."""
    names: list[str] = [sys.prefix, sys.exec_prefix, *_site_folders()]
    names.append(os.path.dirname(os.path.abspath(sys.executable)) if sys.executable else "")
    names.append(os.path.dirname(os.path.abspath(agentci.__file__ or "")))
    out: list[Path] = []
    for name in names:
        if name and (real := _real(name)) not in out:
            out.append(real)
    out += [p for p in _CHOSEN if p not in out]
    git = git_program()
    if os.path.isabs(git) and (real := _real(git)) not in out:
        out.append(real)
    return out


def _site_folders() -> list[str]:
    folders = [sysconfig.get_path(key) for key in ("purelib", "platlib", "scripts")]
    folders += site.getsitepackages()
    if site.ENABLE_USER_SITE and site.USER_SITE:
        folders.append(site.USER_SITE)
    return folders


def inside_workspace(workspace: Path) -> list[Path]:
    """The :func:`runtime_paths` that lie below ``workspace`` (real paths) and exist."""
    root = _real(workspace)
    return [p for p in runtime_paths() if p.exists() and root in p.parents]


def host_path(value: str, workspace: Path) -> str:
    """``value`` (a ``PATH``) without relative entries nor folders inside ``workspace``,
    except those below agentci's protected runtime (the agent cannot write there)."""
    root = _real(workspace)
    kept = inside_workspace(workspace)
    out = []
    for entry in value.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        real = _real(entry)
        if (real == root or root in real.parents) and not any(
            real == k or k in real.parents for k in kept
        ):
            continue
        out.append(entry)
    return os.pathsep.join(out)


def forget_workspace_imports(workspace: Path) -> list[str]:
    """Remove from ``sys.path`` the folders inside ``workspace`` (a ``PYTHONPATH=src`` the job
    set for its tests, a relative entry), except agentci's own protected installation: agentci
    imports nothing of the project, and its lazy imports must not find a module the agent
    wrote. Also records what each protected path inside ``workspace`` is
    (:func:`moved_runtime`). Returns the entries removed."""
    root = _real(workspace)
    kept = inside_workspace(workspace)
    for path in kept:
        if path not in _PINNED:
            st = os.stat(path)
            _PINNED[path] = (st.st_dev, st.st_ino)
    gone = []
    for entry in list(sys.path):
        real = _real(entry or os.curdir)
        if real != root and root not in real.parents:
            continue
        if any(real == k or k in real.parents for k in kept):
            continue
        sys.path.remove(entry)
        sys.path_importer_cache.pop(entry, None)
        gone.append(entry)
    return gone


def moved_runtime() -> list[Path]:
    """The protected paths inside a workspace that are no longer what they were when their
    task started (device and inode): code in the sandbox renamed a folder above one (a mount
    moves with its parent) and made a new one under the same name. agentci's ``sys.path`` and
    its packages' ``__path__`` name those paths, so nothing may be imported from them again."""
    moved = []
    for path, ident in _PINNED.items():
        try:
            st = os.stat(path)
        except OSError:
            moved.append(path)
            continue
        if (st.st_dev, st.st_ino) != ident:
            moved.append(path)
    return moved
