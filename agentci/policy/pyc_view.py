"""One verify run's view of the bytecode store (:mod:`agentci.policy.pyc_cache`): the
writable view it gets, and afterwards what it learned that the store could take. Apart from
the fill (:mod:`agentci.policy.pyc_fill`, a sandboxed process run in the event loop), so that
the pre-commit hook's clean path, which has no event loop, settles a run that learned nothing
itself (:func:`settle_if_nothing_learned`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from agentci.policy.paths import is_below
from agentci.policy.pyc_cache import SANDBOX_PREFIX, is_quiet, learned, make_view, mark_quiet
from agentci.policy.sandbox import Sandbox


def pyc_view(
    box: Sandbox | None, env: dict[str, str], command: str, *, always: bool = False
) -> tuple[Sandbox | None, Path | None]:
    """For one verify run of ``command`` in ``box``: the sandbox with a writable view of its
    bytecode store at the prefix, and the view; ``env`` then lets Python write bytecode (into
    the view only). ``(box, None)`` without a store, when the run's ``PYTHONPYCACHEPREFIX``
    is the recipe's own, or when the last run of ``command`` taught the store nothing (it
    then sees the store read-only, as the agent's commands do: :func:`is_quiet`) unless
    ``always`` (the run keeps or gets the workspace's bytecode: :mod:`.pyc_carry`)."""
    if box is None or box.pycache is None or env.get("PYTHONPYCACHEPREFIX") != SANDBOX_PREFIX:
        return box, None
    if not always and is_quiet(box.pycache, command, env.get("PATH")):
        return box, None
    try:
        view = make_view(box.pycache)
    except OSError:
        return box, None
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return dataclasses.replace(box, pycache_view=view), view


def to_fill(view: Path, box: Sandbox) -> tuple[list[tuple[str, str, str]], list[Path]]:
    """What a run in ``box`` wrote into ``view`` that the store could take (:func:`learned`,
    less what lies in the folders the run could write), and those folders (the fill's
    exclusions)."""
    excluded = [box.workspace, *box.writable, *(source for source, _ in box.binds), view]
    names = [n for n in learned(view) if _may_fill(Path(n[0]), excluded, box.tmp_tools)]
    return names, excluded


def settle_if_nothing_learned(view: Path, box: Sandbox, command: str, path: str | None) -> bool:
    """When a run of ``command`` in ``box`` learned nothing the store could take, remember it
    as quiet, as :func:`agentci.policy.pyc_fill.fill_from_view` then does, and True; False
    when there is something to fill (``fill_from_view`` must run)."""
    if box.pycache is None:
        return True
    names, _ = to_fill(view, box)
    if names:
        return False
    mark_quiet(box.pycache, command, quiet=True, path=path)
    return True


def _may_fill(source: Path, excluded: Sequence[Path], tmp_tools: Sequence[Path]) -> bool:
    """Whether a learned source can be in the store at all (the workspace's modules and the
    sandbox's own /tmp are not); the fill checks again, after following links."""
    if any(is_below(source, e) for e in excluded):
        return False
    return not is_below(source, Path("/tmp")) or any(is_below(source, t) for t in tmp_tools)
