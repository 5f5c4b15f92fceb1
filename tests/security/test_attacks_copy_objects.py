"""``isolation: copy`` lends the copy's repository the original's objects (read-only,
``objects/info/alternates``): an agent in the copy must not redirect that, nor get an object of
its own into the original, nor hide its change from the patch through it.

The scripted model's shell commands run in the real sandbox (``agentci run`` as root with
bubblewrap); the original lives under /var/tmp so that it is visible, read-only, inside.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from attack_case import make_attack, shell, tool

from agentci.policy.sandbox import bwrap_problem
from agentci.testing.repo import git

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}")


@pytest.fixture
def root() -> Iterator[Path]:
    """A case folder outside /tmp (the sandbox has a private /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="agentci-copy-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _store(git_dir: Path) -> dict[str, str]:
    """Every file of a git dir's object store and a digest of its content."""
    objects = git_dir / "objects"
    return {
        str(p.relative_to(objects)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(objects.rglob("*"))
        if p.is_file()
    }


#: In the copy, with the original's object store as ``{store}`` (what the copy's alternates
#: file names): plant files in it, point the copy at a store of the agent's own, then store an
#: object the ordinary way. A script file (the policy would stop these paths on a command line;
#: the sandbox is what must hold); each step runs whatever the one before did.
ATTACK = (
    "echo planted > {store}/pwned\n"
    "mkdir -p {store}/ff && echo planted > {store}/ff/00\n"
    "cat .git/objects/info/alternates > seen.txt\n"
    "mkdir -p mine; echo mine > .git/objects/info/alternates\n"
    "echo 'changed by the agent' > README.md; git add -A; git commit -qm agent\n"
)


@needs_bwrap
def test_an_agent_in_a_copy_cannot_write_to_or_through_the_original_store(root: Path) -> None:
    store = (root / "repo" / ".git" / "objects").resolve()
    script = [
        tool("write_file", file_path="attack.sh", content=ATTACK.format(store=store)),
        shell("sh attack.sh"),
        {"text": "done"},
    ]
    recipe = {"policy": {"mode": "yolo"}, "workspace": {"isolation": "copy"}}
    case = make_attack(root, script, recipe, {"README.md": "original\n"})
    before = _store(case.repo / ".git")
    run = case.run()
    assert run.result["status"] == "success", run.result
    assert _store(case.repo / ".git") == before  # nothing planted, nothing stored
    assert git(case.repo, "status", "--porcelain") == ""
    patch = (case.out / "patch.diff").read_text()
    assert "+changed by the agent" in patch and "-original" in patch
    assert f"+{store}" in patch  # seen.txt: the agent could read where the store is
    check = root / "check"
    git(root, "clone", "-q", str(case.repo), str(check))
    git(check, "apply", "--check", str(case.out / "patch.diff"))
