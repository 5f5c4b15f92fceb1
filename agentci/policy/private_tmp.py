"""The sandbox gives tool commands a private, empty ``/tmp``: what it carries over from it.

A virtualenv under ``/tmp`` (``PATH`` or ``VIRTUAL_ENV`` pointing there, as in many CI jobs and
test runs) would be invisible inside the sandbox, so the model's commands and verify would run
another Python than agentci's (seen: the model's pytest says "4 passed", then verify fails).
The sandbox therefore mounts those folders, and agentci's own virtualenv when it is under
``/tmp``, read-only at the same place (the whole virtualenv when a ``PATH`` entry is its
``bin``), and nothing else of the host's ``/tmp``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path


def _under_tmp(path: Path) -> bool:
    return len(path.parts) > 2 and path.parts[:2] == ("/", "tmp")


def _real(path: str) -> Path | None:
    try:
        real = Path(path).resolve()
    except (OSError, RuntimeError):
        return None
    return real if real.is_dir() else None


def tool_dirs_under_tmp(env: Mapping[str, str]) -> tuple[Path, ...]:
    """Folders under /tmp that ``PATH`` and ``VIRTUAL_ENV`` in ``env`` name (a virtualenv's
    root instead of its ``bin``), and agentci's own environment (``sys.prefix``) when it is
    there; outermost first, none inside another."""
    found: list[Path] = []
    candidates = [sys.prefix, env.get("VIRTUAL_ENV", ""), *env.get("PATH", "").split(":")]
    for entry in candidates:
        real = _real(entry) if entry else None
        if real is None or not _under_tmp(real):
            continue
        if (real.parent / "pyvenv.cfg").is_file():
            real = real.parent  # a virtualenv's bin: its site-packages live beside it
        found.append(real)
    out: list[Path] = []
    for p in sorted(set(found), key=lambda p: len(p.parts)):
        if not any(p == q or q in p.parents for q in out):
            out.append(p)
    return tuple(out)
