"""Attack (w6): the delivery's push obeyed the checkout's git config.

The Action's delivery step committed the patch and pushed it with git pinned to the
checkout's repository (``GIT_DIR=<workspace>/.git``). agentci's git overrides the settings that
start programs, not the network ones: a checkout whose ``.git/config`` says
``url.<attacker>.insteadOf = <server>`` (or ``http.proxy`` with ``http.sslVerify = false``)
sent the push, and the write token with it on https, to the attacker. The commit and the push
now happen in a scratch repository of agentci's own that only reads the checkout's objects.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from test_action import _bin_dir  # noqa: E402
from test_action_delivery import BRANCH, PR_EVENT, Delivery, git  # noqa: E402


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    with _bin_dir() as path:
        yield path


def test_attack_w6_the_checkouts_url_rewrite_does_not_redirect_the_push(tmp_path, bin_dir):
    on_pr = Delivery(tmp_path, bin_dir, "pull_request", PR_EVENT)
    attacker = tmp_path / "attacker" / "owner" / "repo.git"
    attacker.mkdir(parents=True)
    git(attacker, "init", "-q", "--bare")
    server = f"file://{tmp_path / 'server'}/"
    config = on_pr.job.workspace / ".git" / "config"
    with config.open("a") as fh:
        fh.write(f'[url "file://{tmp_path / "attacker"}/"]\n\tinsteadOf = {server}\n')
        fh.write(f'[url "file://{tmp_path / "attacker"}/"]\n\tpushInsteadOf = {server}\n')
    on_pr.run(**{"create-pr": "true"})
    refs = subprocess.run(["git", "for-each-ref", "--format=%(refname)"], cwd=attacker,
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert refs == ""  # nothing reached the repository the checkout's config named
    assert git(on_pr.remote, "rev-parse", "--verify", f"refs/heads/{BRANCH}").strip()
    assert "+    return a + b" in on_pr.branch_diff()
