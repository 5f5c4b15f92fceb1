"""What names the files and the recipe of ``agentci pre-commit``: a staged file is a file,
whatever its name (pre-commit appends the names to the hook's entry, which ends in ``--``), and
``--recipe fix-lint`` is agentci's own recipe, whatever files the repository holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from precommit_project import FILES, NO_KEY, RECIPE

from agentci.testing.cli import agentci


@pytest.fixture
def project(repo_factory) -> Path:
    return repo_factory(FILES)


def test_an_argument_after_the_first_file_is_a_file_not_an_option(project):
    done = agentci("pre-commit", "other.py", "-o", "made", cwd=project)
    assert done.returncode == 2, done.stderr
    assert "'-o' is not a file" in done.stderr
    assert "agentci pre-commit [OPTIONS] -- FILES" in done.stderr
    assert not (project / "made").exists()


def test_without_the_separator_a_file_named_like_an_option_is_refused(repo_factory):
    project = repo_factory({**FILES, "-vq.py": "z = 1\n"})
    done = agentci("pre-commit", "-vq.py", "other.py", cwd=project)
    assert done.returncode == 2, done.stderr
    assert "'-vq.py' is a file's name and looks like an option" in done.stderr
    assert not (project / ".agentci/pre-commit-out").exists()


def test_after_the_separator_a_file_named_like_an_option_is_a_file(repo_factory):
    project = repo_factory({**FILES, "--out=made.py": "z = 1\n"})
    done = agentci("pre-commit", "--", "--out=made.py", "other.py", cwd=project)
    assert done.returncode == 0, done.stderr
    assert (project / ".agentci/pre-commit-out/result.json").is_file()
    assert not (project / "made.py").exists()


def test_a_file_named_like_an_option_of_the_recipes_command_is_checked_as_a_file(repo_factory):
    """``ruff check {{ files }}`` gets ``./--exit-zero``: the name cannot switch the check off
    and let ``unused.py`` through."""
    project = repo_factory({"--exit-zero": "x = 1\n", "unused.py": "import os\n"})
    args = ("pre-commit", "--recipe", "fix-lint", "--", "--exit-zero", "unused.py")
    done = agentci(*args, cwd=project, env=NO_KEY)
    assert done.returncode == 2, done.stderr  # ruff fails on unused.py: the model is needed
    assert "SKIP=agentci-fix-lint git commit" in done.stderr
    assert (project / "unused.py").read_text() == "import os\n"


def test_a_repository_file_named_like_a_built_in_recipe_is_run_when_named_as_a_path(repo_factory):
    recipe = RECIPE.replace("scripted:replies.yaml", "scripted:.agentci/replies.yaml")
    project = repo_factory({**FILES, "fix-lint": recipe})
    done = agentci("pre-commit", "--recipe", "./fix-lint", "--", "app.py", cwd=project)
    assert done.returncode == 1, done.stderr
    assert (project / "app.py").read_text() == "x = 1\n"
