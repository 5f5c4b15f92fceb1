"""Write the files of ``agentci init`` into a repository, never overwriting without ``force``.

Three things, all relative to the repository root:

* the starter recipe, ``.github/agentci/<kind>.yaml`` (:mod:`agentci.init.starters`);
* the workflow, ``.github/workflows/agentci-<kind>.yml`` (:mod:`agentci.init.workflow`);
* the line ``.agentci/`` in ``.gitignore`` (agentci's outputs and verify files), added at the
  end unless a line already ignores it; the rest of the file is kept as it is.

Every existing file is checked before anything is written: without ``force`` an existing recipe
or workflow stops the whole command (:class:`AlreadyThere`) and nothing is written at all; so does
a symbolic link (or a folder) where a file goes, or on the way to it (:class:`UnsafeTarget`):
init never writes through a link. A .gitignore in another encoding than UTF-8 keeps its bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentci.init.starters import Starter, render_starter
from agentci.init.workflow import render_workflow
from agentci.workspace_io import UnsafePath, kind, read_bytes, write_bytes

IGNORE_LINE = ".agentci/"
MAX_GITIGNORE_BYTES = 4 * 1024 * 1024
_IGNORING = {".agentci", ".agentci/", "/.agentci", "/.agentci/", ".agentci/*", "/.agentci/*"}


class AlreadyThere(Exception):
    """Files that exist and would be overwritten (``--force`` overwrites them)."""

    def __init__(self, paths: list[str]) -> None:
        super().__init__(", ".join(paths))
        self.paths = paths


@dataclass
class InitChoices:
    """What ``agentci init`` was asked to set up."""

    starter: Starter
    model: str
    verify: str | None
    setup: str | None
    action: str
    workflow: bool = True


def planned_files(choices: InitChoices) -> dict[str, str]:
    """Path (from the repository root) → text, for the recipe and the workflow."""
    kind = choices.starter.name
    recipe_path = f".github/agentci/{kind}.yaml"
    files = {recipe_path: render_starter(choices.starter, model=choices.model,
                                         verify=choices.verify)}  # fmt: skip
    if choices.workflow:
        files[f".github/workflows/agentci-{kind}.yml"] = render_workflow(
            name=kind,
            recipe=recipe_path,
            setup=choices.setup or choices.starter.setup,
            action=choices.action,
            on_label=kind == "fix-tests",
        )
    return files


def _ignores_outputs(gitignore: str) -> bool:
    return any(line.strip() in _IGNORING for line in gitignore.splitlines())


class UnsafeTarget(Exception):
    """A path ``init`` would write that is a link, a folder or another kind of file: nothing
    is written (a link could point out of the repository)."""


def _existing(root: Path, rel: str) -> bool:
    """Whether ``rel`` exists as a regular file; :class:`UnsafeTarget` when it, or a folder on
    its way, is a link or not what it should be."""
    parts = rel.split("/")
    for depth in range(1, len(parts) + 1):
        here = "/".join(parts[:depth])
        found = kind(root, here)
        last = depth == len(parts)
        if found == "missing":
            return False
        if found == "link":
            raise UnsafeTarget(f"{here} is a symbolic link: init writes no file through one")
        if found != ("file" if last else "dir"):
            want = "a regular file" if last else "a folder"
            raise UnsafeTarget(f"{here} exists and is not {want}")
    return True


def _gitignore_update(root: Path) -> bytes | None:
    """The new .gitignore (its bytes kept as they are, whatever their encoding), or None when
    it ignores the outputs already."""
    current = b""
    if _existing(root, ".gitignore"):
        try:
            current = read_bytes(root, ".gitignore", MAX_GITIGNORE_BYTES)
        except UnsafePath as err:
            raise UnsafeTarget(f".gitignore: {err}") from None
    if _ignores_outputs(current.decode("utf-8", "surrogateescape")):
        return None
    separator = b"" if not current or current.endswith(b"\n") else b"\n"
    return current + separator + f"# agentci's outputs (agentci init)\n{IGNORE_LINE}\n".encode()


def write_init(root: Path, choices: InitChoices, *, force: bool = False) -> list[str]:
    """Write the files into ``root``; returns what was written or changed, one line each.

    Everything is checked before anything is written: an existing recipe or workflow without
    ``force`` (:class:`AlreadyThere`), a link or a folder where a file goes, or a .gitignore
    that is a link, hard-linked or huge (:class:`UnsafeTarget`). Files are written beneath
    ``root`` without following any link (:mod:`agentci.workspace_io`)."""
    files = planned_files(choices)
    existing = [p for p in files if _existing(root, p)]
    gitignore = _gitignore_update(root)
    if existing and not force:
        raise AlreadyThere(existing)
    done = []
    try:
        for rel, text in files.items():
            write_bytes(root, rel, text.encode("utf-8"))
            done.append(f"{'overwrote' if rel in existing else 'wrote'} {rel}")
        if gitignore is not None:
            write_bytes(root, ".gitignore", gitignore)
            done.append(f"added {IGNORE_LINE} to .gitignore")
    except UnsafePath as err:  # changed while init ran
        raise UnsafeTarget(str(err)) from None
    return done
