"""The recipe schema, version 1 (README.md, Recipes; ``agentci schema``). Unknown keys and wrong types are errors.

`agentci schema` prints :func:`json_schema` for editors and SchemaStore.
"""

from __future__ import annotations

import re
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    Field,
    PositiveInt,
    PrivateAttr,
    field_validator,
    model_validator,
)

from agentci.recipe.fields import MAX_SECONDS, Price, Seconds, Strict, Usd
from agentci.recipe.loops import LoopDetection
from agentci.recipe.tool_config import Tools

_Strict = Strict


class Pricing(_Strict):
    """Prices in USD per million tokens; overrides the built-in table."""

    input_per_mtok: Price
    output_per_mtok: Price
    cached_per_mtok: Price | None = None
    thinking_per_mtok: Price | None = Field(
        default=None, description="Defaults to the output price."
    )


class RetryConfig(_Strict):
    """How model calls are retried on transient faults (429, 5xx, cut streams)."""

    attempts: PositiveInt = Field(
        default=5, description="Tries per model call, the first included."
    )
    initial_delay_seconds: float = Field(default=1.0, ge=0, le=MAX_SECONDS)
    max_delay_seconds: float = Field(default=30.0, ge=0, le=MAX_SECONDS)
    request_timeout_seconds: Seconds = 120.0
    stream_idle_timeout_seconds: Seconds = 60.0


class FallbackModel(_Strict):
    """A fallback model with the price it is billed at (``pricing`` of the model it follows
    does not apply to it)."""

    name: str = Field(min_length=1)
    pricing: Pricing | None = None


class ModelConfig(_Strict):
    """Which model answers, and which provider serves it (docs/providers.md).

    ``provider`` (``gemini``, ``openai``, ``replay``, ``scripted``) may be left out: a name
    with a provider prefix (``openai:gpt-4o``, ``replay:PATH``, ``scripted:PATH``) names it,
    and a Gemini model name (``gemini-2.5-flash``) is Gemini's. With ``provider`` set, ``name``
    and the fallbacks are that provider's models: they are read with its prefix
    (``provider: openai`` + ``name: gpt-4o`` is ``openai:gpt-4o``).

    ``pricing`` is the price of ``name`` only; a fallback is priced by the built-in table, or
    by its own ``pricing`` when written as ``{name: ..., pricing: {...}}``."""

    provider: str | None = Field(
        default=None,
        pattern=r"^[a-z][a-z0-9_]*$",
        description="gemini | openai | replay | scripted (default: from the name: a "
        "provider prefix such as openai:NAME, else gemini for Gemini model names).",
    )
    name: str = Field(
        min_length=1,
        description="gemini-2.5-flash, openai:NAME, replay:PATH or scripted:PATH (with "
        "provider set: that provider's model name or file).",
    )
    fallback: list[str | FallbackModel] = Field(
        default_factory=list,
        description="Models to switch to (for the rest of the task) when this one fails.",
    )
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_output_tokens: PositiveInt | None = None
    thinking_budget: int | None = Field(default=None, ge=-1)
    base_url: str | None = Field(
        default=None,
        description="The provider's API endpoint: overrides GOOGLE_GEMINI_BASE_URL (gemini) "
        "or OPENAI_BASE_URL (openai).",
    )
    api_key_env: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="The environment variable that holds the API key (default: the "
        "provider's: GEMINI_API_KEY / GOOGLE_API_KEY, OPENAI_API_KEY). Its value is masked in "
        "every output like any key.",
    )
    pricing: Pricing | None = Field(default=None, description="The price of `name` only.")
    context_window: PositiveInt | None = Field(
        default=None,
        description="Prompt tokens one request may carry (default: the model's, from the "
        "built-in table); applies to the fallback models too.",
    )
    retry: RetryConfig = Field(default_factory=RetryConfig)
    max_continuations: int = Field(
        default=3,
        ge=0,
        le=100,
        description="An answer cut by the output limit (MAX_TOKENS) is continued at most this "
        "many times; still cut: budget_exhausted (max_output_tokens).",
    )

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname or " " in value:
            raise ValueError(f"{value!r} is not an http(s) URL such as https://host:port")
        return value

    @model_validator(mode="after")
    def _provider_prefix(self) -> ModelConfig:
        """``provider: P`` reads ``name`` and each fallback as ``P:NAME`` (see the class doc)."""
        p = self.provider
        if p is None:
            return self

        def qualified(name: str) -> str:
            return name if name.startswith(f"{p}:") else f"{p}:{name}"

        if self.name is not None:
            self.name = qualified(self.name)
        self.fallback = [
            qualified(f) if isinstance(f, str) else f.model_copy(update={"name": qualified(f.name)})
            for f in self.fallback
        ]
        return self

    def fallback_names(self) -> list[str]:
        """The fallback models' names, in order."""
        return [f if isinstance(f, str) else f.name for f in self.fallback]

    def pricing_for(self, model: str) -> Pricing | None:
        """The recipe's price for ``model`` (None: the built-in table decides)."""
        if model == self.name:
            return self.pricing
        for f in self.fallback:
            if isinstance(f, FallbackModel) and f.name == model:
                return f.pricing
        return None


class TaskModel(ModelConfig):
    """A task's ``model:``: each field given replaces the recipe's, the others are kept
    (``retry`` field by field). The recipe's ``pricing`` is dropped with its model's name."""

    name: str | None = Field(default=None, min_length=1)  # type: ignore[assignment]


class Parameter(_Strict):
    """A template parameter, set with ``-p name=value``; a ``list`` takes one ``-p name=item``
    per item and renders shell-quoted, space-separated (``{{ files }}`` → ``a.py 'b c.py'``)."""

    type: Literal["string", "number", "boolean", "enum", "list"] = "string"
    default: str | int | float | bool | list[str] | None = None
    description: str = ""
    choices: list[str] | None = Field(default=None, description="Allowed values of an enum.")

    @model_validator(mode="after")
    def _enum_has_choices(self) -> Parameter:
        if self.type == "enum" and not self.choices:
            raise ValueError("an enum parameter needs 'choices'")
        if self.type != "enum" and self.choices is not None:
            raise ValueError("'choices' only goes with type: enum")
        if isinstance(self.default, list) and self.type != "list":
            raise ValueError("a list default needs type: list")
        return self


class Workspace(_Strict):
    """Where the agent works. ``copy`` and ``worktree`` keep the original untouched."""

    path: str = "."
    isolation: Literal["none", "copy", "worktree"] = "none"


class Verify(_Strict):
    """The recipe author's check of the result (not subject to the agent's policy)."""

    command: str = Field(min_length=1)
    junit: str | None = Field(
        default=None,
        description="A JUnit file the command writes, relative to the workspace "
        "(a read-only folder such as .agentci/ is made writable for it).",
    )
    runner: Literal["pytest"] | None = Field(
        default=None, description="pytest: agentci adds --junitxml itself."
    )
    attempts: PositiveInt = 3
    rerun_failures: int = Field(default=1, ge=0)
    timeout_seconds: Seconds = 600
    baseline: bool = Field(default=True, description="Run verify once before the agent starts.")
    network: bool | None = Field(
        default=None,
        description="Network for the verify command in the sandbox (default: policy.network).",
    )
    host_sockets: bool | None = Field(
        default=None,
        description="Host Unix sockets for the verify command (default: policy.host_sockets).",
    )
    skip_if_passing: bool = Field(
        default=True, description="End at once when the baseline already passes."
    )
    strategy: Literal["full", "failing_first"] | None = Field(
        default=None,
        description="failing_first (the default with runner: pytest): between attempts, run "
        "the tests that failed at the baseline and those in changed files first, the full "
        "suite only when they pass; full: the whole command every time. Other runners: full.",
    )

    @field_validator("junit")
    @classmethod
    def _junit_in_the_workspace(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = [p for p in value.replace("\\", "/").split("/") if p not in ("", ".")]
        if value.startswith("/") or ".." in parts or not parts:
            raise ValueError("junit must be a file path relative to the workspace, without '..'")
        return value


class Setup(_Strict):
    """The recipe's setup commands, with their own switches (``setup: [..]`` is short). The
    first task's setup runs on the host before the agent; the switches are for a later task's
    setup, which runs in the sandbox on the earlier agent's work."""

    commands: list[str] = Field(default_factory=list)
    network: bool = Field(
        default=False, description="Network for a later task's setup (in the sandbox)."
    )
    host_sockets: bool = Field(
        default=False, description="Host Unix sockets for a later task's setup (in the sandbox)."
    )


class Rule(_Strict):
    """One policy rule; deny beats allow, no match falls back to the mode."""

    tool: str | list[str] = "*"
    command: str | None = Field(default=None, description="Command prefix (run_shell_command).")
    path: str | list[str] | None = Field(default=None, description="Path globs (file tools).")
    decision: Literal["allow", "deny"]
    reason: str = ""


class Policy(_Strict):
    """What the agent may do without a human: the mode's defaults plus rules."""

    mode: Literal["read_only", "auto_edit", "yolo"] = "auto_edit"
    rules: list[Rule] = Field(default_factory=list)
    network: bool = Field(default=False, description="TCP/UDP and DNS for the agent's commands.")
    host_sockets: bool = Field(
        default=False,
        description="Let the agent's commands reach the host's Unix sockets (docker.sock, …).",
    )
    env_passthrough: list[str] = Field(
        default_factory=list, description="Environment variables tools may see."
    )


class Budget(_Strict):
    """Limits per task; ``total`` caps the sum over all tasks of a recipe."""

    max_turns: PositiveInt = 100
    max_tokens: PositiveInt | None = None
    max_cost_usd: Usd | None = None
    max_wall_seconds: Seconds | None = None
    max_tool_calls: PositiveInt | None = None
    tool_timeout_seconds: Seconds = 300
    total: TotalBudget | None = None
    daily_usd: Usd | None = Field(
        default=None,
        description="USD all runs sharing the ledger may spend per UTC day (docs/budgets.md).",
    )
    per_workflow_usd: Usd | None = Field(
        default=None,
        description="USD the runs of one workflow ($GITHUB_WORKFLOW, else the recipe's name) "
        "sharing the ledger may spend per UTC day.",
    )
    ledger: str | None = Field(
        default=None,
        description="The ledger file of daily_usd / per_workflow_usd (else $AGENTCI_LEDGER, "
        "else ~/.cache/agentci/ledger.sqlite); relative to the recipe's folder.",
    )


class TotalBudget(_Strict):
    """Limits over all tasks of a recipe."""

    max_tokens: PositiveInt | None = None
    max_cost_usd: Usd | None = None
    max_wall_seconds: Seconds | None = None


class Guards(_Strict):
    """Checks on the change when the model finishes."""

    allowed_paths: list[str] | None = None
    max_changed_files: PositiveInt | None = None
    max_changed_lines: PositiveInt | None = None
    forbid_test_edits: list[str] | None = Field(
        default=None, description="Globs the agent may not modify (e.g. tests/**)."
    )
    weakened_tests: Literal["on", "report", "off"] | None = Field(
        default=None,
        description="Tests skipped, removed, emptied or deselected by the change: 'on' fails "
        "the task, 'report' lists them, 'off' does not look. Default: 'on' when verify reports "
        "per-test results (runner: pytest or junit:), else 'off' (docs/verify.md).",
    )

    @field_validator("weakened_tests", mode="before")
    @classmethod
    def _yaml_on_off(cls, value: object) -> object:
        """YAML reads a bare ``on`` / ``off`` as true / false: take them as meant."""
        if value is True:
            return "on"
        if value is False:
            return "off"
        return value


class Hook(_Strict):
    """A recipe author's command run around matching tool calls (docs/hooks.md)."""

    matcher: str = Field(
        min_length=1,
        description="'*' (every tool) or a regular expression fully matched against the tool "
        "name: 'run_shell_command', 'write_file|replace'.",
    )
    command: str = Field(
        min_length=1,
        description="Run with bash in the workspace; a relative path as first word "
        "(./ci/check.sh) is resolved against the recipe's folder.",
    )
    timeout_seconds: Seconds = Field(
        default=30, description="A hook that runs longer is killed and the call denied."
    )

    @field_validator("matcher")
    @classmethod
    def _valid_matcher(cls, value: str) -> str:
        if value != "*":
            try:
                re.compile(value)
            except re.error as err:
                raise ValueError(f"not '*' nor a valid regular expression: {err}") from None
        return value


class StageHook(_Strict):
    """A recipe author's command run at a stage of the loop that is not a tool call
    (docs/hooks.md): no ``matcher``."""

    command: str = Field(
        min_length=1,
        description="Run with bash in a private copy of the recipe's folder; a relative path "
        "as first word (./ci/check.sh) is resolved against the recipe's folder.",
    )
    timeout_seconds: Seconds = Field(
        default=30,
        description="A hook that runs longer is killed: for after_agent the task stops "
        "(blocked); for the other stages a warning.",
    )


class Hooks(_Strict):
    """Commands run at the stages of the loop; see docs/hooks.md for the protocol."""

    session_start: list[StageHook] = Field(
        default_factory=list,
        description="Run once before the task's first model call; may add context.",
    )
    before_model: list[StageHook] = Field(
        default_factory=list,
        description="Run before each model call; may add context to that request only.",
    )
    before_tool: list[Hook] = Field(
        default_factory=list,
        description="Run after validation, before the policy; may deny or rewrite arguments.",
    )
    after_tool: list[Hook] = Field(
        default_factory=list, description="Run after the tool; may add a note or stop the run."
    )
    after_agent: list[StageHook] = Field(
        default_factory=list,
        description="Run when the model answers without tool calls; may accept, block (the "
        "reason goes back to the model) or stop.",
    )
    pre_compress: list[StageHook] = Field(
        default_factory=list, description="Run before the history is compressed; observes."
    )
    session_end: list[StageHook] = Field(
        default_factory=list,
        description="Run once when a task whose session started ends, however it ends.",
    )
    max_continuations: int = Field(
        default=3,
        ge=0,
        le=100,
        description="How many times in a row after_agent hooks may block an answer; one more "
        "block ends the task blocked (exit 5).",
    )

    @property
    def any(self) -> bool:
        """True when the recipe has at least one hook."""
        return any(getattr(self, stage) for stage in STAGES)


#: The hook stages, in the order a task meets them.
STAGES = (
    "session_start",
    "before_model",
    "before_tool",
    "after_tool",
    "after_agent",
    "pre_compress",
    "session_end",
)


class Context(_Strict):
    """How a long session stays inside the model's context window (docs/context.md)."""

    tool_output_cap_chars: int = Field(
        default=30_000,
        ge=1_000,
        le=1_000_000,
        description="A tool output longer than this is saved whole under the output folder; "
        "the model sees its head and tail and the saved file's name.",
    )
    mask_tool_output_after_tokens: int = Field(
        default=50_000,
        ge=1_000,
        description="Tool output kept in history beyond this many tokens (newest kept whole) "
        "is replaced by a short preview and its saved file's name.",
    )
    compress_at: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="Compress the history when the next request would use this fraction of "
        "the context window.",
    )
    keep_recent: float = Field(
        default=0.3,
        gt=0,
        lt=1,
        description="Fraction of the history (the newest) kept verbatim by a compression.",
    )


class BranchOutput(_Strict):
    """Commit a successful task's patch to a local branch (docs/batch.md); templates see
    ``recipe``, ``task`` and the parameters."""

    name: str = Field(default="agentci/{{ recipe }}-{{ task }}", min_length=1)
    commit_message: str = Field(default="agentci: {{ recipe }}/{{ task }}", min_length=1)


class Outputs(_Strict):
    """Where the outputs go (relative to the working directory agentci runs in)."""

    dir: str = ".agentci/out"
    branch: BranchOutput | None = None


class ContextFiles(_Strict):
    """Project context files the model reads before the prompt (docs/project-context.md); the
    repository's content, delimited as such: it cannot change the policy, budget or tools."""

    files: list[str] = Field(
        default_factory=lambda: ["AGENTS.md", "GEMINI.md", "CLAUDE.md"],
        description="Names looked for in the workspace root and in each folder between the "
        "root and the paths the prompt names.",
    )
    max_bytes: int = Field(
        default=32_768, gt=0, le=1_000_000, description="Cap on all files together."
    )
    include: list[str] = Field(
        default_factory=list, description="More workspace-relative files, loaded after those."
    )


class SystemPrompt(_Strict):
    """Replace agentci's system prompt, or append to it (after ``instructions``). A value of
    one line without spaces ending in .md or .txt is a file, relative to the recipe's folder."""

    replace: str | None = Field(default=None, min_length=1)
    append: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _one(self) -> SystemPrompt:
        if (self.replace is None) == (self.append is None):
            raise ValueError("give one of 'replace' or 'append'")
        return self


class Output(_Strict):
    """A structured answer: the model hands it in through the ``submit_result`` tool, whose
    parameters are ``schema``; agentci validates it (docs/structured-output.md)."""

    schema_: dict[str, Any] | str = Field(
        alias="schema",
        description="A JSON Schema (its root an object), or a .json/.yaml file relative to "
        "the recipe's folder.",
    )
    attempts: PositiveInt = Field(
        default=3,
        le=20,
        description="Answers the model may hand in; the validation errors of each invalid "
        "one go back to it. Still invalid after the last: status invalid_output (exit 7).",
    )


class Task(_Strict):
    """One task of a multi-task recipe; unset fields come from the recipe."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    prompt: str | None = Field(
        default=None, min_length=1, description="The task's prompt (default: the recipe's)."
    )
    params: dict[str, str | int | float | bool | list[str]] = Field(
        default_factory=dict,
        description="Values of the recipe's parameters for this task (over -p and defaults).",
    )
    instructions: str | None = None
    verify: Verify | None = None
    model: TaskModel | None = None
    budget: Budget | None = Field(
        default=None,
        description="Each limit given replaces the recipe's, the others are kept.",
    )
    guards: Guards | None = None
    allow_no_changes: bool | None = None

    @field_validator("budget")
    @classmethod
    def _no_total(cls, budget: Budget | None) -> Budget | None:
        if budget is not None and budget.total is not None:
            raise ValueError(
                "budget.total caps the whole run: set it in the recipe's budget, not in a task's"
            )
        return budget


class Recipe(_Strict):
    """A recipe, version 1."""

    version: Literal[1]
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    model: ModelConfig
    parameters: dict[str, Parameter] = Field(default_factory=dict)
    instructions: str = ""
    prompt: str | None = None
    workspace: Workspace = Field(default_factory=Workspace)
    setup: list[str] | Setup = Field(
        default_factory=list, description="Commands, or {commands: [...], network: bool}."
    )
    verify: Verify | None = None
    policy: Policy = Field(default_factory=Policy)
    sandbox: Literal["auto", "bwrap", "none"] = "auto"
    budget: Budget = Field(default_factory=Budget)
    guards: Guards = Field(default_factory=Guards)
    hooks: Hooks = Field(default_factory=Hooks)
    tools: Tools = Field(default_factory=Tools)
    context: Context = Field(default_factory=Context)
    outputs: Outputs = Field(default_factory=Outputs)
    loop_detection: LoopDetection = Field(default_factory=LoopDetection)
    allow_no_changes: bool = False
    project_context: ContextFiles | bool = Field(
        default_factory=ContextFiles,
        description="Project context files (AGENTS.md, …); false: none.",
    )
    system_prompt: SystemPrompt | None = None
    output: Output | None = None
    tasks: list[Task] | None = None
    _source: Any = PrivateAttr(default=None)  # recipe.load.RecipeSource: file and key lines

    @property
    def setup_config(self) -> Setup:
        """``setup`` in its long form."""
        return self.setup if isinstance(self.setup, Setup) else Setup(commands=self.setup)

    @model_validator(mode="after")
    def _has_prompt(self) -> Recipe:
        if self.prompt is None and not self.tasks:
            raise ValueError("a recipe needs a 'prompt' or a list of 'tasks'")
        if self.tasks:
            names = [t.name for t in self.tasks]
            dupes = sorted({n for n in names if names.count(n) > 1})
            if dupes:
                raise ValueError(f"task names must be unique: {', '.join(dupes)}")
        return self


Budget.model_rebuild()


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a recipe."""
    schema = Recipe.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "agentci recipe"
    return schema
