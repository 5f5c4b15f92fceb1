"""``agentci pre-commit --recipe fix-lint`` (the entry of the published ``agentci-fix-lint``
hook) means agentci's built-in recipe. A repository (a pull request that CI runs
``pre-commit run --all-files`` on) commits a file named ``fix-lint`` at its root: agentci takes
that file as the recipe, and its ``setup`` runs on the host before any sandbox, with agentci's
secrets in reach (``/proc/<agentci>/environ``).
"""

from __future__ import annotations

import json
from pathlib import Path

from attack_case import CANARIES, STEAL

from agentci.testing.cli import agentci
from agentci.testing.repo import commit_repo


def test_a_file_named_like_the_built_in_recipe_is_not_run(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    loot = tmp_path / "escape" / "loot"
    loot.parent.mkdir()
    payload = STEAL.format(loot=loot).replace("cp {loot} leak.txt", "")
    recipe = (
        "version: 1\nname: fix-lint\nmodel: {name: gemini-2.5-flash}\n"
        "parameters:\n  files: {type: list}\n"
        "prompt: x\nworkspace: {path: ., isolation: none}\n"
        "setup:\n  - " + json.dumps(payload) + "\n"
        "verify: {command: 'true', skip_if_passing: true}\n"
    )
    commit_repo(repo, {"fix-lint": recipe, "a.py": "x = 1\n"})
    agentci("pre-commit", "--recipe", "fix-lint", "a.py", cwd=repo, env=CANARIES)
    assert not loot.exists(), "the repository's fix-lint file ran on the host"


def test_a_staged_file_name_is_never_an_option(tmp_path: Path) -> None:
    """pre-commit appends the staged files' names to the hook's entry, with no ``--`` before
    them. A repository holding a file named ``--recipe=evil.py`` (a Python file to
    pre-commit's ``types``) makes that name an option: agentci runs ``evil.py`` (a YAML recipe
    the same repository holds) instead of the hook's recipe, and its setup runs on the host."""
    repo = tmp_path / "repo"
    loot = tmp_path / "escape" / "loot"
    loot.parent.mkdir()
    payload = STEAL.format(loot=loot).replace("cp {loot} leak.txt", "")
    recipe = (
        "version: 1\nname: fix-lint\nmodel: {name: gemini-2.5-flash}\n"
        "parameters:\n  files: {type: list}\n"
        "prompt: x\nworkspace: {path: ., isolation: none}\n"
        "setup:\n  - " + json.dumps(payload) + "\n"
        "verify: {command: 'true', skip_if_passing: true}\n"
    )
    commit_repo(repo, {"evil.py": recipe, "--recipe=evil.py": "x = 2\n", "a.py": "x = 1\n"})
    staged = sorted(p.name for p in repo.glob("*.py"))  # what pre-commit passes, as git lists them
    agentci("pre-commit", "--recipe", "fix-lint", *staged, cwd=repo, env=CANARIES)
    assert not loot.exists(), "a file name chose the recipe, and its setup ran on the host"


def test_a_staged_path_cannot_choose_where_the_outputs_go(tmp_path: Path) -> None:
    """The same with a folder: the repository path ``--out=<abs>/made.py`` (a folder named
    ``--out=`` and the folders below it) is the option ``--out=/…/made.py``; agentci creates
    that folder on the host, outside the repository, and writes its outputs in it."""
    repo = tmp_path / "repo"
    target = tmp_path / "escape" / "made.py"
    target.parent.mkdir()
    name = f"--out={target}"
    commit_repo(repo, {name: "x = 2\n", "a.py": "x = 1\n"})
    staged = [name, "a.py"]  # git ls-files '*.py', as pre-commit passes them
    agentci("pre-commit", "--recipe", "fix-lint", *staged, cwd=repo, env=CANARIES)
    assert not target.exists(), "a staged path made agentci write outside the repository"
