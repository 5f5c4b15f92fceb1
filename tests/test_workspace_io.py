"""The one door between host and workspace: beneath the root, no link followed, regular files
only, sizes bounded (agentci.workspace_io)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentci import workspace_io
from agentci.tools.file_io import read_text_masked
from agentci.workspace_io import UnsafePath

LINK = "a symbolic link (or a path through one), not followed"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "outside.txt").write_text("host secret\n")
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.txt").write_text("hello\n")
    return ws


def refusal(root: Path, rel: str, max_bytes: int = 100) -> str:
    with pytest.raises(UnsafePath) as err:
        workspace_io.read_bytes(root, rel, max_bytes)
    return str(err.value)


def test_a_regular_file_beneath_the_root_is_read(root: Path):
    assert workspace_io.read_bytes(root, "src/a.txt", 100) == b"hello\n"


def test_a_link_as_the_last_component_is_refused_even_inside_the_root(root: Path):
    (root / "inside").symlink_to("src/a.txt")
    (root / "out").symlink_to(root.parent / "outside.txt")
    assert refusal(root, "inside") == LINK
    assert refusal(root, "out") == LINK


def test_a_linked_folder_on_the_way_is_refused(root: Path):
    (root / "up").symlink_to(root.parent)
    assert refusal(root, "up/outside.txt") == LINK


def test_a_fifo_is_refused_without_waiting_for_a_writer(root: Path):
    os.mkfifo(root / "pipe")
    assert refusal(root, "pipe") == "not a regular file"


def test_a_file_over_the_limit_is_refused_or_cut_when_asked(root: Path):
    assert refusal(root, "src/a.txt", 3) == "too large (6 bytes, the limit is 3)"
    assert workspace_io.read_bytes(root, "src/a.txt", 3, cut=True) == b"hell"


def test_paths_that_leave_the_root_are_refused(root: Path):
    assert refusal(root, "../outside.txt").endswith("a path with '..' (the host opens "
                                                    "workspace paths only)")  # fmt: skip
    assert "an absolute path" in refusal(root, str(root.parent / "outside.txt"))


def test_a_hard_linked_file_is_refused(root: Path):
    os.link(root.parent / "outside.txt", root / "hard.txt")
    assert refusal(root, "hard.txt") == (
        "a hard-linked file (it may be a file from elsewhere), refused"
    )


def test_a_missing_file_says_so(root: Path):
    with pytest.raises(UnsafePath) as err:
        workspace_io.read_bytes(root, "src/none.txt", 10)
    assert err.value.missing and str(err.value) == "file not found"


def test_write_makes_folders_and_never_writes_through_a_linked_folder(root: Path):
    workspace_io.write_bytes(root, "new/deep/f.txt", b"data")
    assert (root / "new" / "deep" / "f.txt").read_bytes() == b"data"
    (root / "up").symlink_to(root.parent)
    with pytest.raises(UnsafePath, match="symbolic link"):
        workspace_io.write_bytes(root, "up/outside.txt", b"overwritten")
    assert (root.parent / "outside.txt").read_text() == "host secret\n"


def test_write_replaces_a_link_at_the_path_instead_of_writing_through_it(root: Path):
    (root / "out").symlink_to(root.parent / "outside.txt")
    workspace_io.write_bytes(root, "out", b"mine")
    assert not (root / "out").is_symlink() and (root / "out").read_bytes() == b"mine"
    assert (root.parent / "outside.txt").read_text() == "host secret\n"


def test_unlink_prunes_empty_folders_and_never_deletes_through_a_link(root: Path):
    workspace_io.write_bytes(root, "new/deep/f.txt", b"data")
    assert workspace_io.unlink(root, "new/deep/f.txt", prune=True)
    assert not (root / "new").exists()
    (root / "up").symlink_to(root.parent)
    with pytest.raises(UnsafePath, match="symbolic link"):
        workspace_io.unlink(root, "up/outside.txt")
    assert (root.parent / "outside.txt").exists()


def test_kind_names_what_is_there_without_following_links(root: Path):
    (root / "l").symlink_to("src")
    os.mkfifo(root / "pipe")
    kinds = [workspace_io.kind(root, p) for p in ("src", "src/a.txt", "l", "pipe", "l/a.txt")]
    assert kinds == ["dir", "file", "link", "other", "missing"]


def test_text_for_the_model_hides_the_checkouts_credentials(root: Path):
    git = root / ".git"
    git.mkdir()
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "config").write_text(
        '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n'
    )
    text = read_text_masked(root, ".git/config", 1000)
    assert text == '[http "https://github.com/"]\n\textraheader = ***\n'


WALK = """\
import errno, json, sys
import pyseccomp as sc

nosys = sc.SyscallFilter(sc.ALLOW)
nosys.add_rule(sc.ERRNO(errno.ENOSYS), "openat2")  # a kernel without openat2
nosys.load()
from agentci import workspace_io

out = {}
for rel in sys.argv[2:]:
    try:
        out[rel] = workspace_io.read_bytes(sys.argv[1], rel, 100).decode()
    except workspace_io.UnsafePath as err:
        out[rel] = str(err)
print(json.dumps(out))
"""


def test_without_openat2_the_walk_refuses_the_same_links(root: Path):
    pytest.importorskip("pyseccomp")
    (root / "inside").symlink_to("src/a.txt")
    (root / "up").symlink_to(root.parent)
    os.mkfifo(root / "pipe")
    rels = ["src/a.txt", "inside", "up/outside.txt", "pipe"]
    done = subprocess.run(
        [sys.executable, "-c", WALK, str(root), *rels], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == {
        "src/a.txt": "hello\n",
        "inside": LINK,
        "up/outside.txt": LINK,
        "pipe": "not a regular file",
    }
