"""Warnings: what the run or a user should know that does not change the status, by ``kind``."""

from __future__ import annotations

from typing import Literal, get_args

from agentci.events.envelope import EventBase

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
    "explicit_cache_unavailable",
    "explicit_cache_not_deleted",
    "resume_changed",
    "history_redacted",
    "resume_restarted",
    "verify_writes_restored",
    "workspace_kept",
]


WARNING_KINDS: tuple[str, ...] = get_args(WarningKind)
"""Every warning ``kind``, in the order of :data:`WarningKind`."""


class WarningEvent(EventBase):
    """Something the run or a user should know, which does not change the status; ``kind``
    names it: ``sandbox_unavailable`` (commands ran without a sandbox),
    ``secrets_without_sandbox`` (secrets in reach of commands run without one),
    ``credentials_in_git_config`` (the workspace's git config holds credentials),
    ``worktree_base`` (``isolation: worktree`` starts from HEAD, not the uncommitted files),
    ``context_file_skipped`` (a project context file was not read),
    ``sdk_private_path_disabled`` (the Gemini provider's own fast path failed; the SDK's public one is used),
    ``loop_check_failed`` (the model-judged loop check failed and is off),
    ``guard_reverted`` (a guard reverted or put back files), ``patch_redacted`` (secrets were
    masked in patch.diff), ``patch_incomplete`` (files too large are left out of it),
    ``ignored_files_written`` / ``ignored_scan_truncated`` / ``nested_repository`` /
    ``unreadable_file`` (what the agent wrote that patch.diff does not carry),
    ``branch_failed`` (``outputs.branch`` made no commit), ``console_unavailable`` (a console
    sink was dropped), ``hook_warning`` (an observing hook failed; the loop goes on), ``resume_changed``
    (``--resume``: something changed since the earlier run that the history does not depend
    on, or ``--resume-force`` went on over a change), ``mcp_tool_skipped`` (an MCP
    server's tool that cannot be offered), ``explicit_cache_unavailable`` (``model.cache:
    explicit`` could not create a context cache: the task goes on with implicit caching),
    ``explicit_cache_not_deleted`` (a context cache could not be deleted: it is billed until
    its ``model.cache_ttl_seconds`` run out), ``history_redacted`` (``--resume``: the resumed
    conversation holds values agentci masked as ``***``; the model is told so),
    ``resume_restarted`` (``--resume``: a stopped task's conversation is not in the earlier
    outputs, so it runs from the start), ``verify_writes_restored`` (files the patch is made
    of that a verify run changed were put back as they were before it ran, and repositories it
    made, ``lib/``, deleted: only their ``.git``, ``lib/.git``, in a folder that was there
    before), ``workspace_kept`` (the patch holds none of the agent's work, a
    signal or a failure while it was taken, or leaves some out, files too large or unreadable: the
    task's copy or git worktree is kept, not removed, and the message and result.json's
    ``kept_workspace`` say where)."""

    type: Literal["warning"] = "warning"
    kind: WarningKind
    message: str
