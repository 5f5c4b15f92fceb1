"""``agentci pre-commit FILES``: the recipe runs on the files given, changes only them, and the
exit code tells pre-commit whether the commit must be made again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from precommit_project import FILES, FIX_APP_AND_TOUCH_OTHER

from agentci.testing.cli import agentci
from agentci.testing.repo import racy_edit


@pytest.fixture
def project(repo_factory) -> Path:
    return repo_factory(FILES)


def _result(repo: Path) -> dict:
    return json.loads((repo / ".agentci/pre-commit-out/result.json").read_text())


def test_files_that_already_pass_exit_0_without_a_model_call(project):
    done = agentci("pre-commit", "other.py", cwd=project)
    assert done.returncode == 0, done.stderr
    result = _result(project)
    assert result["status"] == "success"
    assert result["turns"] == 0
    assert (project / "app.py").read_text() == "x = 1  # BAD\n"


def test_a_fixed_file_fails_the_hook_so_it_is_staged_again(project):
    done = agentci("pre-commit", "app.py", "other.py", cwd=project)
    assert done.returncode == 1, done.stderr
    assert (project / "app.py").read_text() == "x = 1\n"
    assert "changed 1 file(s): app.py" in done.stderr
    assert "git add the files and commit again" in done.stderr
    assert _result(project)["status"] == "success"


def test_only_the_files_given_may_change(project):
    (project / ".agentci/replies.yaml").write_text(FIX_APP_AND_TOUCH_OTHER)
    done = agentci("pre-commit", "app.py", cwd=project)
    assert (project / "other.py").read_text() == "y = 2\n"  # reverted by the guard
    result = _result(project)
    assert result["changed_files"] == ["app.py"]
    guards = {g["name"]: g for g in result["tasks"][0]["extra"]["guards"]}
    assert guards["allowed_paths"]["reverted"] == ["other.py"]
    assert result["status"] == "verify_failed"  # a guard refused part of the change
    assert done.returncode == 1, done.stderr


def test_no_files_exits_0_at_once(project):
    done = agentci("pre-commit", cwd=project)
    assert done.returncode == 0, done.stderr
    assert not (project / ".agentci/pre-commit-out").exists()


def test_a_recipe_without_a_list_parameter_is_invalid_input(project):
    recipe = project / ".agentci/pre-commit.yaml"
    recipe.write_text(recipe.read_text().replace("files: {type: list}", "files: {type: string}"))
    done = agentci("pre-commit", "app.py", cwd=project)
    assert done.returncode == 2
    assert "needs a list parameter for the files" in done.stderr


def test_a_recipe_that_isolates_the_workspace_is_invalid_input(project):
    recipe = project / ".agentci/pre-commit.yaml"
    recipe.write_text(recipe.read_text().replace("isolation: none", "isolation: copy"))
    done = agentci("pre-commit", "app.py", cwd=project)
    assert done.returncode == 2
    assert "needs isolation: none" in done.stderr


def test_without_a_wall_clock_in_the_recipe_the_hook_sets_one(project):
    from agentci.precommit.hook import check_hook_recipe

    recipe = project / ".agentci/pre-commit.yaml"
    assert check_hook_recipe(recipe, "files") == {"max_wall_seconds": 300.0}
    recipe.write_text(recipe.read_text().replace("{max_turns: 5}", "{max_wall_seconds: 60}"))
    assert check_hook_recipe(recipe, "files") == {}


def test_a_command_that_never_ends_cannot_hold_the_commit(project):
    recipe = project / ".agentci/pre-commit.yaml"
    recipe.write_text(
        recipe.read_text().replace(
            "policy: {mode: auto_edit}",
            "policy: {mode: auto_edit, rules: [{tool: run_shell_command, command: sleep, "
            "decision: allow}]}",
        )
    )
    (project / ".agentci/replies.yaml").write_text(
        "- calls: [{name: run_shell_command, args: {command: sleep 600}}]\n- text: done\n"
    )
    done = agentci("pre-commit", "--timeout", "2", "app.py", cwd=project, timeout=60)
    assert done.returncode == 3, done.stderr
    assert _result(project)["status"] == "budget_exhausted"


def test_the_built_in_fix_lint_recipe_validates():
    from agentci.precommit.hook import recipe_path

    path = recipe_path("fix-lint")
    assert path.is_file()
    done = agentci("validate", str(path), "-p", "files=a.py")
    assert done.returncode == 0, done.stderr


def test_agentcis_own_ignored_output_folder_is_not_reported_as_the_agents(project):
    done = agentci("pre-commit", "app.py", cwd=project)
    assert done.returncode == 1, done.stderr
    assert _result(project)["ignored_files_written"] == []
    assert "ignored_files_written" not in done.stderr


def test_the_hook_manifest_is_valid_and_its_hooks_run_serially():
    import subprocess
    import sys

    import yaml

    root = Path(__file__).resolve().parents[2]
    manifest = root / ".pre-commit-hooks.yaml"
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(manifest)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    hooks = {h["id"]: h for h in yaml.safe_load(manifest.read_text())}
    assert set(hooks) == {"agentci-fix-lint", "agentci"}
    assert all(h["require_serial"] and h["language"] == "python" for h in hooks.values())
    assert hooks["agentci-fix-lint"]["entry"] == "agentci pre-commit --recipe fix-lint --"


def test_a_guard_revert_keeps_the_users_racily_clean_edit(project):
    """The user edited other.py (same size, same second as git wrote the index); the agent
    also rewrote it; the guard puts back the user's text, not the committed one."""
    racy_edit(project, "other.py", "y = 9\n")
    (project / ".agentci/replies.yaml").write_text(FIX_APP_AND_TOUCH_OTHER)
    agentci("pre-commit", "app.py", cwd=project)
    assert (project / "other.py").read_text() == "y = 9\n"
    result = _result(project)
    assert result["changed_files"] == ["app.py"]
    patch = (project / ".agentci/pre-commit-out/patch.diff").read_text()
    assert "other.py" not in patch


def test_ignored_files_outside_the_staged_set_are_put_back(project):
    """The developer's ignored .env and .venv are theirs: overwritten or planted files in them
    are restored or removed, like a change to a tracked file outside the staged set."""
    (project / ".gitignore").write_text(".agentci/pre-commit-out/\n.env\n.venv/\n")
    (project / ".env").write_text("API_KEY=the-developers-own\n")
    site = project / ".venv/lib/python3.12/site-packages"
    site.mkdir(parents=True)
    (site / "ok.py").write_text("ok = 1\n")
    (site / "keep.py").write_text("keep = 1\n")
    recipe = project / ".agentci/pre-commit.yaml"  # shell commands allowed: the agent deletes
    recipe.write_text(recipe.read_text().replace("mode: auto_edit", "mode: yolo"))
    (project / ".agentci/replies.yaml").write_text(
        """\
- calls:
  - {name: replace, args: {file_path: app.py, old_string: "  # BAD", new_string: ""}}
  - {name: write_file, args: {file_path: .env, content: "API_KEY=attacker\\n"}}
  - {name: write_file, args: {file_path: .venv/lib/python3.12/site-packages/evil.pth,
                              content: "import os; os.system('touch /tmp/pwned')\\n"}}
  - {name: run_shell_command, args: {command: rm .venv/lib/python3.12/site-packages/keep.py}}
- text: Removed the marker.
"""
    )
    done = agentci("pre-commit", "app.py", cwd=project)
    assert (project / ".env").read_text() == "API_KEY=the-developers-own\n"
    assert not (site / "evil.pth").exists()
    assert (site / "ok.py").read_text() == "ok = 1\n"
    assert (site / "keep.py").read_text() == "keep = 1\n"
    assert (project / "app.py").read_text() == "x = 1\n"
    result = _result(project)
    guards = {g["name"]: g for g in result["tasks"][0]["extra"]["guards"]}
    assert guards["allowed_paths"]["ignored_restored"] == [
        ".env",
        ".venv/lib/python3.12/site-packages/evil.pth",
        ".venv/lib/python3.12/site-packages/keep.py",
    ]
    assert result["changed_files"] == ["app.py"]
    assert done.returncode == 1, done.stderr  # app.py was fixed: stage it again
