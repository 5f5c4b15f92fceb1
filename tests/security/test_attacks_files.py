"""Attacks through the file tools: escapes, planted links, protected paths (even in yolo)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tool_harness import Harness


def refused(res) -> bool:
    return bool(res.error) and "root:" not in res.output


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "../../etc/passwd",
        "/proc/self/environ",
        "/dev/zero",
        "etc/passwd",
        "src/../../x",
        "a\x00b",
        "é" * 200,
        "\udcff.txt",
        "x/" * 3000,
    ],
)
def test_read_outside_or_bad_names(h: Harness, ws: Path, path: str) -> None:
    (ws / "etc").symlink_to("/etc")  # a committed-style symlink to /etc
    res = h.call("read_file", file_path=path)
    assert refused(res), path


def test_symlink_planted_by_a_command_mid_run(h: Harness, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("s3cret")
    h.sh(f"ln -s {outside}/secret leak && ln -s {outside} dir")
    assert "s3cret" not in h.call("read_file", file_path="leak").output
    res = h.call("write_file", file_path="dir/new.txt", content="pwned")
    assert res.error and not (outside / "new.txt").exists()
    res = h.call("replace", file_path="dir/secret", old_string="s3cret", new_string="x")
    assert res.error and (outside / "secret").read_text() == "s3cret"


def test_hard_link_to_an_outside_file(h: Harness, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("s3cret")
    os.link(outside, ws / "hl.txt")
    res = h.call("read_file", file_path="hl.txt")
    assert res.error and "s3cret" not in res.output
    h.call("write_file", file_path="hl.txt", content="new")  # atomic: breaks the link
    assert outside.read_text() == "s3cret"


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        ".git/hooks/pre-commit",
        ".github/workflows/x.yml",
        ".agentci/out/x",
        ".agentci",
        "recipe.yaml",
        "src/../.git/HEAD",
    ],
)
def test_protected_paths_even_in_yolo(h: Harness, ws: Path, path: str) -> None:
    (ws / "recipe.yaml").write_text("version: 1\n")
    h.recipe_path = ws / "recipe.yaml"
    target = ws / path
    before = target.read_bytes() if target.is_file() else None
    h.mode = "yolo"
    assert h.call("write_file", file_path=path, content="pwned").error
    if before is not None:
        assert h.call(
            "replace", file_path=path, old_string=before.decode()[:3], new_string="X"
        ).error
        assert target.read_bytes() == before
    else:
        assert not target.is_file()


def test_shell_redirect_into_protected_paths(h: Harness, ws: Path) -> None:
    before = (ws / ".git/config").read_bytes()
    for cmd in [
        "echo x >> .git/config",
        "echo x > .git/hooks/post-checkout",
        "cd src && echo x > ../.git/config",
        "cd .git && echo x > config",
        "echo x > .agentci/x",
    ]:
        assert h.sh(cmd).error, cmd
    assert (ws / ".git/config").read_bytes() == before
    assert not (ws / ".git/hooks/post-checkout").exists()
