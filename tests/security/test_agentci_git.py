"""agentci's own git never runs what a repository's config or attributes name.

The agent can write ``.git/config`` (or create a repository with ``git init``); every git
process agentci starts must ignore the programs it names: fsmonitor, hooks, filters,
textconv, external diff, pager.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentci.gitenv import run_git
from agentci.recipe.schema import Workspace
from agentci.workspace import prepare_workspace


def hostile_repo(root: Path, marker: Path) -> Path:
    """A committed repository whose config makes git run ``touch marker`` in every way."""
    root.mkdir()
    (root / "a.txt").write_text("hello\n")
    run = lambda *a: subprocess.run(["git", *a], cwd=root, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "0")
    (root / ".gitattributes").write_text("* filter=evil diff=evil merge=evil\n")
    hook = root / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {marker}.hook\n")
    hook.chmod(0o755)
    for key, value in {
        "core.fsmonitor": f"touch {marker}.fsmonitor; echo",
        "core.pager": f"touch {marker}.pager; cat",
        "filter.evil.clean": f"touch {marker}.clean; cat",
        "filter.evil.smudge": f"touch {marker}.smudge; cat",
        "filter.evil.process": f"touch {marker}.process",
        "filter.evil.required": "true",
        "diff.evil.textconv": f"touch {marker}.textconv; cat",
        "diff.evil.command": f"touch {marker}.diffcmd",
        "diff.external": f"touch {marker}.external",
        "core.untrackedCache": "true",
    }.items():
        run("config", key, value)
    return root


def planted(marker: Path) -> list[str]:
    return sorted(p.name for p in marker.parent.glob(marker.name + ".*"))


@pytest.mark.parametrize(
    "args",
    [
        ["status", "--porcelain"],
        ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        ["add", "-A"],
        ["diff", "--no-ext-diff", "--no-textconv", "HEAD"],
        ["diff", "HEAD"],
        ["log", "-p", "-1"],
    ],
)
def test_agentci_git_runs_nothing_the_repository_config_names(
    tmp_path: Path, args: list[str]
) -> None:
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = hostile_repo(tmp_path / "repo", marker)
    (repo / "a.txt").write_text("changed\n")
    run_git(args, cwd=repo, repo=repo / ".git")
    assert planted(marker) == []


def test_worktree_isolation_runs_no_hook_or_filter_of_the_repository(tmp_path: Path) -> None:
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = hostile_repo(tmp_path / "repo", marker)
    run_git(["add", "-A"], cwd=repo, repo=repo / ".git")
    ident = ["-c", "user.name=t", "-c", "user.email=t@t"]
    assert (
        run_git([*ident, "commit", "-q", "-m", "1"], cwd=repo, repo=repo / ".git").returncode == 0
    )
    assert planted(marker) == []
    with prepare_workspace(Workspace(path=str(repo), isolation="worktree"), base_dir=tmp_path) as w:
        assert (w.path / "a.txt").read_text() == "hello\n"
    assert planted(marker) == []


def test_inherited_git_variables_do_not_redirect_agentci_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "pwned"
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='touch {marker}; echo'")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "global"))
    (tmp_path / "global").write_text(f"[core]\n\tfsmonitor = touch {marker}; echo\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env={"PATH": "/usr/bin:/bin"})
    run_git(["status"], cwd=repo)
    assert not marker.exists()


def test_a_filter_added_to_the_config_after_an_earlier_call_is_neutralised(tmp_path: Path) -> None:
    """The config's key names are reused only while the file is byte for byte the same."""
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("hello\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    assert run_git(["add", "-A"], cwd=repo, repo=repo / ".git").returncode == 0  # config read
    (repo / ".gitattributes").write_text("* filter=evil\n")
    subprocess.run(["git", "config", "filter.evil.clean", f"touch {marker}.clean; cat"],
                   cwd=repo, check=True)  # fmt: skip
    (repo / "a.txt").write_text("changed\n")
    assert run_git(["add", "-A"], cwd=repo, repo=repo / ".git").returncode == 0
    assert planted(marker) == []


def test_a_filter_in_an_included_file_changed_after_an_earlier_call_is_neutralised(
    tmp_path: Path,
) -> None:
    """A config that includes another file is listed by git each time: the included file may
    change while the config stays the same."""
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("hello\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    extra = tmp_path / "extra.config"
    extra.write_text("")
    subprocess.run(["git", "config", "include.path", str(extra)], cwd=repo, check=True)
    assert run_git(["add", "-A"], cwd=repo, repo=repo / ".git").returncode == 0
    (repo / ".gitattributes").write_text("* filter=evil\n")
    extra.write_text(f'[filter "evil"]\n\tclean = touch {marker}.clean; cat\n')
    (repo / "a.txt").write_text("changed\n")
    assert run_git(["add", "-A"], cwd=repo, repo=repo / ".git").returncode == 0
    assert planted(marker) == []
