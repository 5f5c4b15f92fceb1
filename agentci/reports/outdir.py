"""The output folder: every run starts with a clean one, and only one run uses it at a time.

Choice (issue 5): a run never mixes its files with an earlier run's. When the output folder
already holds something, :func:`prepare_out_dir` **moves it aside** to ``<dir>.prev`` (replacing
an older ``.prev``) rather than refusing to run — in CI the same path is reused on every run, and
the previous outputs stay available for one more run. Temp files that a killed run left behind
(``.<name>.tmp-…``) are removed from the moved folder.

Only a folder carrying agentci's :data:`MARKER` file is ever moved (and a ``.prev`` is only
deleted when it carries it too): a folder of the user's that happens to hold a ``summary.md`` or
a ``tasks/`` folder is refused (``invalid_input``), never touched. So is a git repository, the
home folder, or the current directory (or one of its parents).

A run's folder also holds ``.agentci-reserve`` while the run lasts: space set aside so that a
disk filled during the run still takes the final outputs (:func:`reserve_space`).

The folder also gets a ``.gitignore`` holding ``*`` (as pytest does for its cache), so outputs
inside a checkout never show up as untracked files.

Two runs at once: :func:`prepare_out_dir` takes an exclusive lock on the folder for the life of
the process (:mod:`agentci.run_locks`, which also locks a workspace edited in place).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from agentci.errors import InvalidInput
from agentci.events.reserve import release_reserve, reserve_space
from agentci.reports.atomic import is_temp_file
from agentci.run_locks import OUT, take_lock
from agentci.tempdirs import prune_leftovers

MARKER = ".agentci-out"
_GITIGNORE = "# written by agentci: its outputs are never part of a commit\n*\n"


def _ours(path: Path) -> bool:
    return (path / MARKER).is_file()


def _remove_temp_files(path: Path) -> None:
    for p in path.rglob(".*"):
        if p.is_file() and is_temp_file(p):
            with contextlib.suppress(OSError):
                p.unlink()


def prepare_out_dir(path: Path, *, reserve: bool = False, prune: bool = True) -> Path:
    """Make ``path`` an empty output folder (see the module docstring); return it resolved.
    ``reserve``: keep space for the final outputs (:func:`reserve_space`). ``prune``: delete
    the temp folders of agentci runs that are gone (:func:`~agentci.tempdirs.prune_leftovers`;
    a batch does it once, for its own folder, not again for each task's)."""
    path = Path(path).absolute()
    try:
        done = _prepare(path, prune)
        if reserve:
            reserve_space(done)
        return done
    except InvalidInput:
        raise
    except OSError as err:
        why = err.strerror or str(err)
        raise InvalidInput(
            f"outputs.dir / --out {path}: cannot use it as the output folder ({why}); "
            "choose a writable folder"
        ) from err


def _no_link_below_cwd(path: Path) -> None:
    """Refuse an output folder reached through a symbolic link inside the directory agentci
    runs in (the checkout, in CI): a committed ``.agentci -> /elsewhere`` would make agentci
    write its outputs wherever the link points."""
    cwd = Path.cwd()
    try:
        rel = path.relative_to(cwd)
    except ValueError:
        return  # a folder named outside the directory agentci runs in: the user's own choice
    here = cwd
    for part in rel.parts:
        here = here / part
        if here.is_symlink():
            raise InvalidInput(
                f"outputs.dir / --out {path}: {here} is a symbolic link; agentci does not follow "
                "links inside the directory it runs in for its outputs (a checkout could point "
                "them anywhere)"
            )


def _prepare(path: Path, prune: bool = True) -> Path:
    _no_link_below_cwd(path)
    if path.exists() and not path.is_dir():
        raise InvalidInput(f"outputs.dir / --out {path} exists and is not a folder")
    take_lock(
        "outputs.dir / --out", path.resolve(), "wait for it to finish or choose another --out"
    )
    if path.is_dir() and any(path.iterdir()):
        resolved = path.resolve()
        cwd = Path.cwd().resolve()
        if (
            (resolved / ".git").exists()
            or resolved == Path.home().resolve()
            or resolved == cwd
            or resolved in cwd.parents
            or not _ours(resolved)
        ):
            raise InvalidInput(
                f"outputs.dir / --out {path} is not empty and is not an agentci output folder "
                f"(it has no {MARKER} file); choose an empty or new folder (agentci moves its "
                "old outputs to <dir>.prev)"
            )
        prev = path.with_name(path.name + ".prev")
        if prev.is_symlink() or prev.is_file():
            raise InvalidInput(f"{prev} exists and is not an agentci output folder; remove it")
        take_lock(
            OUT,
            prev.resolve(),
            f"agentci moves the previous outputs of {path} there, so it cannot run on {path} "
            "while that run lasts: wait for it to finish or choose another --out",
        )
        if prev.exists():
            if any(prev.iterdir()) and not _ours(prev):
                raise InvalidInput(
                    f"{prev} is not an agentci output folder (no {MARKER} file); agentci would "
                    "replace it with the previous outputs: move or remove it"
                )
            shutil.rmtree(prev)
        path.rename(prev)
        _remove_temp_files(prev)
        release_reserve(prev)  # a killed run's
    path.mkdir(parents=True, exist_ok=True)
    (path / MARKER).write_text("agentci output folder; moved to .prev by the next run\n")
    (path / ".gitignore").write_text(_GITIGNORE)

    if prune:
        prune_leftovers()
    return path.resolve()


def refuse_inside_workspace(out_dir: Path, workspace: Path) -> None:
    """Refuse an output folder the agent could write: inside the workspace and not below its
    ``.agentci/`` (which the file tools refuse and the sandbox mounts read-only). There the
    agent could rewrite ``events.jsonl`` before ``report.html`` is made from it, or plant what
    a later step reads. Raises :class:`InvalidInput` (before any model call)."""
    out = Path(os.path.realpath(out_dir))
    ws = Path(os.path.realpath(workspace))
    try:
        rel = out.relative_to(ws)
    except ValueError:
        return
    if rel.parts and rel.parts[0] == ".agentci" and len(rel.parts) > 1:
        return
    raise InvalidInput(
        f"outputs.dir / --out {out_dir}: inside the workspace ({ws}), where the agent could "
        "rewrite the outputs before agentci reads them back; use a folder below .agentci/ "
        "(the default, .agentci/out, is read-only to the agent) or one outside the workspace"
    )
