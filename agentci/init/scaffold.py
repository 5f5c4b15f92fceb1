"""Write the files of ``agentci init`` into a repository, never overwriting without ``force``.

Three things, all relative to the repository root:

* the starter recipe, ``.github/agentci/<kind>.yaml`` (:mod:`agentci.init.starters`);
* the workflow, ``.github/workflows/agentci-<kind>.yml`` (:mod:`agentci.init.workflow`);
* the line ``.agentci/`` in ``.gitignore`` (agentci's outputs and verify files), added at the
  end unless a line already ignores it; the rest of the file is kept as it is.

Every existing file is checked before anything is written: without ``force`` an existing recipe
or workflow stops the whole command (:class:`AlreadyThere`) and nothing is written at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentci.init.starters import Starter, render_starter
from agentci.init.workflow import render_workflow

IGNORE_LINE = ".agentci/"
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


def write_init(root: Path, choices: InitChoices, *, force: bool = False) -> list[str]:
    """Write the files into ``root``; returns what was written or changed, one line each."""
    files = planned_files(choices)
    existing = [p for p in files if (root / p).exists()]
    if existing and not force:
        raise AlreadyThere(existing)
    done = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        done.append(f"{'overwrote' if rel in existing else 'wrote'} {rel}")
    gitignore = root / ".gitignore"
    current = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    if not _ignores_outputs(current):
        separator = "" if not current or current.endswith("\n") else "\n"
        with gitignore.open("a", encoding="utf-8") as fh:
            fh.write(f"{separator}# agentci's outputs (agentci init)\n{IGNORE_LINE}\n")
        done.append(f"added {IGNORE_LINE} to .gitignore")
    return done
