"""What a task's change means for its report: the redacted patch, and warnings about what
``patch.diff`` leaves out (large files, ignored files written, nested repositories)."""

from __future__ import annotations

from collections.abc import Callable

from agentci.change.change import MAX_FILE_BYTES, Change, Patch
from agentci.change.ignored import SCAN_LIMIT_ENV, scan_limit
from agentci.events import types as ev
from agentci.outcome import Status
from agentci.reports.patchfacts import ignored_deleted_message, ignored_written_message
from agentci.reports.redact import Redactor
from agentci.reports.report import TaskReport


def report_change(
    report: TaskReport,
    change: Change,
    patch: Patch,
    redactor: Redactor | None,
    base: str | None,
    emit: Callable[[ev.Event], object],
    directory: str = "",
) -> str:
    """The patch text (secrets masked in added lines) for the outputs; what it leaves out goes
    into ``report.extra["patch"]`` and ``warning`` events. ``directory``: the workspace's folder
    inside its git work tree ("" at the top), which the patch's paths are relative to."""
    redactor = redactor or Redactor.from_environ()
    text, masked = redactor.redact_patch(patch.text)
    info = {
        "redacted": bool(masked), "redacted_files": masked, "omitted": patch.omitted,
        "base": base, "directory": directory, "ignored_written": change.ignored_written,
        "ignored_deleted": change.ignored_deleted,
        "nested_repositories": change.nested_repos, "unreadable": change.unreadable,
        "nested_repositories_damaged": sorted(change.nested_damaged),
    }  # fmt: skip
    report.extra["patch"] = info
    warn: list[tuple[ev.WarningKind, str]] = []
    if masked:
        warn.append(
            (
                "patch_redacted",
                f"secrets were masked in added lines of "
                f"{', '.join(masked)}: patch.diff applies, but writes *** there",
            )
        )
    if patch.omitted:
        names = ", ".join(f"{o['path']} ({o['bytes']} bytes)" for o in patch.omitted)
        warn.append(
            (
                "patch_incomplete",
                f"patch.diff leaves out {len(patch.omitted)} "
                f"file(s) too large to inline (over {MAX_FILE_BYTES} bytes, or the "
                f"largest of a patch over the cap): {names}",
            )
        )
        if report.status is Status.success and not report.reason:
            report.reason = f"patch.diff is incomplete: it leaves out {names}"
    if message := ignored_written_message(change.ignored_written):
        warn.append(("ignored_files_written", message))
    if message := ignored_deleted_message(change.ignored_deleted):
        warn.append(("ignored_files_written", message))
    if change.ignored_scan_truncated:
        warn.append(
            (
                "ignored_scan_truncated",
                f"the workspace has more ignored files than agentci fingerprints ({scan_limit()}, "
                f"{SCAN_LIMIT_ENV} sets it): writes to those past them are not noticed, and none "
                "of them is deleted",
            )
        )
    for repo in change.nested_repos:
        warn.append(
            (
                "nested_repository",
                f"the agent created a git repository at {repo}; it is not part of the patch",
            )
        )
    for repo, how in sorted(change.nested_damaged.items()):
        warn.append(
            (
                "nested_repository",
                f"the git repository at {repo} was removed or damaged during the run ({how}); "
                "its commits and history are not in the patch",
            )
        )
    for path in change.unreadable:
        warn.append(("unreadable_file", f"{path} could not be read; it is not in the patch"))
    for kind, message in warn:
        emit(ev.WarningEvent(kind=kind, message=message))
    return text
