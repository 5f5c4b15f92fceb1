"""Workspace containment and protected paths.

Every path the agent names is resolved to its real path (symlinks followed) and must stay
inside the workspace, checked with :meth:`Path.relative_to` (never a string prefix, so
``/ws-other`` is not inside ``/ws``). Names with NUL bytes, names that are not UTF-8 and
over-long names are refused before they reach the file system.

Protected paths are never writable by the agent, in any mode: ``**/.git/**`` (and the real
git directory when ``.git`` is a file pointing elsewhere), ``.agentci/**``, the recipe file
and ``.github/workflows/**`` (the last one only where a rule allows it), and agentci's own
installation where it lies inside the workspace (a ``.venv``: :mod:`agentci.policy.runtime`). On a file system
that ignores case (macOS, Windows, casefolded folders) the match ignores case too:
``.GIT/config`` is ``.git/config`` there.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentci.errors import ToolFailure
from agentci.policy.runtime import inside_workspace

if TYPE_CHECKING:
    import pathspec

MAX_PATH_CHARS = 4096
MAX_NAME_BYTES = 255

#: Globs (workspace-relative, gitignore-style) protected in every mode: a ``.git`` folder or
#: file at any depth (a nested repository or a gitfile is one git would discover and obey).
ALWAYS_PROTECTED: tuple[str, ...] = ("**/.git", "**/.git/**", ".agentci", ".agentci/**")
#: Protected unless an allow rule with a matching ``path`` says otherwise.
WORKFLOWS = ".github/workflows/**"


@dataclass(frozen=True)
class Resolved:
    """A path inside the workspace: ``real`` (absolute, symlinks resolved) and ``rel``."""

    real: Path
    rel: str


def check_name(path: str) -> None:
    """Refuse names no honest tool call needs: NUL, not UTF-8, over-long."""
    if not isinstance(path, str) or not path:
        raise ToolFailure("path is empty")
    if "\x00" in path:
        raise ToolFailure("path contains a NUL byte")
    try:
        encoded = path.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolFailure("path is not valid UTF-8") from None
    if len(encoded) > MAX_PATH_CHARS:
        raise ToolFailure("path is too long")
    if any(len(part) > MAX_NAME_BYTES for part in encoded.split(b"/")):
        raise ToolFailure("a path component is too long")


def resolve(workspace: Path, path: str, *, base: Path | None = None) -> Resolved:
    """Resolve ``path`` (relative to ``base`` or the workspace) and check it stays inside.

    Raises :class:`ToolFailure` when the real path is outside the workspace.
    """
    check_name(path)
    root = Path(os.path.realpath(workspace))
    start = base if base is not None else root
    candidate = Path(path) if os.path.isabs(path) else start / path
    real = Path(os.path.realpath(candidate))
    try:
        rel = real.relative_to(root)
    except ValueError:
        raise ToolFailure(f"path {path!r} is outside the workspace") from None
    return Resolved(real=real, rel=rel.as_posix() if str(rel) != "." else ".")


def inside(workspace: Path, real: Path) -> bool:
    """Whether an already-real path is the workspace or below it."""
    try:
        real.relative_to(Path(os.path.realpath(workspace)))
    except ValueError:
        return False
    return True


def verify_fd(workspace: Path, fd: int) -> os.stat_result:
    """Check an open descriptor still points inside the workspace (catches races).

    Uses ``/proc/self/fd`` where it exists, and refuses hard-linked regular files (a hard
    link can make a file outside the workspace look like one inside it).
    """
    st = os.fstat(fd)
    link = f"/proc/self/fd/{fd}"
    if os.path.exists(link) and not inside(workspace, Path(os.readlink(link))):
        raise ToolFailure("the file moved outside the workspace while being opened")
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        raise ToolFailure("refusing a hard-linked file (it may be a file outside the workspace)")
    return st


def git_dirs(workspace: Path) -> list[Path]:
    """The real git directory of the workspace: ``.git``, or where a ``.git`` file points."""
    dot_git = Path(workspace) / ".git"
    dirs: list[Path] = []
    if dot_git.is_file() and not dot_git.is_symlink():
        text = dot_git.read_text(errors="replace").strip()
        if text.startswith("gitdir:"):
            target = Path(text[len("gitdir:") :].strip())
            if not target.is_absolute():
                target = Path(workspace) / target
            dirs.append(Path(os.path.realpath(target)))
            common = target / "commondir"
            if common.is_file():
                c = Path(common.read_text().strip())
                dirs.append(Path(os.path.realpath(c if c.is_absolute() else target / c)))
    elif dot_git.exists():
        dirs.append(Path(os.path.realpath(dot_git)))
    return dirs


def anchored(globs: Iterable[str]) -> pathspec.PathSpec:
    """A gitignore-style matcher for workspace-relative globs (leading ``/`` implied)."""
    # the pre-commit hook's clean path builds a sandbox with this module and matches nothing:
    # deferred: pathspec loads with the first matcher, not with every sandbox
    import pathspec

    lines = []
    for g in globs:
        g = g.strip()
        if not g:
            continue
        lines.append(g if g.startswith(("/", "**")) else "/" + g)
    return pathspec.PathSpec.from_lines("gitignore", lines)


def case_insensitive(folder: Path) -> bool:
    """Whether the file system holding ``folder`` ignores case in names (probed, no writes)."""
    p = Path(os.path.realpath(folder))
    for part in (p, *p.parents):
        name = part.name
        if name.lower() != name.upper():
            other = part.with_name(name.swapcase())
            try:
                return os.path.samefile(part, other)
            except OSError:
                return False
    return False


class Protected:
    """Knows which real paths the agent may never write.

    ``rel`` globs apply to workspace-relative paths; ``reals`` are absolute real paths
    (the git directory, the recipe file) protected wherever they are.
    """

    def __init__(
        self, workspace: Path, *, recipe_path: Path | None = None, workflows: bool = True
    ) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.protect_workflows = workflows
        self.reals: list[Path] = git_dirs(self.workspace)
        self.fold = case_insensitive(self.workspace)
        if recipe_path is not None:
            self.reals.append(Path(os.path.realpath(recipe_path)))
        #: agentci's own installation where it lies inside the workspace (policy/runtime.py)
        self.runtime = inside_workspace(self.workspace)

    @functools.cached_property
    def spec(self) -> pathspec.PathSpec:
        """The always-protected globs (``.git``, ``.agentci`` …) as one matcher."""
        return anchored(ALWAYS_PROTECTED)

    @functools.cached_property
    def workflows(self) -> pathspec.PathSpec:
        """The workflow files' globs as one matcher."""
        return anchored([WORKFLOWS, ".github/workflows"])

    def why(self, real: Path, rel: str | None = None, *, workflows_allowed: bool = False) -> str:
        """The protected path ``real`` falls under, or ``""`` when it may be written."""
        for p in self.runtime:
            if real == p or is_below(real, p) or (self.fold and _below_folded(real, p)):
                return _show(p, self.workspace)
        for p in self.reals:
            if real == p or is_below(real, p) or (self.fold and _below_folded(real, p)):
                return _show(p, self.workspace)
        if rel is None:
            try:
                rel = real.relative_to(self.workspace).as_posix()
            except ValueError:
                return ""
        if self.fold:
            rel = rel.lower()
        if self.spec.match_file(rel):
            parts = rel.split("/")
            hit = next((i for i, part in enumerate(parts) if part in (".git", ".agentci")), 0)
            return "/".join(parts[: hit + 1]) + "/"
        if self.protect_workflows and not workflows_allowed and self.workflows.match_file(rel):
            return ".github/workflows/"
        return ""

    def explain(self, why: str) -> str:
        """Why the path :meth:`why` named is protected, for the model (``""`` for the usual ones)."""
        if any(why == _show(p, self.workspace) for p in self.runtime):
            return "; it is agentci's own installation, which the host runs"
        return ""

    def sandbox_readonly(self, *, workflows_allowed: bool = False) -> list[Path]:
        """Existing protected paths a sandbox should mount read-only."""
        out = [p for p in self.runtime if not any(is_below(p, q) and p != q for q in self.runtime)]
        out += [p for p in self.reals if p.exists() and is_below(p, self.workspace)]
        for name in (".git", ".agentci"):
            p = self.workspace / name
            if p.exists() and p not in out:
                out.append(p)
        wf = self.workspace / ".github" / "workflows"
        if self.protect_workflows and not workflows_allowed and wf.is_dir():
            out.append(wf)
        return out


def is_below(path: Path, parent: Path) -> bool:
    """Whether ``path`` is ``parent`` or inside it (plain path logic, no resolving)."""
    try:
        path.relative_to(parent)
    except ValueError:
        return False
    return True


def _below_folded(path: Path, parent: Path) -> bool:
    return is_below(Path(str(path).lower()), Path(str(parent).lower()))


def _show(path: Path, workspace: Path) -> str:
    """``path`` relative to the workspace when inside it (``.git/``), else absolute."""
    try:
        rel = path.relative_to(workspace).as_posix()
    except ValueError:
        return str(path)
    return rel + ("/" if path.is_dir() else "")
