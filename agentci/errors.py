"""The error tree of agentci.

Every way a run can end early is a typed exception; nothing is decided by matching strings::

    AgentciError
     ├── InvalidInput          bad recipe, parameter, flag or environment: exit 2, nothing sent
     │    └── RecipeError      ... with the file, line and key that are wrong
     │         └── RecipeErrors ... several of them, listed one a line
     ├── StopRun               ends the agent loop with a status (see agentci.outcome)
     │    ├── BudgetExhausted  a budget ran out (which one, how much was used, the cap)
 │    │    └── ContextWindowFull  the next request cannot fit the model's context window
     │    ├── LoopDetected     the model repeats itself and did not recover
     │    ├── Blocked          the model's output was blocked, or a hook stopped the run
     │    │    └── HookStopped  ... by a recipe hook (which one is in ``hook``)
     │    ├── ProviderFailed   the model API failed for good (auth, model name, bad request)
     │    │    ├── ProviderUnavailable  ... unavailable after the retries (quota, 5xx, network,
     │    │    │                        a deadline): exit 75, worth running again later
     │    │    └── NoUsableAnswer   ... every try gave an answer that cannot be used (empty, ...)
     │    ├── OutputInvalid    no answer matching output.schema after every attempt
     │    └── LogUnwritable    events.jsonl cannot be written (a full disk): internal_error
     └── ToolFailure           a tool could not do what was asked; the message goes back to
                               the model as the tool's error and the loop goes on

SIGINT / SIGTERM are not exceptions of ours: the runner cancels the running asyncio task and
the task ends ``cancelled`` (130 / 143). Anything else that escapes is a bug in agentci:
status ``internal_error``, exit 70.
"""

from __future__ import annotations

from pathlib import Path


class AgentciError(Exception):
    """Base of every error agentci raises on purpose."""


class InvalidInput(AgentciError):
    """The user's input is wrong; nothing was sent to a model."""


class RecipeError(InvalidInput):
    """A recipe is wrong at a known place: ``file:line: key: message``."""

    def __init__(
        self,
        message: str,
        *,
        file: Path | str | None = None,
        line: int | None = None,
        key: str | None = None,
    ) -> None:
        self.file = str(file) if file is not None else None
        self.line = line
        self.key = key
        self.message = message
        where = ""
        if self.file:
            where = self.file + (f":{line}" if line else "") + ": "
        what = f"{key}: " if key else ""
        super().__init__(f"{where}{what}{message}")


class RecipeErrors(RecipeError):
    """Several things wrong in one recipe: ``str()`` lists every one, a line each; the
    attributes (``file``, ``line``, ``key``, ``message``) are those of the first."""

    def __init__(self, errors: list[RecipeError]) -> None:
        first = errors[0]
        super().__init__(first.message, file=first.file, line=first.line, key=first.key)
        self.errors = errors
        self.args = ("\n".join(str(e) for e in errors),)

    def __str__(self) -> str:
        return self.args[0]


class StopRun(AgentciError):
    """Ends the agent loop; ``status`` names the outcome (agentci.outcome.Status)."""

    status: str = "internal_error"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class BudgetExhausted(StopRun):
    """A budget ran out before or during the work."""

    status = "budget_exhausted"

    def __init__(self, limit: str, used: float, cap: float, detail: str = "") -> None:
        self.limit = limit
        self.used = used
        self.cap = cap
        reason = f"budget {limit} exhausted: {used:g} of {cap:g}"
        super().__init__(reason + (f" ({detail})" if detail else ""))


class ContextWindowFull(BudgetExhausted):
    """The next request cannot fit the model's context window, even after compression and
    truncation of the history: the task ends ``budget_exhausted`` (limit ``context_window``)
    instead of sending a request the API would refuse."""

    def __init__(self, needed: int, window: int) -> None:
        detail = "the next request cannot fit the model's context window, even compressed"
        super().__init__("context_window", needed, window, detail)


class LoopDetected(StopRun):
    """The model kept repeating itself after one recovery attempt."""

    status = "loop_detected"


class Blocked(StopRun):
    """The model's output was blocked (SAFETY, ...) or a hook stopped the run."""

    status = "blocked"


class GitWouldBlock(StopRun):
    """The workspace holds a file git would wait on for ever when it reads it (a named pipe or
    device called ``.gitignore``, ``.gitattributes`` or ``.gitmodules``): agentci cannot snapshot
    it, so the task ends ``blocked`` (exit 5) instead of hanging."""

    status = "blocked"


class HookStopped(Blocked):
    """A recipe hook answered ``stop``: the run ends ``blocked`` (exit 5)."""

    def __init__(self, reason: str, *, hook: str) -> None:
        self.hook = hook
        super().__init__(reason)


class ProviderFailed(StopRun):
    """The model API failed for good."""

    status = "provider_error"


class ProviderUnavailable(ProviderFailed):
    """The model API stayed unavailable after every retry (and every fallback model): a 429
    quota, 5xx answers, connection errors, a call that sent nothing before its deadline. Not a
    failure of the work: the task ends ``provider_unavailable`` (exit 75, EX_TEMPFAIL) and
    result.json says ``retryable: true``, so a pipeline can run it again later."""

    status = "provider_unavailable"


class NoUsableAnswer(ProviderFailed):
    """Every corrective retry of a model call gave an answer that cannot be used (empty,
    thoughts only, a malformed function call): ``provider_error`` for a turn; a history
    compression takes it as an empty summary."""


class OutputInvalid(StopRun):
    """The model handed in no answer matching ``output.schema`` within ``output.attempts``."""

    status = "invalid_output"


class ToolFailure(AgentciError):
    """A tool failed; the message is returned to the model as the tool's error."""


class LogUnwritable(StopRun):
    """events.jsonl cannot be written (a full disk, a lost mount): the run stops at once and
    ends ``internal_error`` (exit 70) with the outputs that still fit; the log keeps only whole
    lines."""

    status = "internal_error"
