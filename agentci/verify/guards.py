"""Guards on the change itself (``guards:`` in the recipe), checked when the model finishes.

=====================  ==========================================================  ========
guard                  violated when                                               reverted
=====================  ==========================================================  ========
``allowed_paths``      a changed file matches none of the globs                    yes
``forbid_test_edits``  a changed file matches one of the globs (e.g. ``tests/**``)  yes
``max_changed_files``  more files changed than the cap                             no
``max_changed_lines``  more lines added + deleted than the cap                     no
=====================  ==========================================================  ========

Globs are workspace-relative, gitignore-style (``src/**``, ``*.md``). Path guards are enforced by
:func:`revert_paths`: the offending files go back to their state before the agent (new files are
deleted), so the patch never contains them. Under ``allowed_paths`` the ignored files the agent
wrote outside them are put back too (:mod:`agentci.verify.kept`): in pre-commit mode nothing
but the staged files stays changed, a developer's ignored ``.env`` included. Size guards cannot be fixed by agentci; they fail
the task and the patch shows the whole change for review.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentci import workspace_io
from agentci.change.change import Change
from agentci.change.patch import current_change
from agentci.change.privgit import GitFailed
from agentci.change.snapshot import Baseline
from agentci.policy.paths import anchored
from agentci.recipe.guards_config import Guards
from agentci.verify.kept import restore_ignored

PATH_GUARDS = ("allowed_paths", "forbid_test_edits")


@dataclass
class GuardResult:
    """One configured guard, checked once."""

    name: str
    passed: bool
    message: str = ""
    paths: list[str] = field(default_factory=list)  # the offending files
    reverted: list[str] = field(default_factory=list)  # files agentci put back
    ignored_restored: list[str] = field(default_factory=list)  # ignored files put back
    #: ignored files outside ``allowed_paths`` the agent changed or deleted that could not be
    #: put back (no copy was kept: too large); they fail the guard
    ignored_lost: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        """For result.json (``extra.guards``)."""
        return {"name": self.name, "passed": self.passed, "message": self.message,
                "paths": list(self.paths), "reverted": list(self.reverted),
                **({"ignored_restored": self.ignored_restored} if self.ignored_restored else {}),
                **({"ignored_lost": self.ignored_lost} if self.ignored_lost else {})}  # fmt: skip


def configured(guards: Guards) -> bool:
    """Whether the recipe sets any guard."""
    return any(
        v is not None
        for v in (
            guards.allowed_paths,
            guards.forbid_test_edits,
            guards.max_changed_files,
            guards.max_changed_lines,
        )  # fmt: skip
    )


def _matchable(name: str) -> str:
    """``name`` as the patterns are matched against: a byte that is not UTF-8 (a lone
    surrogate in Python's name) as U+FFFD, which a wildcard matches as it would the byte (the
    matcher takes only valid UTF-8)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def path_violations(guards: Guards, changed: list[str]) -> dict[str, list[str]]:
    """The changed files each path guard refuses (only guards that are set)."""
    out: dict[str, list[str]] = {}
    if guards.allowed_paths is not None:
        spec = anchored(guards.allowed_paths)
        out["allowed_paths"] = [p for p in changed if not spec.match_file(_matchable(p))]
    if guards.forbid_test_edits is not None:
        spec = anchored(guards.forbid_test_edits)
        out["forbid_test_edits"] = [p for p in changed if spec.match_file(_matchable(p))]
    return out


def check_guards(guards: Guards, change: Change) -> list[GuardResult]:
    """Check every configured guard against one :class:`Change` (nothing is reverted)."""
    changed = change.files
    results = []
    for name, bad in path_violations(guards, changed).items():
        what = "outside allowed_paths" if name == "allowed_paths" else "protected"
        msg = f"{len(bad)} changed file(s) {what}: {', '.join(bad)}" if bad else ""
        results.append(GuardResult(name, not bad, msg, bad))
    if guards.max_changed_files is not None:
        n, cap = len(changed), guards.max_changed_files
        msg = f"{n} files changed, at most {cap} allowed" if n > cap else ""
        results.append(GuardResult("max_changed_files", n <= cap, msg))
    if guards.max_changed_lines is not None:
        n, cap = change.lines, guards.max_changed_lines
        msg = f"{n} lines changed, at most {cap} allowed" if n > cap else ""
        results.append(GuardResult("max_changed_lines", n <= cap, msg))
    return results


#: The largest file a revert keeps a copy of (a larger one is reverted without).
KEEP_MAX_BYTES = 64 * 1024 * 1024


def revert_paths(baseline: Baseline, paths: list[str], keep: str | None = None) -> list[str]:
    """Put ``paths`` (workspace-relative) back as they were at the baseline; returns those done.

    A file that did not exist at the baseline is deleted; the folders on its way stay, even
    when now empty: git does not track empty folders, so the baseline cannot tell a folder the
    user had (an empty ``uploads/``) from one the agent made, and agentci never deletes a
    user's folder. ``keep`` (a workspace-relative folder, for a workspace edited in place): each
    file is first copied there as it is (:func:`keep_copy`), since it may hold an edit the user
    saved during the run; one that cannot be copied is left as it is, not reverted. Raises
    ``RuntimeError`` when git fails.
    """
    git = baseline.git
    done = []
    for rel in paths:
        if keep is not None and not keep_copy(baseline, rel, keep):
            continue
        full = f"{baseline.prefix}/{rel}" if baseline.prefix else rel
        try:
            git.run(["cat-file", "-e", f"{baseline.tree}:{full}"])
            existed = True
        except GitFailed:
            existed = False
        if existed:
            # the files only: the private index keeps a submodule's or nested clone's gitlink
            git.restore(baseline.tree, full)
        else:  # a new file: deleted beneath the workspace, never through a link on the way
            try:
                workspace_io.unlink(baseline.workspace, rel)
            except workspace_io.UnsafePath:
                continue
        done.append(rel)
    return done


def keep_copy(baseline: Baseline, rel: str, keep: str) -> bool:
    """Copy the regular file ``rel`` to ``keep/rel`` below the workspace (with a ``.gitignore``
    of ``*`` in ``keep``'s parent, so git never lists the copies); True when copied, or when
    there is nothing to copy (no file, a link, one over :data:`KEEP_MAX_BYTES`)."""
    ws = baseline.workspace
    if workspace_io.kind(ws, rel) != "file":
        return True
    try:
        data = workspace_io.read_bytes(ws, rel, KEEP_MAX_BYTES, hardlinks=True)
    except workspace_io.UnsafePath:
        return True  # too large (or gone): reverted without a copy
    try:
        ignore = f"{keep.rsplit('/', 1)[0]}/.gitignore"
        if workspace_io.kind(ws, ignore) == "missing":
            workspace_io.write_bytes(ws, ignore, b"# copies kept by agentci's guard reverts\n*\n")
        workspace_io.write_bytes(ws, f"{keep}/{rel}", data)
    except (workspace_io.UnsafePath, OSError):
        return False
    return True


def revert_refused(
    guards: Guards, baseline: Baseline, change: Change, keep: str | None = None
) -> list[GuardResult]:
    """Check the guards on ``change`` and revert every file a path guard refuses; under
    ``allowed_paths``, put back the ignored files the agent wrote outside them too (listed in
    ``ignored_restored``; they do not fail the guard: a test run's cache is such a file). The
    size guards of the results are those of ``change``: measure again after a revert."""
    results = check_guards(guards, change)
    offending = sorted({p for r in results if r.name in PATH_GUARDS for p in r.paths})
    reverted = set(revert_paths(baseline, offending, keep)) if offending else set()
    for r in results:
        r.reverted = [p for p in r.paths if p in reverted]
        if (
            r.name == "allowed_paths"
            and guards.allowed_paths
            and (change.ignored_written or change.ignored_deleted or baseline.kept)
        ):
            spec = anchored(guards.allowed_paths)
            offending, r.ignored_restored = restore_ignored(
                baseline, spec, change.ignored_written, change.ignored_deleted
            )
            lost = [p for p in offending if p not in r.ignored_restored]
            if lost:  # the user's file is gone or changed for good: that is a refusal too
                r.ignored_lost = lost
                r.passed = False
                r.message = _lost_message(r.message, lost)
    return results


def _lost_message(message: str, lost: list[str]) -> str:
    names = ", ".join(lost[:10]) + (" …" if len(lost) > 10 else "")
    said = (
        f"{len(lost)} ignored file(s) outside allowed_paths were changed or deleted and could "
        f"not be put back (no copy kept: over the keep limit): {names}"
    )
    return f"{message}; {said}" if message else said


def enforce_path_guards(guards: Guards, baseline: Baseline) -> list[GuardResult]:
    """Snapshot now, revert what the path guards refuse, measure the size guards after."""
    results = revert_refused(guards, baseline, current_change(baseline))
    if not any(r.reverted for r in results):
        return results
    sizes = {r.name: r for r in check_guards(guards, current_change(baseline))
             if r.name not in PATH_GUARDS}  # fmt: skip
    return [sizes.get(r.name, r) for r in results]
