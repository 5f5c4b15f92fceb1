"""What every task of a run shares: where the recipe came from and the command line's choices.

The task's own settings are its :class:`~agentci.spec.TaskSpec`; this holds the rest — the
recipe (for the run's outputs and ``budget.total``, never read by a task), its folder, the
in-process model of tests, the run's totals, the redactor, and what one task leaves for the next.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentci.hooks.private import HookFiles
from agentci.loop.totals import RunTotals
from agentci.providers.base import Provider
from agentci.recipe.prompt_recipe import recipe_label
from agentci.recipe.schema import Recipe
from agentci.spec import TaskSpec
from agentci.workspace import Originals

if TYPE_CHECKING:
    from agentci.change.baseline import Baseline
    from agentci.change.patch import Handover
    from agentci.reports.redact import Redactor
    from agentci.run.resume import ResumePoint


@dataclass
class RunSettings:
    """What every task of a run shares: the recipe, where it came from, the CLI's choices."""

    recipe: Recipe
    recipe_path: Path | None  # None: the built-in recipe of `agentci run --prompt`
    base_dir: Path  # the folder workspace.path is relative to (the working directory)
    workspace_override: Path | None = None
    record: Path | None = None
    provider_factory: Callable[[TaskSpec], Provider] | None = None  # in-process model (tests)
    totals: RunTotals | None = None  # budget.total: what earlier tasks of the run used
    redactor: Redactor | None = None  # masks secrets in the patch (default: from the environment)
    provider_state: dict[str, Any] = field(default_factory=dict)  # shared by the run's providers
    tasks_started: int = 0  # setup of a later task runs in the sandbox (agent work is there)
    hook_files: HookFiles = field(default_factory=HookFiles)  # hooks' private folder, at start
    resume: dict[str, ResumePoint] = field(default_factory=dict)  # --resume: by task name
    #: the original checkout's HEAD and uncommitted changes, read once (a batch shares one)
    originals: Originals = field(default_factory=Originals)
    #: the last task's end on its tree, for the next task there to start from (ChangeTracker)
    handover: Handover | None = None
    #: the first in-place task's baseline, kept until the outputs are written (start_baseline.py)
    start: Baseline | None = None
    unsandboxed: bool = False  # a task ran without a sandbox: what it started may outlive it

    def drop_handover(self) -> None:
        """Delete the handover's private git dir (the run's tasks are done)."""
        if self.handover is not None:
            self.handover.baseline.cleanup()
            self.handover = None

    @property
    def recipe_dir(self) -> Path:
        """The folder files of the recipe are relative to (the working directory: built-in)."""
        return self.recipe_path.parent if self.recipe_path is not None else self.base_dir

    @property
    def recipe_label(self) -> str:
        """The recipe as the outputs name it."""
        return recipe_label(self.recipe_path)
