"""Run and task lifecycle events: a run and its tasks starting and finishing, and what ends
them early (a budget running out, an error, a signal).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentci.events.envelope import EventBase

# Token and cost totals: the one usage type (agentci/usage.py), named for the event schema.
from agentci.usage import Usage as UsageTotals


class RunStarted(EventBase):
    """The run began: which recipe, which tasks, which agentci."""

    type: Literal["run_started"] = "run_started"
    recipe: str
    recipe_name: str
    tasks: list[str]
    agentci_version: str
    resumed_from: str | None = None  # agentci run --resume OUT: the earlier output folder


class ContextFileInfo(BaseModel):
    """A project context file as loaded: workspace-relative path, bytes sent, cut or not."""

    model_config = ConfigDict(defer_build=True)  # built on first use

    path: str
    bytes: int
    truncated: bool = False


class TaskStarted(EventBase):
    """A task's agent is about to start: its model, workspace and the rendered prompt. Emitted
    after setup and the baseline verify (the prompt may quote its failures), before the MCP
    servers start (their ``warning`` events follow it); ``prompt`` is ""
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


class BudgetExhaustedEvent(EventBase):
    """A budget ran out: which limit, how much was used, the cap."""

    type: Literal["budget_exhausted"] = "budget_exhausted"
    limit: str
    used: float
    cap: float
    reason: str = ""


class Error(EventBase):
    """Something went wrong; ``kind`` is the status it leads to. Something that went wrong
    without ending anything is a ``warning``."""

    type: Literal["error"] = "error"
    kind: str
    message: str
    traceback: str | None = None


class UserCancelled(EventBase):
    """The run was cancelled by a signal."""

    type: Literal["user_cancelled"] = "user_cancelled"
    signal: str


class TaskFinished(EventBase):
    """A task ended with its status, exit code and what it changed."""

    type: Literal["task_finished"] = "task_finished"
    status: str
    exit_code: int
    reason: str = ""
    turns: int = 0
    changed_files: list[str] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)


class RunFinished(EventBase):
    """Always the last line of a run: status, exit code and usage totals."""

    type: Literal["run_finished"] = "run_finished"
    status: str
    exit_code: int
    reason: str = ""
    usage: UsageTotals = Field(default_factory=UsageTotals)
    duration_ms: int = 0
