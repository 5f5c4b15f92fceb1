"""The baseline: the first snapshot of a workspace and the private git dir that keeps it.

Snapshots are described in :mod:`agentci.change.snapshot`; this module holds their data.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agentci.change.privgit import PrivateGit

DEFAULT_EXCLUDE = (".agentci",)
#: Private git dirs that :meth:`Baseline.cleanup` leaves alone: the run deletes them itself once
#: its outputs are written (agentci/run/start_baseline.py).
pinned: set[Path] = set()
#: Tools' caches: never the agent's change, even where .gitignore does not list them (the private
#: git dir ignores them, as if .git/info/exclude did).
CACHE_PATTERNS = (
    "__pycache__/",
    "*.py[co]",
    ".pytest_cache/",
    ".ruff_cache/",
    ".mypy_cache/",
    ".hypothesis/",
)
#: Ignored files fingerprinted per snapshot, at most (``AGENTCI_IGNORED_SCAN_LIMIT`` overrides it):
#: twice a big ``node_modules/`` (200,000-500,000 files). One ``lstat`` and about 360 bytes of
#: Python memory a file at the baseline (bench/README.md, "Big ignored trees").
MAX_IGNORED_SCAN = 1_000_000
Entry = tuple[str, str] | None  # (mode, object id) of a path in a tree, None when absent
#: An ignored file's fingerprint: (size, mtime_ns, inode, mode, ctime_ns). Any write to the file
#: through the file system sets its ctime to the clock's time, and no process can set a ctime
#: back (``utime`` sets the mtime, and the ctime to now): a content change with the size and the
#: mtime put back still shows.
Fingerprint = tuple[int, int, int, int, int]


@dataclass
class Submodule:
    """A checked-out submodule of the user's repository (paths relative to the work tree)."""

    path: str
    index: Path
    head: str | None = None  # the commit it had checked out at the baseline


@dataclass
class Snapshot:
    """One snapshot: the tree (submodule contents inline) and what it could not store."""

    tree: str
    raw: str  # the private index's own tree (submodules as gitlinks)
    ignored: dict[str, Fingerprint] = field(default_factory=dict)
    nested: list[str] = field(default_factory=list)  # work-tree paths
    unreadable: list[str] = field(default_factory=list)
    scan_truncated: bool = False
    repos: list[str] = field(default_factory=list)  # folders holding a .git (work-tree paths)


@dataclass
class Baseline:
    """The first snapshot of a workspace and the private git dir that keeps it."""

    workspace: Path  # the folder the agent works in (resolved)
    work_tree: Path  # the git work tree the snapshot covers (repo top-level, or the workspace)
    prefix: str  # the workspace relative to work_tree, "" or "sub/dir"
    git_dir: Path  # the private, temporary git dir
    tree: str = ""  # the baseline tree id
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    repo_root: Path | None = None  # the user's repository, when there is one
    raw: str = ""
    submodules: list[Submodule] = field(default_factory=list)
    ignored_ref: dict[str, Fingerprint] = field(default_factory=dict)
    #: the ignored files at the baseline (after setup and the baseline verify): what verify's
    #: later writes to ignored files never join, unlike ignored_ref
    ignored_start: dict[str, Fingerprint] = field(default_factory=dict)
    overlay: dict[str, tuple[Entry, Entry]] = field(default_factory=dict)  # verify's writes
    rules_dir: Path | None = None
    unreadable_at_start: list[str] = field(default_factory=list)
    nested_at_start: list[str] = field(default_factory=list)  # repositories never adopted
    kept: dict[str, int] = field(default_factory=dict)  # ignored files kept (rel → mode)
    kept_at: dict[str, tuple[int, int]] = field(default_factory=dict)  # rel → (offset, length)
    deadline: float | None = None  # time.monotonic() by which each git call must end
    ignored_truncated: bool = False  # the baseline's ignored scan was cut short
    head: str = ""  # the tree the private HEAD commit holds (agentci.change.walk.set_head)
    #: a snapshot stopped (a git failure, its deadline) after writing the private index and
    #: before its tree became ``head``: the next one writes the tree, whatever its walk says
    index_ahead: bool = False
    rules_changed: bool = False  # a .gitignore changed since the baseline: rules are frozen
    #: Raises when a git call runs long because of what the work tree holds (PrivateGit.on_stall)
    watch: Callable[[], object] | None = None

    @property
    def git(self) -> PrivateGit:
        """The private git dir."""
        return PrivateGit(
            self.git_dir, self.work_tree, self.git_dir / "index", self.deadline, self.watch
        )

    @property
    def pathspecs(self) -> list[str]:
        """The workspace minus the excluded folders, as git pathspecs."""
        pre = self.prefix + "/" if self.prefix else ""
        specs = [self.prefix or "."]
        specs += [f":(exclude,top){pre}{ex.strip('/')}" for ex in self.exclude if ex.strip("/")]
        return specs

    def snapshot(self) -> Snapshot:
        """The baseline as a :class:`Snapshot` (what one taken before any change would hold)."""
        return Snapshot(tree=self.tree, raw=self.raw, ignored=dict(self.ignored_ref),
                        nested=list(self.nested_at_start),
                        unreadable=list(self.unreadable_at_start),
                        scan_truncated=self.ignored_truncated)  # fmt: skip

    def rel(self, path: str) -> str | None:
        """A work-tree path relative to the workspace (None when outside it)."""
        if not self.prefix:
            return path
        head = self.prefix + "/"
        return path[len(head) :] if path.startswith(head) else None

    def cleanup(self) -> None:
        """Delete the private git dir, unless it is :data:`pinned`."""
        if self.git_dir not in pinned:
            shutil.rmtree(self.git_dir, ignore_errors=True)

    def __enter__(self) -> Baseline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()
