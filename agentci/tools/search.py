"""Search tools: ``glob`` and ``grep_search`` (docs/tools.md).

Both go through a :class:`~agentci.tools.engine.SearchEngine` (ripgrep, or a Python walk
with RE2 when no ``rg`` works): linear-time matching, ``.gitignore`` respected without
running git, symlinks and special files never followed or opened, agentci's output folder
left out. Hits are capped and the output says so, and says which files were not searched.

Git's own folders are never searched or listed: a ``.git`` at any depth, the git dir a
``.git`` file points to, and every config file that can hold the checkout's credentials
(:func:`agentci.policy.gitconfig.config_files`). read_file masks those credentials, but
whether a pattern matches a line would still tell them, one bit per call.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agentci.errors import ToolFailure
from agentci.policy.access import Access
from agentci.policy.gitconfig import config_files
from agentci.policy.paths import git_dirs, inside, resolve
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult
from agentci.tools.engine import GrepResult, Scope, SearchEngine
from agentci.tools.globs import PathGlob
from agentci.tools.pick_engine import default_engine

MAX_GLOB_HITS = 500
MAX_GREP_HITS = 200
MAX_NAMED = 20


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


def engine_of(ctx: ToolContext) -> SearchEngine:
    """The task's search engine (chosen once, named in ``task_started``)."""
    if ctx.search is not None:
        return ctx.search

    return default_engine()


def scope_for(ctx: ToolContext, dir_path: str | None, glob: str | None) -> Scope | None:
    """The scope of a call: ``dir_path`` (checked), narrowed by ``glob``; None: empty."""
    base = resolve(ctx.workspace, dir_path or ".")
    if not base.real.is_dir():
        raise ToolFailure(f"{dir_path} is not a directory")
    for private in ctx.private_dirs:
        if base.rel == private or base.rel.startswith(private + "/"):
            raise ToolFailure(f"{dir_path} is agentci's output folder; it is not searched")
    git = _git_private(ctx)
    if _in_git(base.rel, git):
        raise ToolFailure(
            f"{dir_path} is inside a git directory; it is not searched (read_file shows its "
            "files, credentials masked)"
        )
    matcher = PathGlob(glob, base.rel) if glob else None
    roots = matcher.roots() if matcher else [base.rel]
    real_roots = tuple(r for r in roots if _plain_dir(ctx, r) and not _in_git(r, git))
    if not real_roots:
        return None
    names = matcher.name_globs() if matcher else None
    return Scope(
        workspace=ctx.workspace,
        roots=real_roots,
        hidden=(*ctx.private_dirs, *git),
        names=tuple(names) if names else None,
        keep=matcher.match if matcher and not matcher.names_suffice() else None,
    )


def _git_private(ctx: ToolContext) -> tuple[str, ...]:
    """Workspace-relative git dirs and credential-bearing config files inside the workspace
    (a ``.git`` file can point to a folder of the workspace; an include to any file)."""
    root = Path(os.path.realpath(ctx.workspace))
    found = [*git_dirs(root), *config_files(root)]
    return tuple(
        sorted({p.relative_to(root).as_posix() for p in found if p != root and inside(root, p)})
    )


def _in_git(rel: str, git: tuple[str, ...]) -> bool:
    """Whether workspace-relative ``rel`` is in a ``.git`` (any depth) or one of ``git``."""
    if any(part.lower() == ".git" for part in rel.split("/")):
        return True
    return any(rel == g or rel.startswith(g + "/") for g in git)


def _plain_dir(ctx: ToolContext, rel: str) -> bool:
    """``rel`` is a directory inside the workspace reached without a symlink."""
    try:
        found = resolve(ctx.workspace, rel)
    except ToolFailure:
        return False
    return found.rel == rel and found.real.is_dir()


class Glob(Tool):
    """Find files by name."""

    name = "glob"
    kind = ToolKind.read
    description = (
        "Find files whose path matches a glob pattern (e.g. `**/*.py`, `src/**/test_*.py`, "
        "`*.{ts,tsx}`; .gitignore rules). A pattern without `/` matches file names at any "
        "depth. Files ignored by .gitignore, git's own folders (`.git`), symbolic links, "
        "special files and agentci's output folder are left out. Returns workspace-relative paths, sorted."
    )

    class Args(_Args):
        pattern: str = Field(description="Glob pattern, e.g. `**/*.ts`.")
        dir_path: str | None = Field(default=None, description="Directory to search in.")

    def accesses(self, args: Args) -> list[Access]:  # type: ignore[override]
        return [Access("read", args.dir_path or ".")]

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        scope = scope_for(ctx, args.dir_path, args.pattern)
        hits = await engine_of(ctx).files(scope) if scope else []
        if not hits:
            return ToolResult(output=f"No files match {args.pattern!r}.")
        out = "\n".join(hits[:MAX_GLOB_HITS])
        if len(hits) > MAX_GLOB_HITS:
            out += f"\n[truncated: {len(hits) - MAX_GLOB_HITS} more files; narrow the pattern]"
        return ToolResult(output=out)


class GrepSearch(Tool):
    """Search file contents."""

    name = "grep_search"
    kind = ToolKind.read
    description = (
        "Search file contents with a regular expression (ripgrep / RE2 syntax: no "
        "lookaround, no backreferences). Returns `path:line: text` for each matching line, "
        "sorted by path. Files ignored by .gitignore, git's own folders (`.git`), "
        "symbolic links, FIFOs, sockets, devices and agentci's output folder are not searched; binary files that match "
        "are named, not shown, and files that could not be searched are named."
    )

    class Args(_Args):
        pattern: str = Field(description="Regular expression to search for.")
        dir_path: str | None = Field(default=None, description="Directory to search in.")
        include_pattern: str | None = Field(
            default=None, description="Only search files matching this glob, e.g. `*.py`."
        )

    def accesses(self, args: Args) -> list[Access]:  # type: ignore[override]
        return [Access("read", args.dir_path or ".")]

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        scope = scope_for(ctx, args.dir_path, args.include_pattern)
        engine = engine_of(ctx)
        found = await engine.grep(scope, args.pattern, MAX_GREP_HITS) if scope else GrepResult()
        return ToolResult(output=format_grep(args.pattern, found))


def format_grep(pattern: str, found: GrepResult) -> str:
    """The model's view of a search: hits, then what was cut, binary and not searched."""
    lines = [f"{p}:{n}: {t}" for p, n, t in found.hits[:MAX_GREP_HITS]]
    if not lines:
        lines.append(f"No matches for {pattern!r}.")
    more = max(0, len(found.hits) - MAX_GREP_HITS) + found.more
    if more:
        lines.append(f"[truncated: {more} more matches; narrow the pattern or directory]")
    if found.binary:
        lines.append(f"[binary files that match, not shown: {_named(found.binary)}]")
    if found.skipped:
        lines.append(f"[not searched: {_named(found.skipped)}]")
    return "\n".join(lines)


def _named(items: list[str]) -> str:
    shown = ", ".join(sorted(items)[:MAX_NAMED])
    return shown + (f" and {len(items) - MAX_NAMED} more" if len(items) > MAX_NAMED else "")
