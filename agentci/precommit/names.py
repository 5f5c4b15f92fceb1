"""The staged files' names as pre-commit passes them, and as the recipe gets them (no imports
beyond the standard library: the hook's clean path, :mod:`agentci.precommit.quick`, uses them)."""

from __future__ import annotations


def normalise(files: list[str]) -> list[str]:
    """``files`` as pre-commit passes them, workspace-relative and without ``./``, in order,
    each once."""
    seen: dict[str, None] = {}
    for f in files:
        while f.startswith("./"):
            f = f[2:]
        if f:
            seen.setdefault(f, None)
    return list(seen)


def as_argument(path: str) -> str:
    """``path`` as the recipe's list parameter gets it: a name that starts with ``-`` as
    ``./-name``, so that a command the recipe runs on the files (``ruff check {{ files }}``)
    sees a file, never an option (``--output-file=/elsewhere``)."""
    return f"./{path}" if path.startswith("-") else path
