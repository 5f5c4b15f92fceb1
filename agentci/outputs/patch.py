"""The patch: everything the agent changed, as a ``git diff`` that ``git apply`` reproduces.

How it works (and why it never touches the user's repository):

* :func:`capture_baseline` runs *before* the agent starts. It creates a private, throw-away git
  directory in a temp folder and snapshots the workspace into it: ``git add -A`` into a private
  index, then ``git write-tree``. The snapshot holds the full working-tree state, including
  uncommitted and untracked (non-ignored) files. The user's index, stash, HEAD and refs are
  never touched; not even an object is written into their ``.git``.
* When the workspace is inside a git repository, the private git dir borrows the repository's
  objects read-only (``objects/info/alternates``) and starts from a copy of its index, so
  unchanged files are not re-hashed and ``.gitignore`` / ``.git/info/exclude`` apply as usual.
* When the workspace is *not* a git repository, the same private git dir works on its own. The
  user's folder is not ``git init``-ed; ``.gitignore`` files in it still apply.
* :func:`diff_since` snapshots the workspace again and diffs the two trees with
  ``git diff --binary --full-index --no-renames``. Paths in the patch are relative to the
  workspace folder, so ``git apply`` run in a clean copy of the folder as it was before the agent
  reproduces the agent's change byte for byte (new, deleted, binary, mode changes; renames show as
  delete + add). Files git ignores are not part of the patch.
* ``.agentci/`` (the outputs) and any other ``exclude`` paths are left out of both snapshots.

The patch text is returned as ``str`` decoded with ``surrogateescape``: write it back with
``encoding="utf-8", errors="surrogateescape"`` to get the exact bytes (non-UTF-8 files survive).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import weakref
from dataclasses import dataclass, field
from pathlib import Path

import git

from agentci.errors import InvalidInput

DEFAULT_EXCLUDE = (".agentci",)

# Settings that would change the bytes git stores or prints; forced for every call.
_GIT_CONFIG = (
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.fsmonitor=false",
    "core.quotepath=true",
    "core.hooksPath=/dev/null",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "diff.external=",
    "diff.submodule=short",
    "gc.auto=0",
    "color.ui=false",
)

# Private attributes (highest precedence): store bytes as they are, no filters, no EOL games.
_ATTRIBUTES = "* -text -filter -ident -eol -working-tree-encoding\n"


@dataclass
class Baseline:
    """A snapshot of the workspace taken before the agent started (see the module docstring)."""

    workspace: Path  # the folder the agent works in (resolved)
    work_tree: Path  # the git work tree the snapshot covers (repo top-level, or the workspace)
    prefix: str  # the workspace relative to work_tree, "" or "sub/dir"
    git_dir: Path  # the private, temporary git dir
    tree: str  # the baseline tree id
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    repo_root: Path | None = None  # the user's repository, when there is one
    _finalizer: weakref.finalize | None = field(default=None, repr=False, compare=False)

    def cleanup(self) -> None:
        """Delete the private git dir (also done automatically when the object is collected)."""
        if self._finalizer is not None:
            self._finalizer()

    def __enter__(self) -> Baseline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


def git_env(git_dir: Path, work_tree: Path, index: Path) -> dict[str, str]:
    """The environment for a private git call: no inherited ``GIT_*`` (pre-commit sets some)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_DIR=str(git_dir),
        GIT_WORK_TREE=str(work_tree),
        GIT_INDEX_FILE=str(index),
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        LC_ALL="C",
    )
    return env


def _git(args: list[str], env: dict[str, str], cwd: Path, *, check: bool = True) -> bytes:
    cmd = ["git"]
    for item in _GIT_CONFIG:
        cmd += ["-c", item]
    try:
        proc = subprocess.run(
            cmd + args,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as exc:
        raise InvalidInput("git is not installed or not on PATH; agentci needs it") from exc
    # ``add --ignore-errors`` exits 1 when it skipped unreadable files; only "fatal" is fatal.
    if proc.returncode != 0 and (check or b"fatal:" in proc.stderr):
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"git {' '.join(args[:2])} failed ({proc.returncode}): {err}")
    return proc.stdout


def find_repo(path: Path) -> git.Repo | None:
    """The non-bare git repository containing ``path``, or None."""
    try:
        repo = git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    if repo.bare or repo.working_tree_dir is None:
        return None
    return repo


def _pathspecs(prefix: str, exclude: tuple[str, ...]) -> list[str]:
    base = prefix or "."
    specs = [base]
    for ex in exclude:
        ex = ex.strip("/")
        if ex:
            specs.append(f":(exclude,top){prefix + '/' if prefix else ''}{ex}")
    return specs


def capture_baseline(workspace: Path, *, exclude: tuple[str, ...] = DEFAULT_EXCLUDE) -> Baseline:
    """Snapshot ``workspace`` (tracked, modified and untracked non-ignored files) before the agent.

    ``exclude`` lists folders/files relative to the workspace left out of the patch
    (default: ``.agentci``). Raises :class:`InvalidInput` when the folder does not exist or
    git is missing.
    """
    workspace = Path(workspace)
    if not workspace.is_dir():
        raise InvalidInput(f"workspace {workspace} does not exist or is not a folder")
    workspace = workspace.resolve()
    git_dir = Path(tempfile.mkdtemp(prefix="agentci-baseline-"))
    try:
        repo = find_repo(workspace)
        if repo is not None and workspace != Path(repo.working_tree_dir).resolve():
            rel = workspace.relative_to(Path(repo.working_tree_dir).resolve()).as_posix()
            if repo.ignored(rel + "/"):  # e.g. a workspace under build/: snapshot it on its own
                repo = None
        repo_root = Path(repo.working_tree_dir).resolve() if repo else None
        work_tree = repo_root if repo_root else workspace
        prefix = workspace.relative_to(work_tree).as_posix() if repo_root else ""
        prefix = "" if prefix == "." else prefix
        index = git_dir / "index"
        env = git_env(git_dir, work_tree, index)
        plain = {k: v for k, v in env.items() if k not in ("GIT_DIR", "GIT_WORK_TREE")}
        _git(["init", "-q", "--bare", str(git_dir)], plain, work_tree)
        _git(["config", "core.bare", "false"], env, work_tree)
        _git(["config", "core.filemode", "false" if os.name == "nt" else "true"], env, work_tree)
        info = git_dir / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(_ATTRIBUTES)
        if repo is not None:
            common = Path(repo.common_dir).resolve()
            alt = git_dir / "objects" / "info"
            alt.mkdir(parents=True, exist_ok=True)
            (alt / "alternates").write_text(str(common / "objects") + "\n")
            user_exclude = common / "info" / "exclude"
            if user_exclude.is_file():
                shutil.copyfile(user_exclude, info / "exclude")
            user_index = Path(repo.git_dir) / "index"
            if user_index.is_file():
                shutil.copyfile(user_index, index)
        baseline = Baseline(
            workspace=workspace,
            work_tree=work_tree,
            prefix=prefix,
            git_dir=git_dir,
            tree="",
            exclude=tuple(exclude),
            repo_root=repo_root,
        )
        try:
            baseline.tree = _snapshot(baseline)
        except RuntimeError:
            # The copied index could not be used (split index, newer format): start empty.
            index.unlink(missing_ok=True)
            baseline.tree = _snapshot(baseline)
    except BaseException:
        shutil.rmtree(git_dir, ignore_errors=True)
        raise
    baseline._finalizer = weakref.finalize(baseline, shutil.rmtree, str(git_dir), True)
    return baseline


def _env(b: Baseline) -> dict[str, str]:
    return git_env(b.git_dir, b.work_tree, b.git_dir / "index")


def _snapshot(b: Baseline) -> str:
    """Stage the workspace into the private index and return the tree id."""
    env = _env(b)
    args = ["add", "-A", "--ignore-errors", "--"] + _pathspecs(b.prefix, b.exclude)
    _git(args, env, b.work_tree, check=False)  # unreadable files are skipped, not fatal
    return _git(["write-tree"], env, b.work_tree).decode().strip()


def _diff_args(b: Baseline, current: str) -> list[str]:
    args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames"]
    if b.prefix:
        args.append(f"--relative={b.prefix}")
    return args + [b.tree, current, "--"] + _pathspecs(b.prefix, b.exclude)


def diff_bytes(baseline: Baseline) -> bytes:
    """The patch as exact bytes (see :func:`diff_since`)."""
    current = _snapshot(baseline)
    if current == baseline.tree:
        return b""
    args = _diff_args(baseline, current)
    args[1:1] = ["--binary", "--full-index", "--src-prefix=a/", "--dst-prefix=b/"]
    return _git(args, _env(baseline), baseline.work_tree)


def diff_since(baseline: Baseline) -> str:
    """``git diff --binary --full-index`` from the baseline to the workspace as it is now.

    Empty string when nothing changed. Decoded with ``surrogateescape`` (see module docstring).
    """
    return diff_bytes(baseline).decode("utf-8", "surrogateescape")


def changed_files(baseline: Baseline) -> list[str]:
    """Paths (relative to the workspace, sorted) that differ from the baseline."""
    current = _snapshot(baseline)
    if current == baseline.tree:
        return []
    args = _diff_args(baseline, current)
    args[1:1] = ["--name-only", "-z"]
    out = _git(args, _env(baseline), baseline.work_tree)
    names = [n.decode("utf-8", "surrogateescape") for n in out.split(b"\0") if n]
    return sorted(names)


def changed_lines(baseline: Baseline) -> int:
    """Lines added plus lines deleted since the baseline; each binary file counts as 1."""
    current = _snapshot(baseline)
    if current == baseline.tree:
        return 0
    args = _diff_args(baseline, current)
    args[1:1] = ["--numstat", "-z"]
    out = _git(args, _env(baseline), baseline.work_tree)
    total = 0
    for record in out.split(b"\0"):
        parts = record.split(b"\t")
        if len(parts) < 2:
            continue
        added, deleted = parts[0], parts[1]
        if added == b"-" or deleted == b"-":
            total += 1
        else:
            total += int(added) + int(deleted)
    return total
