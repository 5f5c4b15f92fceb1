"""``agentci-fix-lint`` for a teammate without an API key: lint-clean files pass (the baseline
needs no model), and a file that needs the model says how to skip the hook."""

from __future__ import annotations

import pytest
from precommit_project import NO_KEY

from agentci import __version__
from agentci.testing.cli import agentci


@pytest.fixture
def project(repo_factory):
    return repo_factory(
        {
            "clean.py": "x = 1\n",
            "unused.py": "import os\n",
            ".gitignore": ".agentci/\n",
        }
    )


def test_lint_clean_files_pass_without_an_api_key(project):
    done = agentci("pre-commit", "--recipe", "fix-lint", "clean.py", cwd=project, env=NO_KEY)
    assert done.returncode == 0, done.stderr


def test_a_file_that_needs_the_model_names_the_key_and_how_to_skip_the_hook(project):
    done = agentci("pre-commit", "--recipe", "fix-lint", "unused.py", cwd=project, env=NO_KEY)
    assert done.returncode == 2, done.stderr
    assert "GEMINI_API_KEY" in done.stderr
    assert "SKIP=agentci-fix-lint git commit" in done.stderr
    assert "fix-lint.yaml" not in done.stderr  # neither a line of the installed recipe nor its path
    assert (
        f"agentci {__version__}: fix-lint (<built-in recipe fix-lint>)" in done.stderr.splitlines()
    )
    assert (project / "unused.py").read_text() == "import os\n"
