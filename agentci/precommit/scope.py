"""The files a pre-commit run may change: the ones being committed, and no others.

``guards.allowed_paths`` of every task becomes the list of those files (each one as a literal
path, whatever characters its name holds), kept to the ones the recipe's own
``allowed_paths`` allows when it has one. A change anywhere else is reverted by the guards.
"""

from __future__ import annotations

import dataclasses
import re

from agentci.policy.paths import anchored
from agentci.spec import TaskSpec

_GLOB_SPECIAL = re.compile(r"([\\*?\[\]!#])")


def literal_glob(path: str) -> str:
    """A gitignore-style pattern that matches exactly ``path`` (workspace-relative)."""
    escaped = _GLOB_SPECIAL.sub(r"\\\1", path.strip("/"))
    stem = escaped.rstrip(" ")  # trailing blanks would be stripped: a class keeps each one
    return "/" + stem + "[ ]" * (len(escaped) - len(stem))


def limit_to_files(plans: list[TaskSpec], files: list[str]) -> list[TaskSpec]:
    """Each task with its ``allowed_paths`` set to ``files`` (within its own ``allowed_paths``)."""
    limited = []
    for plan in plans:
        own = plan.guards.allowed_paths
        spec = anchored(own) if own is not None else None
        allowed = [f for f in files if spec is None or spec.match_file(f)]
        guards = plan.guards.model_copy(
            update={"allowed_paths": [literal_glob(f) for f in allowed]}
        )
        limited.append(dataclasses.replace(plan, guards=guards))
    return limited
