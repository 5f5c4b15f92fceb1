"""The sandbox gives tool commands a private, empty ``/tmp``: what that hides from them.

A virtualenv under ``/tmp`` (``PATH`` or ``VIRTUAL_ENV`` pointing there) is invisible inside
the sandbox, so the model's ``python`` is another Python than the one verify and setup use
(seen: the model's pytest says "4 passed", then verify fails). agentci warns before the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def _under_tmp(path: str) -> bool:
    try:
        parts = Path(path).resolve().parts
    except (OSError, RuntimeError):
        parts = Path(path).parts
    return len(parts) > 2 and parts[:2] == ("/", "tmp")


def hidden_by_private_tmp(env: Mapping[str, str]) -> str | None:
    """A warning when ``PATH`` or ``VIRTUAL_ENV`` in ``env`` name folders under /tmp, else None."""
    hidden = [p for p in env.get("PATH", "").split(":") if p and _under_tmp(p)]
    venv = env.get("VIRTUAL_ENV", "")
    if venv and _under_tmp(venv) and venv not in hidden:
        hidden.insert(0, venv)
    if not hidden:
        return None
    return (
        f"{', '.join(hidden)} {'is' if len(hidden) == 1 else 'are'} under /tmp, which the sandbox "
        "replaces with a private, empty /tmp: the model's commands will not see "
        f"{'it' if len(hidden) == 1 else 'them'} and may use another Python or tools than verify "
        "does; put the virtualenv elsewhere (e.g. under the checkout or $HOME)"
    )
