"""Every event agentci emits: one pydantic discriminated union (docs/outputs.md, events.jsonl).

Each JSONL line is ``{"v":1,"seq":N,"ts":"…Z","run_id":"…","task":"name","type":"…", …}``.
Producers build events with their own fields only; the :class:`~agentci.events.sinks.Emitter`
stamps ``seq``, ``ts``, ``run_id`` and ``task``.

Some events are declared here before the feature that emits them exists; their docstrings
say so. A consumer can rely on every ``type`` listed in :data:`EVENT_TYPES`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

# Token and cost totals: the one usage type (agentci/usage.py), named for the event schema.
from agentci.finish import Finish
from agentci.usage import Usage as UsageTotals


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")

    v: int = 1
    seq: int = 0
    ts: str = ""
    run_id: str = ""
    task: str = ""


class RunStarted(_Event):
    """The run began: which recipe, which tasks, which agentci."""

    type: Literal["run_started"] = "run_started"
    recipe: str
    recipe_name: str
    tasks: list[str]
    agentci_version: str


class ContextFileInfo(BaseModel):
    """A project context file as loaded: workspace-relative path, bytes sent, cut or not."""

    path: str
    bytes: int
    truncated: bool = False


class TaskStarted(_Event):
    """A task's agent is about to start: its model, workspace and the rendered prompt. Emitted
    after setup and the baseline verify (the prompt may quote its failures); ``prompt`` is ""
    when the task ended before its prompt could be rendered (a failed setup, a verify command
    that cannot run). ``search_engine`` names the engine behind ``glob``/``grep_search``
    (e.g. ``ripgrep 14.1.0``, or the RE2 fallback). ``context_files`` are the project
    context files the model reads before the prompt (AGENTS.md, …), in order, with the bytes
    sent and whether the cap cut them."""

    type: Literal["task_started"] = "task_started"
    model: str
    workspace: str
    prompt: str
    search_engine: str | None = None
    context_files: list[ContextFileInfo] = Field(default_factory=list)


class TurnStarted(_Event):
    """A model call is about to be made (``turn`` counts from 1)."""

    type: Literal["turn_started"] = "turn_started"
    turn: int


class ModelInfo(_Event):
    """The model that actually answers (after fallback), and its version if known."""

    type: Literal["model_info"] = "model_info"
    model: str
    model_version: str | None = None


class Content(_Event):
    """Text the model wrote."""

    type: Literal["content"] = "content"
    text: str


class Thought(_Event):
    """A thought summary the model streamed (thinking models)."""

    type: Literal["thought"] = "thought"
    text: str


class ToolCallRequest(_Event):
    """The model asked for a tool call."""

    type: Literal["tool_call_request"] = "tool_call_request"
    call_id: str
    name: str
    args: dict[str, Any]


class ToolCallDecision(_Event):
    """The policy's decision on a tool call, and the rule that decided."""

    type: Literal["tool_call_decision"] = "tool_call_decision"
    call_id: str
    name: str
    decision: Literal["allow", "deny"]
    rule: str
    reason: str = ""


class ToolCallResponse(_Event):
    """A tool call's result as the model sees it (``output`` is capped)."""

    type: Literal["tool_call_response"] = "tool_call_response"
    call_id: str
    name: str
    ok: bool
    output: str
    error: str | None = None
    duration_ms: int = 0
    exit_code: int | None = None


class Retry(_Event):
    """A model call is retried from the start of the turn; partial output was discarded."""

    type: Literal["retry"] = "retry"
    attempt: int
    reason: str
    delay_seconds: float


class ModelFallback(_Event):
    """The task switched to a fallback model, which it keeps for the rest of the task."""

    type: Literal["model_fallback"] = "model_fallback"
    from_model: str
    to_model: str
    reason: str


CompressionStatus = Literal[
    "compressed",
    "failed_inflated",
    "failed_empty",
    "failed_truncated",
    "failed_error",
    "content_truncated",
]


class ChatCompressed(_Event):
    """The history reached ``context.compress_at`` of the context window and was compressed
    (docs/context.md). ``status``: ``compressed`` (older turns replaced by a state snapshot),
    ``failed_inflated`` (the snapshot was not smaller: the history is kept, and later
    compressions only drop old turns), ``failed_empty`` (the model gave no snapshot: the same),
    ``failed_truncated`` (the snapshot was cut at the output limit: the same, a cut snapshot never
    replaces the history), ``failed_error`` (the summary call failed for good or was blocked: the
    same, and the task goes on; ``reason`` says why),
    ``content_truncated`` (the oldest turns were dropped). Tokens are estimates of the prompt
    before and after (docs/context.md)."""

    type: Literal["chat_compressed"] = "chat_compressed"
    tokens_before: int
    tokens_after: int
    status: CompressionStatus = "compressed"
    reason: str | None = None


class ContextWindowWillOverflow(_Event):
    """The next request would not fit the model's context window, even after compression: it
    is not sent, and the task ends ``budget_exhausted`` (limit ``context_window``)."""

    type: Literal["context_window_will_overflow"] = "context_window_will_overflow"
    estimated_tokens: int
    limit: int


class LoopDetectedEvent(_Event):
    """The model is stuck. ``kind`` names the detector: ``tool_call`` (a cycle of 1-5 tool
    calls repeated five times), ``content`` (the streamed answer repeats the same text),
    ``model_judged`` (the model-judged check), ``no_progress`` (two verify attempts failed the
    same way: the task ends ``verify_failed``). ``recovering`` is true the first time (the
    model is nudged once); the next time the task stops with ``loop_detected``."""

    type: Literal["loop_detected"] = "loop_detected"
    kind: str
    detail: str
    recovering: bool = False


HookDecision = Literal["continue", "deny", "stop", "block", "rewrite"]


class HookResult(_Event):
    """A recipe hook ran (docs/hooks.md): which one (``hook``: ``hooks.before_tool[0]``) at
    which ``stage``, its exit code (None: killed, timed out or not started), what it decided
    (``continue``; ``deny``/``rewrite`` for before_tool; ``block`` for after_agent; ``stop``),
    why (``reason``, what the model reads or why the hook failed), the arguments a
    ``rewrite`` put in place (``args``) and its output (capped)."""

    type: Literal["hook_result"] = "hook_result"
    hook: str
    command: str
    exit_code: int | None
    decision: HookDecision = "continue"
    output: str = ""
    stage: str = ""
    reason: str = ""
    args: dict[str, Any] | None = None


class AgentExecutionStopped(_Event):
    """Something outside the model stopped the loop (a hook answered ``stop``)."""

    type: Literal["agent_execution_stopped"] = "agent_execution_stopped"
    reason: str


class AgentExecutionBlocked(_Event):
    """The model's output was blocked (SAFETY, prompt blocked, ...)."""

    type: Literal["agent_execution_blocked"] = "agent_execution_blocked"
    reason: str


class InvalidStream(_Event):
    """The model's answer was unusable (malformed call, empty reply, no finish reason)."""

    type: Literal["invalid_stream"] = "invalid_stream"
    reason: str
    attempt: int = 1


class Usage(_Event):
    """Token usage of one model call, with the running totals of the task. ``estimated``: the
    server reported no usage, the counts are agentci's estimate (see :mod:`agentci.usage`)."""

    type: Literal["usage"] = "usage"
    model: str
    prompt_tokens: int = 0
    output_tokens: int = 0
    thoughts_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None
    estimated: bool = False
    totals: UsageTotals = Field(default_factory=UsageTotals)


class TurnFinished(_Event):
    """A model call ended: ``finish`` in agentci's words (stop, tool_calls, max_tokens,
    max_tokens_in_thinking, safety, recitation, malformed_call, other), ``finish_reason`` as the
    API said it, ``tool_calls`` it asked for."""

    type: Literal["turn_finished"] = "turn_finished"
    turn: int
    finish: Finish | None = None
    finish_reason: str | None = None
    tool_calls: int = 0


class VerifyTest(BaseModel):
    """One test as verify saw it."""

    model_config = ConfigDict(extra="forbid")

    id: str
    outcome: Literal["passed", "failed", "error", "skipped"]
    message: str = ""


class VerifyLocation(BaseModel):
    """A failure the verify command reported at a place of the workspace: a failed test's
    traceback line, a linter's diagnostic (agentci.verify.locations)."""

    model_config = ConfigDict(extra="forbid")

    file: str
    line: int
    message: str
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    rule: str = ""
    tool: str = "verify"
    level: Literal["error", "warning"] = "error"


class VerifyResult(_Event):
    """The verify command ran (phase ``baseline`` or ``attempt``)."""

    type: Literal["verify_result"] = "verify_result"
    phase: Literal["baseline", "attempt"]
    scope: Literal["full", "failing_first"] = Field(
        default="full",
        description="full: the verify command as it is; failing_first: only the tests that "
        "failed before and those of the changed files ran (verify.strategy), so this run "
        "does not decide the task unless it failed.",
    )
    attempt: int = 0
    command: str
    exit_code: int | None
    passed: bool
    counts: dict[str, int] = Field(default_factory=dict)
    tests: list[VerifyTest] = Field(default_factory=list)
    changes: dict[str, list[str]] = Field(default_factory=dict)
    output_tail: str = ""
    duration_ms: int = 0
    locations: list[VerifyLocation] = Field(
        default_factory=list, description="Where a failed run's failures are (at most 1000)."
    )


class BudgetExhaustedEvent(_Event):
    """A budget ran out: which limit, how much was used, the cap."""

    type: Literal["budget_exhausted"] = "budget_exhausted"
    limit: str
    used: float
    cap: float
    reason: str = ""


class Error(_Event):
    """Something went wrong; ``kind`` is the status it leads to. Something that went wrong
    without ending anything is a ``warning``."""

    type: Literal["error"] = "error"
    kind: str
    message: str
    traceback: str | None = None


WarningKind = Literal[
    "sandbox_unavailable",
    "secrets_without_sandbox",
    "credentials_in_git_config",
    "worktree_base",
    "context_file_skipped",
    "sdk_private_path_disabled",
    "loop_check_failed",
    "guard_reverted",
    "patch_redacted",
    "patch_incomplete",
    "ignored_files_written",
    "ignored_scan_truncated",
    "nested_repository",
    "unreadable_file",
    "branch_failed",
    "console_unavailable",
    "hook_warning",
    "mcp_tool_skipped",
]

WARNING_KINDS: tuple[str, ...] = get_args(WarningKind)
"""Every warning ``kind``, in the order of :data:`WarningKind`."""


class WarningEvent(_Event):
    """Something the run or a user should know, which does not change the status; ``kind``
    names it: ``sandbox_unavailable`` (commands ran without a sandbox),
    ``secrets_without_sandbox`` (secrets in reach of commands run without one),
    ``credentials_in_git_config`` (the workspace's git config holds credentials),
    ``worktree_base`` (``isolation: worktree`` starts from HEAD, not the uncommitted files),
    ``context_file_skipped`` (a project context file was not read),
    ``sdk_private_path_disabled`` (the Gemini SDK's fast path failed; the public one is used),
    ``loop_check_failed`` (the model-judged loop check failed and is off),
    ``guard_reverted`` (a guard reverted or put back files), ``patch_redacted`` (secrets were
    masked in patch.diff), ``patch_incomplete`` (files too large are left out of it),
    ``ignored_files_written`` / ``ignored_scan_truncated`` / ``nested_repository`` /
    ``unreadable_file`` (what the agent wrote that patch.diff does not carry),
    ``branch_failed`` (``outputs.branch`` made no commit), ``console_unavailable`` (a console
    sink was dropped), ``hook_warning`` (an observing hook failed; the loop goes on), ``mcp_tool_skipped`` (an MCP
    server's tool that cannot be offered)."""

    type: Literal["warning"] = "warning"
    kind: WarningKind
    message: str


class UserCancelled(_Event):
    """The run was cancelled by a signal."""

    type: Literal["user_cancelled"] = "user_cancelled"
    signal: str


class TaskFinished(_Event):
    """A task ended with its status, exit code and what it changed."""

    type: Literal["task_finished"] = "task_finished"
    status: str
    exit_code: int
    reason: str = ""
    turns: int = 0
    changed_files: list[str] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)


class RunFinished(_Event):
    """Always the last line of a run: status, exit code and usage totals."""

    type: Literal["run_finished"] = "run_finished"
    status: str
    exit_code: int
    reason: str = ""
    usage: UsageTotals = Field(default_factory=UsageTotals)
    duration_ms: int = 0


Event = Annotated[
    RunStarted
    | TaskStarted
    | TurnStarted
    | ModelInfo
    | Content
    | Thought
    | ToolCallRequest
    | ToolCallDecision
    | ToolCallResponse
    | Retry
    | ModelFallback
    | ChatCompressed
    | ContextWindowWillOverflow
    | LoopDetectedEvent
    | HookResult
    | AgentExecutionStopped
    | AgentExecutionBlocked
    | InvalidStream
    | Usage
    | TurnFinished
    | VerifyResult
    | BudgetExhaustedEvent
    | Error
    | WarningEvent
    | UserCancelled
    | TaskFinished
    | RunFinished,
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)

EVENT_TYPES: tuple[str, ...] = tuple(
    m.model_fields["type"].default for m in get_args(get_args(Event)[0])
)
"""Every event ``type``, in the order of the union (and of docs/outputs.md)."""


def parse_event(line: str | bytes) -> Event:
    """Parse one JSONL line back into its event class."""
    return EVENT_ADAPTER.validate_json(line)
