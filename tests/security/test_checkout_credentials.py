"""The token actions/checkout leaves in .git/config never reaches the model, by any tool.

``actions/checkout`` (``persist-credentials`` on, its default) writes
``http.https://github.com/.extraheader = AUTHORIZATION: basic base64(x-access-token:TOKEN)``.
"""

from __future__ import annotations

import base64
import codecs
import subprocess
from pathlib import Path

import pytest
from attack_case import CANARIES, make_attack, shell, tool
from tool_harness import Harness

from agentci.policy.sandbox import bwrap_problem

TOKEN = CANARIES["GITHUB_TOKEN"]
HEADER = "AUTHORIZATION: basic " + base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
SECRET = HEADER.split()[-1]
needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}")


def persist_credentials(repo: Path) -> None:
    """What actions/checkout does to the repository's config."""
    key = "http.https://github.com/.extraheader"
    subprocess.run(["git", "config", "--local", key, HEADER], cwd=repo, check=True)
    url = f"https://x-access-token:{TOKEN}@github.com/o/r"
    subprocess.run(["git", "remote", "add", "origin", url], cwd=repo, check=True)


def forms(text: str) -> bool:
    """Whether ``text`` holds the token or the header, plain or rot13."""
    return any(s in text or codecs.encode(s, "rot13") in text for s in (TOKEN, SECRET))


def test_read_file_masks_the_extraheader(h: Harness, ws: Path) -> None:
    persist_credentials(ws)
    for path in (".git/config", "./.git/../.git/config", str(ws / ".git" / "config")):
        res = h.call("read_file", file_path=path)
        assert not forms(res.output), path
        assert "extraheader = ***" in res.output and "[core]" in res.output


@needs_bwrap
@pytest.mark.parametrize(
    "command",
    [
        "cat .git/config > leak.txt",
        "tr A-Za-z N-ZA-Mn-za-m < .git/config > leak.txt",
        "git config --get-all http.https://github.com/.extraheader > leak.txt",
        "git remote get-url origin > leak.txt",
        "git config --list --show-origin > leak.txt",
    ],
)
def test_shell_in_the_sandbox_reads_a_sanitised_config(tmp_path: Path, command: str) -> None:
    case = make_attack(tmp_path, [shell(command), {"text": "done"}], {"policy": {"mode": "yolo"}})
    persist_credentials(case.repo)
    run = case.run()
    assert (case.repo / "leak.txt").exists(), run.stderr[-2000:]
    assert not forms((case.repo / "leak.txt").read_text())
    assert HEADER in (case.repo / ".git" / "config").read_text()  # the job's git still works


def test_a_checkout_with_credentials_is_warned_about(tmp_path: Path) -> None:
    case = make_attack(tmp_path, [tool("read_file", file_path=".git/config"), {"text": "done"}])
    persist_credentials(case.repo)
    run = case.run()
    warnings = [
        e for e in run.events if e.type == "warning" and e.kind == "credentials_in_git_config"
    ]
    assert len(warnings) == 1
    assert "persist-credentials: false" in warnings[0].message
    assert "persist-credentials: false" in run.stderr
    assert not forms((case.out / "events.jsonl").read_text())


def test_no_warning_without_credentials(tmp_path: Path) -> None:
    case = make_attack(tmp_path, [{"text": "done"}])
    run = case.run()
    assert not [
        e for e in run.events if e.type == "warning" and e.kind == "credentials_in_git_config"
    ]


def test_grep_search_and_glob_do_not_look_inside_git_dirs(h: Harness, ws: Path) -> None:
    persist_credentials(ws)
    refused = h.call("grep_search", pattern="basic", dir_path=".git")
    assert refused.error is not None and "inside a git directory" in refused.error
    assert h.call("grep_search", pattern="extraheader").output == "No matches for 'extraheader'."
    assert h.call("grep_search", pattern="basic", include_pattern=".git/*").output.startswith(
        "No matches"
    )
    assert h.call("glob", pattern=".git/**").output == "No files match '.git/**'."


def test_grep_search_does_not_look_inside_a_gitfile_target(h: Harness, ws: Path) -> None:
    (ws / ".git").rename(ws / "gitdir")  # a checkout with --separate-git-dir inside the tree
    (ws / ".git").write_text("gitdir: gitdir\n")
    persist_credentials(ws)
    assert "inside a git directory" in (
        h.call("grep_search", pattern="basic", dir_path="gitdir").error or ""
    )
    assert h.call("grep_search", pattern="basic").output == "No matches for 'basic'."


def test_read_file_masks_submodule_and_included_configs(h: Harness, ws: Path) -> None:
    sub = ws / ".git" / "modules" / "lib"
    sub.mkdir(parents=True)
    (sub / "config").write_text(f'[http "https://github.com/"]\n\textraheader = {HEADER}\n')
    (ws / ".git" / "creds.config").write_text(f"[http]\n\textraheader = {HEADER}\n")
    subprocess.run(["git", "config", "--local", "include.path", "creds.config"], cwd=ws, check=True)
    for path in (".git/modules/lib/config", ".git/creds.config"):
        res = h.call("read_file", file_path=path)
        assert not forms(res.output), path
        assert "extraheader = ***" in res.output, path
