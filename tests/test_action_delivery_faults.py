"""The delivery step never hangs and never ends in a traceback: ``gh`` answering full pages
forever, ``gh`` answering JSON of another shape, a hung ``gh pr create`` and a stalled ``git
push`` (stub ``gh``/``git`` at the process boundary) each end with one ``::error`` line,
GITHUB_OUTPUT still written, exit 1, and no process of theirs left running."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from action_harness import parse_output_file
from test_action import PROJECT, _bin_dir
from test_action_delivery import PR_EVENT, REPO, TOKEN
from tool_harness import init_repo

from agentci.testing.processes import running

TIMEOUT = "5"  # seconds for each gh/git process (AGENTCI_DELIVERY_TIMEOUT)

GH = """\
import json, os, subprocess, sys

args = sys.argv[1:]
folder = FOLDER  # the delivery passes gh no variable of the job's but its own few
mode = open(os.path.join(folder, "mode")).read()
with open(os.path.join(folder, "calls"), "a") as fh:
    fh.write(json.dumps(args) + "\\n")
if args[:1] == ["api"] and "--method" not in args:  # a page of comments
    if mode == "full-pages":
        print(json.dumps([{"id": i, "body": "someone else"} for i in range(100)]))
    elif mode == "bad-shape":
        print(json.dumps({"message": "Not Found", "documentation_url": "x"}))
    else:
        print("[]")
elif args[:2] == ["pr", "list"]:
    print(json.dumps({"prs": []}) if mode == "bad-shape" else "[]")
elif args[:2] == ["pr", "create"]:
    if mode == "hang-create":
        child = subprocess.Popen(["sleep", "1000"])
        open(os.path.join(folder, "child"), "w").write(str(child.pid))
        child.wait()
    print("https://github.com/owner/repo/pull/1")
elif args[:1] == ["api"]:
    print(json.dumps({"id": 1, "html_url": "https://github.com/owner/repo/issues/7#c1"}))
"""

GIT = """\
#!/bin/sh
for a in "$@"; do
  if [ "$a" = push ]; then
    sleep 1000 &
    echo $! > "{folder}/child"
    wait
  fi
done
exec /usr/bin/git "$@"
"""


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    with _bin_dir() as path:
        yield path


class Deliver:
    """A checkout with a run's outputs (a real patch), a bare remote, and the stubs."""

    def __init__(self, base: Path, stubs: Path) -> None:
        self.ws = init_repo(base / "ws", PROJECT)
        calc = self.ws / "calc.py"
        calc.write_text(calc.read_text().replace("a - b", "a + b"))
        patch = subprocess.run(["git", "diff"], cwd=self.ws, capture_output=True, check=True)
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=self.ws, check=True)
        out = self.ws / ".agentci/out"
        out.mkdir(parents=True)
        (out / ".agentci-out").write_text("agentci output folder\n")
        (out / "patch.diff").write_bytes(patch.stdout)
        (out / "summary.md").write_text("## fix-calc: success\n")
        (out / "result.json").write_text(json.dumps({"recipe_name": "fix-calc", "tasks": [
            {"name": "fix-calc", "status": "success", "summary": "Fixed add."}]}))  # fmt: skip
        remote = base / "server" / "owner" / "repo.git"
        remote.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        self.stubs = stubs
        self.folder = base / "stub-state"
        self.folder.mkdir()
        gh = stubs / "gh"
        gh.write_text(f"#!{sys.executable}\nFOLDER = {str(self.folder)!r}\n{GH}")
        gh.chmod(0o755)
        (base / "event.json").write_text(json.dumps(PR_EVENT))
        self.output = base / "github-output"
        self.output.touch()
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=self.ws, capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
        self.env = {
            "PATH": f"{stubs}:/usr/local/bin:/usr/bin:/bin",
            "HOME": os.environ.get("HOME", "/root"),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(base / "event.json"),
            "GITHUB_SERVER_URL": f"file://{base / 'server'}",
            "GITHUB_SHA": head,
            "GITHUB_REF_NAME": "7/merge",
            "GITHUB_OUTPUT": str(self.output),
            "AGENTCI_GITHUB_TOKEN": TOKEN,
            "AGENTCI_DELIVERY_TIMEOUT": TIMEOUT,
        }

    def stall_git_push(self) -> None:
        git = self.stubs / "git"
        git.write_text(GIT.format(folder=self.folder))
        git.chmod(0o755)

    def run(self, gh_mode: str, *flags: str) -> subprocess.CompletedProcess[str]:
        (self.folder / "mode").write_text(gh_mode)
        return subprocess.run(
            [sys.executable, "-I", "-m", "agentci.delivery", "deliver", "--workspace",
             str(self.ws), "--out", ".agentci/out", "--exit-code", "0", *flags],
            cwd=self.stubs, env=self.env,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    def gh_calls(self) -> list[list[str]]:
        calls = self.folder / "calls"
        return [json.loads(x) for x in calls.read_text().splitlines()] if calls.exists() else []

    def outputs(self) -> dict[str, str]:
        return parse_output_file(self.output.read_text())

    def child_is_gone(self) -> bool:
        pid = int((self.folder / "child").read_text())
        for _ in range(100):  # the killed child is reaped by init: wait for that, not a clock
            if not running(pid):
                return True
            time.sleep(0.05)
        return False


@pytest.fixture
def deliver(tmp_path: Path, bin_dir: Path) -> Deliver:
    return Deliver(tmp_path, bin_dir)


def _clean_failure(done: subprocess.CompletedProcess[str], d: Deliver) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    errors = [ln for ln in done.stdout.splitlines() if ln.startswith("::error ")]
    assert len(errors) == 1, done.stdout
    assert set(d.outputs()) == {"branch", "pr-url", "comment-url"}
    return errors[0]


def test_a_comment_lookup_of_endless_full_pages_stops(deliver: Deliver):
    done = deliver.run("full-pages", "--comment", "true")
    error = _clean_failure(done, deliver)
    assert "more than 3000 comments on #7: stopped looking" in error
    assert len(deliver.gh_calls()) == 30


def test_gh_answering_json_of_another_shape_is_a_clean_error(deliver: Deliver):
    error = _clean_failure(deliver.run("bad-shape", "--comment", "true"), deliver)
    assert "answered JSON of another shape (not a list of objects)" in error


def test_gh_pr_list_of_another_shape_is_a_clean_error(deliver: Deliver):
    error = _clean_failure(deliver.run("bad-shape", "--create-pr", "true"), deliver)
    assert "gh pr list answered JSON of another shape" in error


def test_a_hung_gh_pr_create_is_stopped_with_its_children(deliver: Deliver):
    error = _clean_failure(deliver.run("hang-create", "--create-pr", "true"), deliver)
    assert f"gh pr create did not finish in {TIMEOUT} s" in error
    assert deliver.child_is_gone()
    assert deliver.outputs()["branch"] == ""


def test_a_stalled_git_push_is_stopped_with_its_children(deliver: Deliver):
    deliver.stall_git_push()
    error = _clean_failure(deliver.run("ok", "--create-pr", "true"), deliver)
    assert f"git push did not finish in {TIMEOUT} s" in error
    assert deliver.child_is_gone()
    assert deliver.gh_calls() == []  # no pull request for a branch that was not pushed


def test_the_same_stubs_deliver_when_nothing_stalls(deliver: Deliver):
    done = deliver.run("ok", "--create-pr", "true", "--comment", "true")
    assert done.returncode == 0, done.stdout + done.stderr
    assert deliver.outputs()["pr-url"] == "https://github.com/owner/repo/pull/1"
    assert deliver.outputs()["comment-url"] == "https://github.com/owner/repo/issues/7#c1"
