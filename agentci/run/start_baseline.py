"""The files of a workspace edited in place as they were when the run's first task on it
started, kept until the run's outputs are written.

A task's private git dir (:class:`~agentci.change.baseline.Baseline`) holds its workspace's
files as they were at the task's start, the user's uncommitted edits among them. With
``isolation: none`` those edits are nowhere else once the agent overwrites them, until
patch.diff is written at the run's end. So the first in-place task's git dir is pinned
(:func:`pin_start`): its task's end, and a later task's, does not delete it; the run releases it
once its outputs are written (:func:`release_start`). A second signal leaves before then:
:func:`keep_start` renames it where the next run's pruning of leftovers does not reach, and
says how to put a file back. Only the run's first in-place baseline is pinned: the later ones
hold the agent's own work, which patch.diff of the earlier task shows.
"""

from __future__ import annotations

import os
import shlex
import shutil
from typing import TYPE_CHECKING

from agentci.change.baseline import Baseline, pinned

if TYPE_CHECKING:
    from agentci.run.settings import RunSettings


def pin_start(settings: RunSettings, baseline: Baseline) -> None:
    """Pin ``baseline`` as the run's start on its workspace, unless one is pinned already."""
    if settings.start is None:
        pinned.add(baseline.git_dir)
        settings.start = baseline


def release_start(settings: RunSettings) -> None:
    """The outputs are written: delete the pinned git dir."""
    start, settings.start = settings.start, None
    if start is not None:
        pinned.discard(start.git_dir)
        shutil.rmtree(start.git_dir, ignore_errors=True)


def keep_start(settings: RunSettings) -> str:
    """Keep the pinned git dir for good (renamed ``agentci-kept-…``, which no pruning of
    leftovers matches); what to tell the user ("" when there is none)."""
    start, settings.start = settings.start, None
    if start is None or not start.tree or not start.git_dir.is_dir():
        return ""
    pinned.discard(start.git_dir)
    kept = start.git_dir.with_name(start.git_dir.name.replace("agentci-", "agentci-kept-", 1))
    os.rename(start.git_dir, kept)
    return (
        f"nothing was put back in {start.workspace}; its files as they were when the run "
        f"started are kept in {kept} (agentci does not delete it); to put one back: "
        f"git --git-dir={shlex.quote(str(kept))} --work-tree={shlex.quote(str(start.work_tree))} "
        f"restore --source={start.tree} -- PATH"
    )
