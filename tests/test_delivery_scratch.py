"""The delivery commits and pushes from a scratch repository of agentci's own
(:func:`agentci.delivery.pull_request.scratch_repository`): it reads the checkout's objects and
``HEAD`` only, works from a shallow checkout (actions/checkout's default), and leaves the
checkout as it was."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from gh_stub import install_gh_stub
from test_action import _bin_dir

from agentci.delivery.context import GitHubContext
from agentci.delivery.gh import Gh
from agentci.delivery.pull_request import commit_patch, push_branch, scratch_repository

WHO = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
       "GIT_COMMITTER_EMAIL": "a@b"}  # fmt: skip
PATCH = b"""diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
"""


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env={**os.environ, **WHO})  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def gh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Gh]:
    with _bin_dir() as bin_dir:
        install_gh_stub(bin_dir, tmp_path / "gh")
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
        yield Gh("ghs_ScratchTestToken", "owner/repo")


def _server_and_shallow_checkout(tmp_path: Path) -> tuple[Path, Path]:
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    (origin / "README.md").write_text("calc\n")
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "first")
    (origin / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "second")
    server = tmp_path / "server" / "owner" / "repo.git"
    server.parent.mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(origin), str(server))
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{server}", str(checkout))
    return server, checkout


def test_a_shallow_checkouts_change_is_pushed_on_top_of_its_head(tmp_path: Path, gh: Gh) -> None:
    server, checkout = _server_and_shallow_checkout(tmp_path)
    assert (checkout / ".git" / "shallow").is_file()
    head = git(checkout, "rev-parse", "HEAD")
    ctx = GitHubContext("owner/repo", "push", server_url=f"file://{tmp_path / 'server'}")
    with scratch_repository(checkout) as scratch:
        assert scratch.head == head
        commit = commit_patch(scratch, PATCH, "Fix add")
        push_branch(scratch, ctx, gh, commit, "agentci/fix")
    assert git(server, "rev-parse", "agentci/fix^") == head
    assert git(server, "show", "agentci/fix:calc.py") == "def add(a, b):\n    return a + b"
    assert git(server, "log", "-1", "--format=%s", "agentci/fix") == "Fix add"


def test_a_shallow_checkout_pushes_after_the_server_moved_on(tmp_path: Path, gh: Gh) -> None:
    server, checkout = _server_and_shallow_checkout(tmp_path)
    head = git(checkout, "rev-parse", "HEAD")
    later = tmp_path / "later"  # someone pushed to main since the checkout was made
    git(tmp_path, "clone", "-q", str(server), str(later))
    (later / "NEWS.md").write_text("news\n")
    git(later, "add", "-A")
    git(later, "commit", "-qm", "third")
    git(later, "push", "-q", "origin", "main")
    ctx = GitHubContext("owner/repo", "push", server_url=f"file://{tmp_path / 'server'}")
    with scratch_repository(checkout) as scratch:
        push_branch(scratch, ctx, gh, commit_patch(scratch, PATCH, "Fix add"), "agentci/fix")
    assert git(server, "rev-parse", "agentci/fix^") == head
    assert git(server, "fsck", "--no-dangling") == ""


def test_the_checkout_is_left_as_it_was(tmp_path: Path, gh: Gh) -> None:
    server, checkout = _server_and_shallow_checkout(tmp_path)
    before = {p: p.read_bytes() for p in (checkout / ".git").rglob("*") if p.is_file()}
    ctx = GitHubContext("owner/repo", "push", server_url=f"file://{tmp_path / 'server'}")
    with scratch_repository(checkout) as scratch:
        push_branch(scratch, ctx, gh, commit_patch(scratch, PATCH, "Fix add"), "agentci/fix")
        kept = scratch.git_dir
    after = {p: p.read_bytes() for p in (checkout / ".git").rglob("*") if p.is_file()}
    assert after == before  # no object, ref, index or config of the checkout changed
    assert not kept.exists()  # the scratch repository is gone
    assert git(checkout, "status", "--porcelain") == ""
