"""Tool-call cycles: the last ``5·k`` calls repeat one cycle of ``k`` calls (k = 1..5).

A call is known by its name and its *canonical* arguments: keys sorted, strings stripped,
paths normalised (``./a.txt`` is ``a.txt``: an argument is a path when it is one the tool's
:meth:`~agentci.tools.base.Tool.accesses` names, whatever the argument is called), and cosmetic
arguments left out (a shell command's ``description`` says nothing about what runs). So ``A A A A A``, ``A B A B …`` (ten
calls) and ``A B C A B C …`` (fifteen calls) are loops; the same tool on different files is
not. Every call of an answer is observed, in order; the cost of one observation does not
depend on the length of the session (the window is at most 25 calls).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections import deque
from collections.abc import Collection, Sequence
from typing import Any

from agentci.policy.access import Access
from agentci.providers.base import ToolCallPart

#: Arguments that never change what a call does.
COSMETIC_ARGS = frozenset({"description"})
#: A cycle must repeat this many times in a row to be a loop.
REPEATS = 5
#: The longest cycle looked for.
MAX_CYCLE = 5


def _canonical(value: Any, paths: Collection[str] = ()) -> Any:
    if isinstance(value, str):
        value = value.strip()
        if value and value in paths:
            value = posixpath.normpath(value)
        return value
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def call_key(call: ToolCallPart, accesses: Sequence[Access] = ()) -> str:
    """A digest of the call's name and canonical arguments (see the module docstring);
    ``accesses`` are what the tool says the call touches."""
    paths = {a.path.strip() for a in accesses}
    args = {k: _canonical(v, paths) for k, v in call.args.items() if k not in COSMETIC_ARGS}
    text = json.dumps(args, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(f"{call.name}\0{text}".encode()).hexdigest()


class ToolCycles:
    """Remembers the last ``REPEATS * MAX_CYCLE`` calls and finds a repeating cycle."""

    def __init__(self, repeats: int = REPEATS, max_cycle: int = MAX_CYCLE) -> None:
        self.repeats = repeats
        self.max_cycle = max_cycle
        self._keys: deque[str] = deque(maxlen=repeats * max_cycle)
        self._names: deque[str] = deque(maxlen=repeats * max_cycle)

    def reset(self) -> None:
        """Forget every call (after a detection the count starts again)."""
        self._keys.clear()
        self._names.clear()

    def observe(self, call: ToolCallPart, accesses: Sequence[Access] = ()) -> str | None:
        """Add one call (``accesses``: what its tool says it touches); describe the loop when
        the last calls repeat one cycle."""
        self._keys.append(call_key(call, accesses))
        self._names.append(call.name)
        cycle = self._cycle()
        if cycle is None:
            return None
        names = list(self._names)[-cycle:]
        if cycle == 1:
            return f"{names[0]} called {self.repeats} times in a row with the same arguments"
        return f"a cycle of {cycle} calls repeated {self.repeats} times in a row: " + " → ".join(
            names
        )

    def _cycle(self) -> int | None:
        keys = self._keys
        n = len(keys)
        for k in range(1, self.max_cycle + 1):
            need = k * self.repeats
            if n < need:
                return None
            if all(keys[n - 1 - i] == keys[n - 1 - i - k] for i in range(need - k)):
                return k
        return None
