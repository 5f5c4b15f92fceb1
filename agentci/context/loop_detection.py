"""Loop detection: notice when the model keeps making the same tool call.

The same call (tool name and arguments) several times in a row means the model is stuck.
The first detection is a warning with a recovery nudge that goes to the model with the
tool results; if the model gets stuck again after that, the task stops with status
``loop_detected`` (exit 4).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from agentci.providers.base import ToolCallPart

RECOVERY_NUDGE = (
    "agentci: you are repeating the same step without progress ({detail}). Do not repeat "
    "it again: try a different approach, or finish now with a summary of what you found."
)


@dataclass
class LoopDetector:
    """Counts identical consecutive tool calls across turns."""

    threshold: int = 5
    _last: str = ""
    _run: int = 0

    @staticmethod
    def _key(call: ToolCallPart) -> str:
        args = json.dumps(call.args, sort_keys=True, default=str)
        return hashlib.sha256(f"{call.name}\0{args}".encode()).hexdigest()

    def observe(self, calls: list[ToolCallPart]) -> str | None:
        """Feed one turn's calls; returns what repeats when the threshold is reached."""
        for call in calls:
            key = self._key(call)
            self._run = self._run + 1 if key == self._last else 1
            self._last = key
            if self._run >= self.threshold:
                self._run = 0
                return f"{call.name} called {self.threshold} times in a row with the same arguments"
        return None
