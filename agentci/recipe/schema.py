"""The recipe schema, version 1 (README.md, Recipes; ``agentci schema``). Unknown keys and wrong types are errors.

`agentci schema` prints :func:`json_schema` for editors and SchemaStore.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, PositiveInt, PrivateAttr, field_validator, model_validator

from agentci.recipe.budget_config import Budget
from agentci.recipe.extra_outputs import EXTRA_OUTPUTS, ExtraOutput
from agentci.recipe.fields import Strict
from agentci.recipe.guards_config import Guards
from agentci.recipe.hook_config import Hooks
from agentci.recipe.loops import LoopDetection
from agentci.recipe.model_config import ModelConfig, TaskModel
from agentci.recipe.policy_config import Policy
from agentci.recipe.tool_config import Tools
from agentci.recipe.verify_config import Verify


class Parameter(Strict):
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


class Workspace(Strict):
    """Where the agent works. ``copy`` and ``worktree`` keep the original untouched."""

    path: str = "."
    isolation: Literal["none", "copy", "worktree"] = "none"


class Setup(Strict):
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


class Context(Strict):
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
        "is replaced by a short preview and its saved file's name, the oldest first, until "
        "the rest fits 70% of it.",
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


class BranchOutput(Strict):
    """Commit a successful task's patch to a local branch (docs/batch.md); templates see
    ``recipe``, ``task`` and the parameters."""

    name: str = Field(default="agentci/{{ recipe }}-{{ task }}", min_length=1)
    commit_message: str = Field(default="agentci: {{ recipe }}/{{ task }}", min_length=1)


#: The outputs a recipe (``outputs.extra``) or ``--outputs`` may leave out; the others are
#: always written (docs/outputs.md).


class Outputs(Strict):
    """Where the outputs go (relative to the working directory agentci runs in)."""

    dir: str = ".agentci/out"
    branch: BranchOutput | None = None
    extra: list[ExtraOutput] = Field(
        default_factory=lambda: list(EXTRA_OUTPUTS),
        description="The optional outputs to write besides events.jsonl, patch.diff, "
        "junit.xml, result.json and summary.md (always written): report.html, sarif.json "
        "(default both; [] for neither).",
    )


class ContextFiles(Strict):
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


class SystemPrompt(Strict):
    """Replace agentci's system prompt, or append to it (after ``instructions``). A value of
    one line without spaces ending in .md or .txt is a file, relative to the recipe's folder."""

    replace: str | None = Field(default=None, min_length=1)
    append: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _one(self) -> SystemPrompt:
        if (self.replace is None) == (self.append is None):
            raise ValueError("give one of 'replace' or 'append'")
        return self


class Output(Strict):
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


class Task(Strict):
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


class Recipe(Strict):
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


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a recipe."""
    schema = Recipe.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "agentci recipe"
    return schema
