"""agentci's own git neutralises a repository's drivers whatever their names and wherever
(under whatever ``includeIf`` condition) the config defines them.

A driver named ``a=b`` used to be overridden as ``-c filter.a=b.smudge=cat`` and as
``GIT_CONFIG_KEY_n=filter.a``/``GIT_CONFIG_VALUE_n=b.smudge=cat`` (both split at the first
``=``): git set ``filter.a`` and ran the repository's smudge. A driver defined in an
``includeIf "gitdir:…"`` target was missed when the condition was false for the folder the
config was listed from. Each case here runs real git on a real repository, with a driver
that writes a marker outside it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentci.gitenv import driver_overrides, run_git
from agentci.recipe.schema import Workspace
from agentci.workspace import prepare_workspace

IDENT = ["-c", "user.name=t", "-c", "user.email=t@t"]

#: Driver names git accepts in a config file and that ``.gitattributes`` can select.
NAMES = ["a=b", "a.b", 'a"b', "a=b.c=d", os.fsdecode(b"n\xff")]


def _git(root: Path, *args: str | bytes) -> None:
    subprocess.run(["git", *IDENT, *args], cwd=root, check=True, capture_output=True)


def _quoted(name: str) -> bytes:
    """``name`` as a config file writes a subsection (``"`` and ``\\`` escaped)."""
    return os.fsencode(name.replace("\\", "\\\\").replace('"', '\\"'))


def _driver_repo(root: Path, name: str, marker: Path) -> Path:
    """A committed repository whose ``.gitattributes`` selects the filter, diff and merge
    drivers ``name`` for ``a.txt`` and whose config defines each as ``touch marker.<kind>``."""
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("one\n")
    (root / ".gitattributes").write_bytes(
        b"a.txt " + b" ".join(k + b"=" + os.fsencode(name) for k in (b"filter", b"diff", b"merge"))
        + b"\n"
    )  # fmt: skip
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "0")
    q = _quoted(name)
    with open(root / ".git" / "config", "ab") as fh:
        fh.write(b'[filter "' + q + b'"]\n')
        for kind in ("clean", "smudge"):
            fh.write(f"\t{kind} = \"sh -c 'touch {marker}.{kind}; cat'\"\n".encode())
        fh.write(b'[diff "' + q + b'"]\n')
        fh.write(f"\ttextconv = \"sh -c 'touch {marker}.textconv; cat'\"\n".encode())
        fh.write(f'\tcommand = "touch {marker}.diffcmd"\n'.encode())
        fh.write(b'[merge "' + q + b'"]\n')
        fh.write(f'\tdriver = "touch {marker}.merge; false"\n'.encode())
    return root


def _planted(marker: Path) -> list[str]:
    return sorted(p.name for p in marker.parent.glob(marker.name + ".*"))


@pytest.mark.parametrize("name", NAMES)
def test_every_driver_named_with_special_characters_is_overridden_by_its_exact_key(
    tmp_path: Path, name: str
) -> None:
    marker = tmp_path / "outside" / "pwned"
    repo = _driver_repo(tmp_path / "repo", name, marker)
    keys = [key for key, _ in driver_overrides(repo / ".git")]
    assert keys == [
        f"filter.{name}.clean",
        f"filter.{name}.smudge",
        f"diff.{name}.textconv",
        f"diff.{name}.command",
        f"merge.{name}.driver",
    ]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "args",
    [["add", "-A"], ["status", "--porcelain"], ["diff", "HEAD"], ["log", "-p", "-1"]],
)
def test_agentci_git_runs_no_driver_named_with_special_characters(
    tmp_path: Path, name: str, args: list[str]
) -> None:
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = _driver_repo(tmp_path / "repo", name, marker)
    (repo / "a.txt").write_text("two\n")
    run_git(args, cwd=repo, repo=repo / ".git")
    assert _planted(marker) == []


@pytest.mark.parametrize("name", NAMES)
def test_a_worktree_checkout_runs_no_smudge_filter_named_with_special_characters(
    tmp_path: Path, name: str
) -> None:
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = _driver_repo(tmp_path / "repo", name, marker)
    with prepare_workspace(Workspace(path=str(repo), isolation="worktree"), base_dir=tmp_path) as w:
        assert (w.path / "a.txt").read_text() == "one\n"
    assert _planted(marker) == []


def test_a_merge_runs_no_merge_driver_named_with_an_equals_sign(tmp_path: Path) -> None:
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = _driver_repo(tmp_path / "repo", "a=b", marker)
    _git(repo, "checkout", "-q", "-b", "side")
    (repo / "a.txt").write_text("side\n")
    _git(repo, "commit", "-q", "-am", "side")
    _git(repo, "checkout", "-q", "main")
    (repo / "a.txt").write_text("main\n")
    _git(repo, "commit", "-q", "-am", "main")
    for p in marker.parent.iterdir():
        p.unlink()  # what the test's own git ran (clean, smudge)
    run_git([*IDENT, "merge", "-q", "--no-edit", "side"], cwd=repo, repo=repo / ".git")
    assert _planted(marker) == []


def test_a_filter_process_named_with_an_equals_sign_does_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / ".gitattributes").write_text("*.txt filter=a=b\n")
    (repo / "a.txt").write_text("one\n")
    with open(repo / ".git" / "config", "a") as fh:
        fh.write(f'[filter "a=b"]\n\tprocess = touch {marker}.process\n\trequired = true\n')
    done = run_git(["add", "-A"], cwd=repo, repo=repo / ".git")
    assert (done.returncode, _planted(marker)) == (0, [])


def _include(repo: Path, section: str, target: str, body: str) -> None:
    with open(repo / ".git" / "config", "a") as fh:
        fh.write(f"[{section}]\n\tpath = {target}\n")
    (repo / ".git" / target).write_text(body)


def _clean_filter(marker: Path) -> str:
    return f'[filter "pwn"]\n\tclean = "sh -c \'touch {marker}.clean; cat\'"\n'


@pytest.mark.parametrize(
    "condition",
    [
        'includeIf "gitdir:{repo}/"',
        'includeIf "onbranch:main"',
        'includeIf "hasconfig:remote.*.url:https://example.com/**"',
        "include",
    ],
)
def test_a_filter_in_an_included_file_is_neutralised_whatever_the_condition(
    tmp_path: Path, condition: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The include's condition holds for the pinned git (its git dir, its branch), not for
    one listing the config file from another folder (agentci's, here ``tmp_path``)."""
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "remote", "add", "origin", "https://example.com/x.git")
    (repo / ".gitattributes").write_text("*.txt filter=pwn\n")
    (repo / "a.txt").write_text("one\n")
    _include(repo, condition.format(repo=repo), "evil.inc", _clean_filter(marker))
    run_git(["add", "-A"], cwd=repo, repo=repo / ".git")
    assert _planted(marker) == []


def test_a_filter_two_includes_deep_by_relative_paths_is_neutralised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / ".gitattributes").write_text("*.txt filter=pwn\n")
    (repo / "a.txt").write_text("one\n")
    (repo / ".git" / "inc").mkdir()
    _include(repo, f'includeIf "gitdir:{repo}/"', "inc/first.inc",
             '[includeIf "onbranch:main"]\n\tpath = second.inc\n')  # fmt: skip
    (repo / ".git" / "inc" / "second.inc").write_text(_clean_filter(marker))
    run_git(["add", "-A"], cwd=repo, repo=repo / ".git")
    assert _planted(marker) == []


def test_a_smudge_filter_included_only_in_worktrees_does_not_run_in_a_worktree_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gitdir:**/worktrees/**`` is false for the checkout's ``.git`` (agentci runs in the
    checkout) and true for the worktree's git dir (``.git/worktrees/<name>``), where agentci
    checks the files out."""
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / ".gitattributes").write_text("*.txt filter=pwn\n")
    (repo / "a.txt").write_text("one\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "0")
    smudge = f'[filter "pwn"]\n\tsmudge = "sh -c \'touch {marker}.smudge; cat\'"\n'
    _include(repo, 'includeIf "gitdir:**/worktrees/**"', "evil.inc", smudge)
    monkeypatch.chdir(repo)
    with prepare_workspace(Workspace(path=str(repo), isolation="worktree"), base_dir=tmp_path) as w:
        assert (w.path / "a.txt").read_text() == "one\n"
    assert _planted(marker) == []
