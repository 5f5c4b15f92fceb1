"""The user's index is the baseline's stat cache, whatever form the user's git wrote it in.

agentci copies the workspace's index into its private git dir once, at the baseline, so the
first snapshot hashes only the files whose stat data changed since the user's last git command
(agentci/change/privgit.py ``copy_index``). A split index (``git update-index --split-index``,
``core.splitIndex=true``) holds only the entries changed since its shared index
(``.git/sharedindex.<id>``): copied without that file, git could not read the copy, so the
baseline started from no index at all (every file hashed again), and a submodule whose index was
split made the baseline fail. The user's config is never read by agentci's git: an index
version 4, an untracked cache, a shared repository or an fsmonitor hook change nothing, and the
hook never runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentci.change.patch import capture_baseline, changed_files
from agentci.change.patch import diff_since as patch_of
from agentci.change.privgit import copy_index, create
from agentci.testing.case import write_call, write_case
from agentci.testing.repo import commit_repo, git

FILES = {"a.txt": "a\n", "b.txt": "b\n", "src/c.py": "c = 1\n", "src/d.py": "d = 1\n"}
#: The agent's edit of a.txt, as every form of the index must give it.
A_PATCH = (
    "diff --git a/a.txt b/a.txt\nindex 78981922613b2afb6025042ff6bd878ac1994e85.."
    "9766475a4185a151dc9d56d614ffb9aaea3bfd42 100644\n"
    "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+ok\n"
)
#: The user's git commands that leave the index in each form (after the initial commit).
FORMS = {
    "plain": [],
    "split-index": [["update-index", "--split-index"]],
    "core.splitIndex": [["config", "core.splitIndex", "true"]],
    "index.version 4": [["config", "index.version", "4"], ["update-index", "--index-version", "4"]],
    "core.untrackedCache": [["config", "core.untrackedCache", "true"], ["status", "-uall"]],
    "core.sharedRepository": [["config", "core.sharedRepository", "group"]],
}


def user_repo(root: Path, form: str) -> Path:
    """A committed repository whose index the user's git left in ``form``, then wrote once
    more: b.txt staged with new content (the index differs from HEAD)."""
    ws = commit_repo(root, FILES)
    for args in FORMS[form]:
        git(ws, *args)
    (ws / "b.txt").write_text("b staged\n")
    git(ws, "add", "b.txt")
    return ws


def index_form(ws: Path) -> list[str]:
    """What the user's index is: split, version 4, with an untracked cache, group-writable."""
    data = (ws / ".git" / "index").read_bytes()
    return [
        *(["split"] if list(ws.glob(".git/sharedindex.*")) else []),
        *(["version 4"] if data[4:8] == b"\0\0\0\4" else []),
        *(["untracked cache"] if b"UNTR" in data else []),
        *(["group-writable"] if (ws / ".git" / "index").stat().st_mode & 0o020 else []),
    ]


def test_each_index_form_is_what_it_says(tmp_path: Path) -> None:
    forms = {f: index_form(user_repo(tmp_path / f, f)) for f in FORMS}
    assert forms == {
        "plain": [],
        "split-index": ["split"],
        "core.splitIndex": ["split"],
        "index.version 4": ["version 4"],
        "core.untrackedCache": ["untracked cache"],
        "core.sharedRepository": ["group-writable"],
    }


@pytest.mark.parametrize("form", list(FORMS))
def test_the_copied_index_holds_the_users_entries(tmp_path: Path, form: str) -> None:
    ws = user_repo(tmp_path / "r", form)
    (tmp_path / "private").mkdir()
    pg = create(tmp_path / "private", ws)

    assert copy_index(pg, ws / ".git" / "index", pg.index)

    assert pg.out(["ls-files", "-s"]).decode() == git(ws, "ls-files", "-s")


@pytest.mark.parametrize("form", list(FORMS))
def test_every_index_form_gives_the_same_patch(tmp_path: Path, form: str) -> None:
    ws = user_repo(tmp_path / "r", form)
    with capture_baseline(ws) as base:
        (ws / "a.txt").write_text("ok\n")
        assert patch_of(base) == A_PATCH


def test_a_submodule_with_a_split_index_gives_the_patch_of_a_plain_one(tmp_path: Path) -> None:
    patches = []
    for form in ("plain", "split"):
        lib = commit_repo(tmp_path / form / "lib", {"lib.py": "VALUE = 1\n"})
        ws = commit_repo(tmp_path / form / "r", {"app.py": "import lib\n"})
        git(ws, "submodule", "add", "-q", str(lib), "vendor/lib")
        git(ws, "commit", "-q", "-m", "submodule")
        if form == "split":
            git(ws / "vendor" / "lib", "update-index", "--split-index")
        with capture_baseline(ws) as base:
            (ws / "vendor" / "lib" / "lib.py").write_text("VALUE = 2\n")
            assert changed_files(base) == ["vendor/lib/lib.py"]
            patches.append(patch_of(base))
    assert patches[1] == patches[0]


def test_the_users_fsmonitor_hook_never_runs(tmp_path: Path) -> None:
    ws = user_repo(tmp_path / "r", "split-index")
    marker = tmp_path / "fsmonitor-ran"
    hook = tmp_path / "hook.sh"  # protocol 2: a token, then "/" (everything may have changed)
    hook.write_text(f"#!/bin/sh\ntouch {marker}\nprintf 'token\\0/\\0'\n")
    hook.chmod(0o755)
    git(ws, "config", "core.fsmonitor", str(hook))
    git(ws, "config", "core.fsmonitorHookVersion", "2")
    git(ws, "status")  # the user's git runs it, and keeps its token in the index
    git(ws, "status")
    assert b"FSMN" in (ws / ".git" / "index").read_bytes()
    marker.unlink()
    with capture_baseline(ws) as base:
        (ws / "a.txt").write_text("ok\n")
        assert patch_of(base) == A_PATCH
    assert not marker.exists()


@pytest.mark.parametrize("form", ["plain", "split-index"])
def test_a_run_on_a_split_index_gives_the_patch_of_a_plain_one(tmp_path: Path, form: str) -> None:
    case = write_case(tmp_path, [write_call("a.txt", "ok\n"), {"text": "done"}], {}, files=FILES)
    for args in FORMS[form]:
        git(case.repo, *args)

    run = case.run()

    assert run.code == 0, run.stderr
    assert run.patch == A_PATCH
