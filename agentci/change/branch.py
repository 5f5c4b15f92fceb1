"""``outputs.branch``: a successful task's patch as a commit on a local branch, and how a rerun
finds that it was already proposed.

The commit is made without touching the user's working tree, index or checked-out branch: the
patch is applied to the base commit's tree in a temporary index (``git apply --cached``,
through agentci's own git, :mod:`agentci.gitenv`), GitPython writes the commit object, and
``git update-ref`` moves the branch, only from the tip it checked (:meth:`Repo.movable`) and
never while a worktree has it checked out (:meth:`Repo.not_checked_out`). Its
message is the recipe's ``commit_message`` (a template), the task's summary as the body, and
three trailers::

    Agentci-Patch-Hash: <git patch-id --stable of the patch>
    Agentci-Task: <recipe>/<task>
    Agentci-Base: <the commit the patch applies to>

A patch's hash is git's own content hash of a change (``git patch-id --stable``): the same
edits give the same hash whatever their line numbers, so a change proposed yesterday is
recognised today even if unrelated commits moved it.

**Already proposed** — a branch (``refs/heads/*`` or ``refs/remotes/*``) carries a commit:

* with the same ``Agentci-Patch-Hash`` (checked once the task has its patch, before
  committing), or
* with the same ``Agentci-Task`` and ``Agentci-Base`` (``--skip-if-proposed``, before the task
  runs: the patch is not known yet, so the question is "was this task already proposed from
  this very commit?").

A branch is moved only when its tip is the very commit agentci made there for the same task
(the branch's reflog ends with agentci's own update): a commit the user amended, even keeping the
trailers, and another task's proposal are never overwritten; nor is a branch checked out in
any worktree of the repository (moving it would change that checkout's HEAD under its index).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agentci.change.repo_dirs import objects_dir
from agentci.change.snapshot import find_repo_dirs
from agentci.gitenv import git_argv, git_env, run_git
from agentci.tempdirs import worktrees_locked

HASH_TRAILER = "Agentci-Patch-Hash"
TASK_TRAILER = "Agentci-Task"
BASE_TRAILER = "Agentci-Base"
REFLOG = "agentci: proposal of "  # the reflog message of agentci's branch updates
_SCAN = 2000  # commits looked at on all branches (newest first)


class BranchError(Exception):
    """The branch could not be made (the message says why)."""


@dataclass
class Proposal:
    """An agentci commit found on a branch."""

    commit: str
    ref: str
    patch_hash: str
    task: str
    base: str


@dataclass
class Repo:
    """The user's repository: its top-level folder and git dir."""

    top: Path
    git_dir: Path

    @classmethod
    def find(cls, path: Path) -> Repo | None:
        """The repository containing ``path``, or None."""
        found = find_repo_dirs(Path(path).resolve())
        return cls(*found) if found else None

    def git(self, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> str:
        """Run agentci's git in the repository; BranchError when it fails."""
        if stdin is None and env is None:
            done = run_git(list(args), cwd=self.top, repo=self.git_dir)
        else:
            done = subprocess.run(
                git_argv(list(args)),
                cwd=self.top,
                env=git_env(
                    {"GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": str(self.top), **(env or {})},
                    repo=self.git_dir,
                ),
                input=stdin or b"",
                capture_output=True,
                check=False,
            )
        if done.returncode != 0:
            err = done.stderr.decode(errors="replace").strip()
            raise BranchError(f"git {args[0]} failed: {err}")
        return done.stdout.decode(errors="replace")

    def head(self) -> str:
        """The full id of HEAD ("" when there is no commit)."""
        try:
            return self.git("rev-parse", "--verify", "-q", "HEAD^{commit}").strip()
        except BranchError:
            return ""

    def patch_hash(self, patch: str) -> str:
        """``git patch-id --stable`` of ``patch``."""
        out = self.git("patch-id", "--stable", stdin=patch.encode("utf-8", "surrogateescape"))
        return out.split()[0] if out.strip() else ""

    def proposals(self) -> list[Proposal]:
        """agentci's commits on every local and remote-tracking branch, newest first."""
        sep, end = "\x1f", "\x1e"
        fields = [f"%(trailers:key={k},valueonly,separator=%x2C)" for k in (HASH_TRAILER, TASK_TRAILER, BASE_TRAILER)]  # fmt: skip
        fmt = sep.join(["%H", "%D", *fields]) + end
        try:
            out = self.git(
                "log", "--branches", "--remotes", f"--max-count={_SCAN}", "--decorate=full",
                f"--grep=^{HASH_TRAILER}: ", f"--format={fmt}",
            )  # fmt: skip
        except BranchError:
            return []  # no branch at all yet
        found = []
        for record in out.split(end):
            parts = record.strip("\n").split(sep)
            if len(parts) != 5 or not parts[2].strip():
                continue
            commit, refs, patch_hash, task, base = (p.strip() for p in parts)
            found.append(Proposal(commit, refs, patch_hash, task, base))
        return found

    def find_by_hash(self, patch_hash: str) -> Proposal | None:
        """A branch commit whose patch has this hash."""
        return next((p for p in self.proposals() if p.patch_hash == patch_hash), None)

    def find_by_task(self, task: str, base: str) -> Proposal | None:
        """A branch commit of this task made from this base commit."""
        return next((p for p in self.proposals() if p.task == task and p.base == base), None)

    def commit_patch(
        self, branch: str, base: str, patch: str, message: str, *, task: str, directory: str = ""
    ) -> str:
        """Commit ``patch`` on top of ``base`` as branch ``branch`` for ``task``; return the
        commit id. ``directory``: the workspace's folder inside the repository (the patch's
        paths are relative to it). BranchError when the branch is not agentci's to move (see
        :meth:`movable`) or git cannot make it."""
        # deferred: gitpython takes ~0.1 s to import; only this git step needs it
        import git

        self.git("check-ref-format", "--branch", branch)
        ref = f"refs/heads/{branch}"
        current = self.tip(ref)
        if current:
            self.movable(branch, current, task)
        self.not_checked_out(branch)  # also an unborn branch (``git checkout --orphan``)
        with tempfile.TemporaryDirectory(prefix="agentci-branch-") as tmp:
            env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
            self.git("read-tree", base, env=env)
            args = ["apply", "--cached", "--binary", "--whitespace=nowarn"]
            if directory:
                args.append(f"--directory={directory}")
            self.git(*args, "-", stdin=patch.encode("utf-8", "surrogateescape"), env=env)
            tree = self.git("write-tree", env=env).strip()
        actor = git.Actor(
            os.environ.get("GIT_AUTHOR_NAME") or "agentci",
            os.environ.get("GIT_AUTHOR_EMAIL") or "agentci@localhost",
        )
        try:
            repo = git.Repo(self.top)
            try:
                commit = git.Commit.create_from_tree(
                    repo, repo.tree(tree), message, parent_commits=[repo.commit(base)],
                    head=False, author=actor, committer=actor,
                ).hexsha  # fmt: skip
            finally:
                repo.close()
        except (OSError, ValueError, git.GitError) as err:
            raise BranchError(f"the commit for branch {branch} could not be made: {err}") from err
        try:  # moved only from the tip checked above (or created only if it still does not exist)
            self.git("update-ref", "--create-reflog", "-m", f"{REFLOG}{task}", ref, commit,
                     current or "0" * 40)  # fmt: skip
        except BranchError as err:
            raise BranchError(f"branch {branch} could not be created or moved: {err}") from None
        return commit

    def tip(self, ref: str) -> str:
        """The commit ``ref`` points at ("" when it does not exist)."""
        try:
            return self.git("rev-parse", "--verify", "-q", f"{ref}^{{commit}}").strip()
        except BranchError:
            return ""

    def not_checked_out(self, branch: str) -> None:
        """BranchError when ``branch`` is checked out in any worktree of the repository:
        moving it would move that worktree's HEAD under its index and files (``git branch -f``
        refuses it for the same reason). The list is read under the repository's worktree lock
        (:func:`~agentci.tempdirs.worktrees_locked`)."""
        ref = f"refs/heads/{branch}"
        # under the repository's worktree lock: git reads every worktree's entry, and fails
        # ("failed to read .git/worktrees/NAME/commondir") when a batch's other task or another
        # agentci run unregisters its worktree meanwhile
        with worktrees_locked(objects_dir(self.git_dir).parent):
            listed = self.git("worktree", "list", "--porcelain")
        for line in listed.splitlines():
            if line == f"branch {ref}":
                raise BranchError(
                    f"branch {branch} is checked out in a worktree of the repository: it is "
                    "left alone (moving it would change that checkout's HEAD); switch to another "
                    "branch or delete it to let agentci propose again"
                )

    def movable(self, branch: str, tip: str, task: str) -> None:
        """BranchError unless the branch's tip is the very commit agentci made there for
        ``task``: the branch's reflog must end with agentci's own update to ``tip``. A commit
        the user amended (even keeping agentci's trailers), a branch reset, or a branch made
        from a remote one is left alone; so is another task's proposal."""
        fields = (
            f"%(trailers:key={HASH_TRAILER},valueonly)%x1f%(trailers:key={TASK_TRAILER},valueonly)"
        )
        hash_, _, owner = self.git("log", "-1", f"--format={fields}", tip).partition("\x1f")
        if not hash_.strip():
            raise BranchError(
                f"branch {branch} exists and was not made by agentci: it is left alone"
            )
        if owner.strip() != task:
            raise BranchError(
                f"branch {branch} holds the proposal of {owner.strip()} ({tip[:12]}): it is "
                f"left alone; give each task its own branch ({{{{ task }}}} in outputs.branch.name)"
            )
        try:
            last = self.git("log", "-g", "-1", "--format=%H%x1f%gs", f"refs/heads/{branch}")
        except BranchError:
            last = ""
        commit, _, subject = last.strip().partition("\x1f")
        if commit != tip or subject != f"{REFLOG}{task}":
            raise BranchError(
                f"branch {branch} ends in a commit agentci did not make ({tip[:12]}, changed "
                "since agentci proposed it): it is left alone; delete the branch to let agentci "
                "propose again"
            )


def commit_message(subject: str, body: str, *, patch_hash: str, task: str, base: str) -> str:
    """The commit message: subject, body (the task's summary), the trailers."""
    parts = [subject.strip() or f"agentci: {task}"]
    if body.strip():
        parts.append(body.strip())
    parts.append(f"{HASH_TRAILER}: {patch_hash}\n{TASK_TRAILER}: {task}\n{BASE_TRAILER}: {base}")
    return "\n\n".join(parts) + "\n"
