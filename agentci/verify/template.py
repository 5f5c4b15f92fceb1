"""The ``verify`` template variable's shape, importable without the verify machinery.

``agentci validate`` renders prompts with :func:`placeholder` so a recipe that uses
``{{ verify.failures }}`` validates; the real values come from agentci.verify.feedback.
"""

from __future__ import annotations

from typing import Any

#: The keys of ``verify`` in a prompt template (docs/verify.md).
KEYS = ("ran", "passed", "failures", "output", "failing", "counts", "command")


def placeholder(command: str = "") -> dict[str, Any]:
    """``verify`` when no baseline ran: ``ran`` False, everything else empty."""
    return {"ran": False, "passed": None, "failures": "", "output": "", "failing": [],
            "counts": {}, "command": command}  # fmt: skip
