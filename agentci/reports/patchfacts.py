"""What result.json and summary.md say about the patch itself (one place for both).

Each task's ``extra.patch`` (filled by the task from its :class:`~agentci.change.change.Change`)
holds: ``redacted`` / ``redacted_files`` (secrets masked in added lines), ``omitted`` (files too
large to inline), ``base`` (what the patch applies to, for ``isolation: worktree``),
``ignored_written``, ``nested_repositories`` and ``unreadable``. :func:`run_patch_facts` merges
them over the run's tasks for result.json's top level; :func:`patch_notes` words them for
summary.md.
"""

from __future__ import annotations

from typing import Any

from agentci.reports.report import RunReport

CACHE_DIRS = frozenset(
    {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}
)


def is_cache(path: str) -> bool:
    """Whether ``path`` is a tool's cache (bytecode, pytest, mypy, ruff): running the tests
    writes those, so they are counted, not listed, among the ignored files written."""
    return path.endswith((".pyc", ".pyo")) or not CACHE_DIRS.isdisjoint(path.split("/"))


def ignored_written_message(paths: list[str], *, shown: int = 20) -> str | None:
    """The warning about ignored files the agent wrote, caches counted apart; ``None`` when
    they are all caches (result.json still lists every one)."""
    others = [p for p in paths if not is_cache(p)]
    if not others:
        return None
    caches = len(paths) - len(others)
    more = len(others) - shown
    return (
        f"the agent wrote {len(others)} file(s) that .gitignore ignores (not in the patch): "
        + ", ".join(others[:shown])
        + (f" … and {more} more" if more > 0 else "")
        + (f" (and {caches} cache file(s), e.g. __pycache__)" if caches else "")
    )


def ignored_deleted_message(paths: list[str], *, shown: int = 20) -> str | None:
    """The warning about ignored files that were there at the start and are gone (the patch
    cannot carry them back); ``None`` when they are all caches."""
    others = [p for p in paths if not is_cache(p)]
    if not others:
        return None
    more = len(others) - shown
    return (
        f"{len(others)} file(s) that .gitignore ignores were deleted during the run (not in "
        "the patch, not restored): "
        + ", ".join(others[:shown])
        + (f" … and {more} more" if more > 0 else "")
    )


def _facts(run: RunReport) -> list[dict[str, Any]]:
    return [t.extra.get("patch") or {} for t in run.tasks]


def run_patch_facts(run: RunReport) -> dict[str, Any]:
    """result.json's top-level patch fields."""
    facts = _facts(run)
    bases = sorted({f["base"] for f in facts if f.get("base")})

    def union(key: str) -> list[Any]:
        out: list[Any] = []
        for f in facts:
            out += [v for v in f.get(key) or [] if v not in out]
        return out

    return {
        "patch_redacted": any(f.get("redacted") for f in facts),
        "patch_incomplete": any(f.get("omitted") for f in facts),
        "patch_omitted": union("omitted"),
        "patch_base": bases[0] if len(bases) == 1 else (bases or None),
        "ignored_files_written": union("ignored_written"),
        "ignored_files_deleted": union("ignored_deleted"),
    }


def patch_notes(run: RunReport, code: Any = str) -> list[str]:
    """summary.md lines about the patch (empty when there is nothing to say). ``code`` renders
    a file name (the summary's own escaping)."""
    facts = run_patch_facts(run)
    lines = []
    if facts["patch_redacted"]:
        files = [p for f in _facts(run) for p in f.get("redacted_files") or []]
        names = ", ".join(code(p) for p in files)
        lines.append(f"- **patch_redacted: true**: secrets were masked as `***` in added lines "
                     f"of {names}; the patch applies, but those lines differ from the "
                     "agent's files.")  # fmt: skip
    if facts["patch_incomplete"]:
        names = ", ".join(f"{code(o['path'])} ({o['bytes']} bytes)" for o in facts["patch_omitted"])
        lines.append(f"- **patch.diff is incomplete**: too large to inline, not in it: {names}.")
    if facts["patch_base"]:
        lines.append(f"- The patch applies to {facts['patch_base']} (isolation: worktree).")
    written = [p for p in facts["ignored_files_written"] if not is_cache(p)]
    if written:
        names = ", ".join(code(p) for p in written[:10]) + (" …" if len(written) > 10 else "")
        lines.append(f"- {len(written)} file(s) written that .gitignore ignores (not in the "
                     f"patch): {names}.")  # fmt: skip
    deleted = [p for p in facts["ignored_files_deleted"] if not is_cache(p)]
    if deleted:
        names = ", ".join(code(p) for p in deleted[:10]) + (" …" if len(deleted) > 10 else "")
        lines.append(f"- {len(deleted)} file(s) that .gitignore ignores were deleted (not in the "
                     f"patch, not restored): {names}.")  # fmt: skip
    damaged = [r for f in _facts(run) for r in f.get("nested_repositories_damaged") or []]
    if damaged:
        names = ", ".join(code(r) for r in dict.fromkeys(damaged))
        lines.append(f"- **git repositories inside the workspace removed or damaged during the "
                     f"run** (their .git deleted, or their checked-out commit pruned): {names}; "
                     "patch.diff holds their files, never their commits.")  # fmt: skip
    return ["### Patch", "", *lines, ""] if lines else []
