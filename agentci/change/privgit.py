"""agentci's private git dir: where every snapshot of a workspace is stored.

A :class:`PrivateGit` is a throw-away bare-ish git dir in a temp folder whose work tree is the
user's work tree. Its index and objects are agentci's own; the user's ``.git`` is only read
(its objects through ``objects/info/alternates``, its index copied once for the stat cache).
Every call goes through :mod:`agentci.gitenv` (no system/global config, no hooks, no fsmonitor)
and the private ``info/attributes`` (highest precedence) overrides what the work tree's
``.gitattributes`` could do to stored bytes, diffs and line counts.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentci.errors import InvalidInput
from agentci.gitenv import git_argv, git_env, run_git
from agentci.workspace_io import writes

# Store bytes as they are (no filter, no EOL conversion) and let git decide text vs binary
# from the content: ``!diff`` undoes a ``-diff``/``binary`` the agent may write, which would
# turn a text change into an opaque binary blob (and one "line" for max_changed_lines).
ATTRIBUTES = "* -text -filter -ident -eol -working-tree-encoding !diff !merge\n"

GITLINK = "160000"

#: Seconds one private git call may take when the task set no deadline: a snapshot never waits
#: for ever, whatever the workspace holds.
DEFAULT_TIMEOUT = 600.0
#: Seconds a call gets at least, even once the deadline has passed.
MIN_TIMEOUT = 1.0
#: Seconds a call runs before :attr:`PrivateGit.on_stall` looks at why, then between looks.
STALL_FIRST = 1.0
STALL_AGAIN = 2.0


class GitFailed(RuntimeError):
    """A private git call failed (the message has git's own words)."""


class GitTimedOut(GitFailed):
    """A private git call ran past its deadline and was killed (with every process it started)."""


@dataclass
class PrivateGit:
    """One private git dir (``git_dir``) over a work tree, with a default index."""

    git_dir: Path
    work_tree: Path
    index: Path
    deadline: float | None = None  # time.monotonic() by which every call must be done
    #: Called when a call runs past :data:`STALL_FIRST` seconds (then every
    #: :data:`STALL_AGAIN`): it raises to stop the call (git is killed first), e.g. when the
    #: work tree holds a named pipe git would wait on for ever. A fast call never pays for it.
    on_stall: Callable[[], object] | None = None

    def time_left(self) -> float:
        """Seconds the next call may take (:data:`DEFAULT_TIMEOUT` without a deadline)."""
        if self.deadline is None:
            return DEFAULT_TIMEOUT
        return max(self.deadline - time.monotonic(), MIN_TIMEOUT)

    def env(self, index: Path | None = None, work_tree: Path | None = None) -> dict[str, str]:
        """The ``GIT_*`` variables of a call (another index or work tree when given)."""
        return {
            "GIT_DIR": str(self.git_dir),
            "GIT_WORK_TREE": str(work_tree or self.work_tree),
            "GIT_INDEX_FILE": str(index or self.index),
        }

    def run(
        self,
        args: list[str],
        *,
        index: Path | None = None,
        work_tree: Path | None = None,
        ok: tuple[int, ...] = (0,),
        literal: bool = False,
        stdin: bytes | None = None,
        env: dict[str, str] | None = None,
    ) -> tuple[bytes, bytes]:
        """Run git (``stdin`` as its input, ``env`` added to its environment); returns
        (stdout, stderr). Raises :class:`GitFailed` for another exit code or a ``fatal:``
        line, :class:`GitTimedOut` when it runs past :meth:`time_left` (git and what it
        started are killed, as a process group), whatever :attr:`on_stall` raises, and
        :class:`InvalidInput` when git is missing."""
        extra = {**self.env(index, work_tree), **(env or {})}
        if literal:
            extra["GIT_LITERAL_PATHSPECS"] = "1"
        timeout = self.time_left()
        try:
            proc = subprocess.Popen(
                git_argv(args),
                cwd=work_tree or self.work_tree,
                env=git_env(extra),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise cannot_start(exc, work_tree or self.work_tree) from exc
        try:
            out, err_bytes = self._wait(proc, stdin if stdin is not None else b"", timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            raise GitTimedOut(
                f"git {' '.join(args[:2])} did not finish in {timeout:.0f} s and was stopped"
            ) from None
        except BaseException:
            _kill_group(proc)
            raise
        if proc.returncode not in ok or b"fatal:" in err_bytes:
            err = err_bytes.decode("utf-8", "replace").strip()
            raise GitFailed(f"git {' '.join(args[:2])} failed ({proc.returncode}): {err}")
        return out, err_bytes

    def _wait(
        self, proc: subprocess.Popen[bytes], stdin: bytes | None, timeout: float
    ) -> tuple[bytes, bytes]:
        """``proc.communicate`` within ``timeout`` seconds, calling :attr:`on_stall` while
        it runs long."""
        if self.on_stall is None:
            return proc.communicate(stdin, timeout)
        end = time.monotonic() + timeout
        step, data = STALL_FIRST, stdin
        while True:
            try:
                return proc.communicate(data, max(min(step, end - time.monotonic()), 0.01))
            except subprocess.TimeoutExpired:
                if time.monotonic() >= end:
                    raise
                self.on_stall()
                # the input went with the first call; a second one may not send it again
                step, data = STALL_AGAIN, None

    def out(self, args: list[str], **kw: object) -> bytes:
        """stdout of :meth:`run`."""
        return self.run(args, **kw)[0]  # type: ignore[arg-type]

    def restore(self, source: str, path: str) -> None:
        """Write ``path`` (a repository path, literal) in the work tree as it is in the tree
        ``source``; counted as agentci's own write (:mod:`agentci.workspace_io.writes`)."""
        writes.note(self.work_tree)
        self.run(["restore", f"--source={source}", "--worktree", "--", path], literal=True)

    def write_tree(self, index: Path | None = None) -> str:
        """The tree id of an index."""
        return self.out(["write-tree"], index=index).decode().strip()


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill a git call and every process it started, then reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()


def cannot_start(exc: FileNotFoundError, cwd: Path) -> Exception:
    """Why git could not start: the folder it runs in is gone (:class:`GitFailed`, the run
    cannot go on), or git is missing (:class:`InvalidInput`)."""
    if not Path(cwd).is_dir():
        return GitFailed(f"the folder {cwd} no longer exists (it was deleted during the run)")
    return InvalidInput("git is not installed or not on PATH; agentci needs it")


def create(git_dir: Path, work_tree: Path) -> PrivateGit:
    """Initialise a private git dir in the (empty, existing) folder ``git_dir``."""
    pg = PrivateGit(git_dir=git_dir, work_tree=work_tree, index=git_dir / "index")
    try:
        # no template: the sample hooks and the description are a dozen files nobody reads
        proc = run_git(["init", "-q", "--bare", "--template=", str(git_dir)], cwd=git_dir)
    except FileNotFoundError as exc:
        raise cannot_start(exc, git_dir) from exc
    if proc.returncode != 0:
        raise GitFailed(f"git init failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    # appended, not three `git config` calls: a later value of a key wins over init's
    filemode = "false" if os.name == "nt" else "true"
    with open(git_dir / "config", "a", encoding="utf-8") as config:
        config.write(f"[core]\n\tbare = false\n\tfilemode = {filemode}\n\tquotepath = true\n")
        # the split index (agentci.change.walk): a shared index no index uses is deleted as
        # soon as a new one is written (one private index is split, nothing else shares them)
        config.write("[splitIndex]\n\tsharedIndexExpire = now\n")
    info = git_dir / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text(ATTRIBUTES)
    return pg


def add_alternate(pg: PrivateGit, objects: Path) -> None:
    """Let the private git dir read objects from another object store (read-only)."""
    alt = pg.git_dir / "objects" / "info" / "alternates"
    alt.parent.mkdir(parents=True, exist_ok=True)
    # a path is bytes to git: a folder name that is not UTF-8 is written back as its bytes
    lines = alt.read_bytes().splitlines() if alt.is_file() else []
    if os.fsencode(objects) not in lines and objects.is_dir():
        alt.write_bytes(b"\n".join([*lines, os.fsencode(objects)]) + b"\n")


def copy_index(pg: PrivateGit, src: Path, dest: Path, work_tree: Path | None = None) -> bool:
    """Copy a user's index to ``dest`` in ``pg``'s git dir as a stat cache (never written back);
    False when there is none, or it cannot be read. ``work_tree``: the index's own work tree
    (a submodule's), when it is not ``pg``'s.

    The copy keeps the index's timestamps: git trusts an entry's stat data only when the file
    is older than the index file itself ("racy clean"), so a copy dated now would hide an edit
    of the same size made in the second git last wrote the index.

    A split index (``git update-index --split-index``, ``core.splitIndex``) holds only the
    entries changed since its shared index (``sharedindex.<id>`` beside it), which git must
    find in the private git dir: that file is copied there too, the copy is written whole
    (``git update-index --no-split-index``: git checks the racily clean entries' content as
    it writes them), and the shared copy is deleted. Without it git could not read the index
    at all: the baseline would hash every file, and a submodule's snapshot would fail."""
    if not src.is_file():
        return False
    shutil.copyfile(src, dest)
    shutil.copystat(src, dest)
    shared = shared_index(dest, src.parent)
    if shared is None:
        return True
    copy = pg.git_dir / shared.name
    made = not copy.exists()
    try:
        if made:
            shutil.copyfile(shared, copy)
            shutil.copystat(shared, copy)
        pg.run(["update-index", "--no-split-index"], index=dest, work_tree=work_tree)
    except (GitFailed, OSError):
        dest.unlink(missing_ok=True)
        return False
    finally:
        if made:
            copy.unlink(missing_ok=True)
    return True


def shared_index(index: Path, folder: Path) -> Path | None:
    """The shared index in ``folder`` that the split index ``index`` names, or None (a whole
    index, or its shared index is not there). A split index's ``link`` extension holds the
    shared index's id: each ``sharedindex.<id>`` file of ``folder`` is looked for there."""
    try:
        names = [p for p in folder.iterdir() if p.name.startswith("sharedindex.")]
        if not names:
            return None
        with open(index, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            for path in names:
                try:
                    oid = bytes.fromhex(path.name[len("sharedindex.") :])
                except ValueError:
                    continue
                at = data.find(oid) if len(oid) in (20, 32) else -1
                # the extension: "link", its size (4 bytes), then the id
                if at >= 8 and data[at - 8 : at - 4] == b"link":
                    return path
    except (OSError, ValueError):  # ValueError: an empty index cannot be mapped
        return None
    return None


def split_z(data: bytes) -> list[str]:
    """NUL-separated git output as ``str`` (``surrogateescape`` keeps any byte)."""
    return [p.decode("utf-8", "surrogateescape") for p in data.split(b"\0") if p]


def encode_paths(paths: list[str]) -> bytes:
    """Paths for ``--stdin -z`` / ``--pathspec-file-nul``."""
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)


def raw_records(out: bytes) -> list[tuple[str, str]]:
    """(header, path) pairs of a ``-z --raw`` diff output."""
    parts = split_z(out)
    return [(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
