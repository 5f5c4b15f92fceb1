"""Hooks in the documented layout run nothing the agent can write (after the first model call,
every byte of the workspace is data to the host side).

The recipe lives in the checkout (``.github/agentci/recipe.yaml``) with the documented hook
form (``python3 ci/review_edit.py``); the agent attacks with its ordinary tools under default
settings, and an attack that works leaves a marker in a host folder outside the workspace.
Each runs with Python 3.10 (where ``PYTHONSAFEPATH`` does nothing) and 3.12 first on PATH.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml
from hook_helpers import of_type, run_batch, scheduler, script

from agentci.errors import InvalidInput
from agentci.hooks.private import MAX_FILES, HookFiles
from agentci.hooks.runner import HookRunner
from agentci.providers.base import ToolCallPart
from agentci.recipe.hook_config import Hooks
from agentci.testing.case import shell_call, write_call
from agentci.testing.cli import Run, run_recipe
from agentci.testing.repo import commit_repo

PYTHONS = [Path("/root/.pyenv/versions/3.10.13/bin"), Path("/root/.pyenv/versions/3.12.1/bin")]
CANARIES = {"GEMINI_API_KEY": "AIzaCanaryGeminiKey0000000000000000000"}
REVIEW = "import json, sys\njson.load(sys.stdin)\n"
HOOK = {"matcher": "write_file|replace", "command": "python3 ci/review_edit.py"}


@pytest.fixture(params=PYTHONS, ids=lambda p: p.parent.name)
def python_bin(request) -> Path:
    if not (request.param / "python3").exists():
        pytest.skip(f"no {request.param}/python3 here")
    return request.param


def run_layout(
    tmp_path: Path, script: list, first_on_path: Path, hook: dict = HOOK, mode: str | None = None
) -> Run:
    """The documented layout, the scripted attack, ``agentci run`` with ``first_on_path``
    first on PATH (and policy ``mode`` when given)."""
    recipe = {
        "version": 1,
        "name": "review",
        "model": {"name": "scripted:script.yaml"},
        "prompt": "Do the work.",
        **({"policy": {"mode": mode}} if mode is not None else {}),
        "hooks": {"before_tool": [hook]},
    }
    repo = tmp_path / "repo"
    commit_repo(
        repo,
        {
            "README.md": "# project\n",
            ".github/agentci/recipe.yaml": yaml.safe_dump(recipe, sort_keys=False),
            ".github/agentci/script.yaml": yaml.safe_dump(script, sort_keys=False),
            ".github/agentci/ci/review_edit.py": REVIEW,
        },
    )
    (tmp_path / "escape").mkdir()
    env = {**CANARIES, "PATH": f"{first_on_path}:{os.environ['PATH']}"}
    return run_recipe(repo / ".github/agentci/recipe.yaml", tmp_path / "out", cwd=repo, env=env)


def payload(marker: Path) -> str:
    return f"import os\nopen({str(marker)!r}, 'w').write('ran on the host')\n"


def hooks_run(run: Run) -> list[str]:
    return [e.decision for e in run.events if e.type == "hook_result"]


def test_a_module_the_agent_puts_beside_the_hook_script_is_never_imported(
    tmp_path: Path, python_bin: Path
):
    marker = tmp_path / "escape" / "marker"
    script = [
        write_call(".github/agentci/ci/json.py", payload(marker)),
        write_call("NOTE.md", "note\n"),
        {"text": "done"},
    ]
    run = run_layout(tmp_path, script, python_bin)
    assert not marker.exists()
    assert run.code == 0, run.stderr
    assert hooks_run(run) == ["continue", "continue"]


def test_the_agent_cannot_rewrite_a_script_the_hook_names_as_an_argument(
    tmp_path: Path, python_bin: Path
):
    marker = tmp_path / "escape" / "marker"
    script = [
        write_call(".github/agentci/ci/review_edit.py", payload(marker)),
        write_call("NOTE.md", "note\n"),
        {"text": "done"},
    ]
    run = run_layout(tmp_path, script, python_bin)
    assert not marker.exists()
    denied = [e for e in run.events if e.type == "tool_call_decision" and e.decision == "deny"]
    assert [d.rule.split(":")[0] for d in denied] == ["protected"]
    assert (tmp_path / "repo/.github/agentci/ci/review_edit.py").read_text() == REVIEW
    assert run.result["changed_files"] == ["NOTE.md"]


def test_git_in_a_hook_never_discovers_a_repository_the_agent_planted(tmp_path: Path):
    marker = tmp_path / "escape" / "marker"
    config = (
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
        f'\tworktree = {tmp_path / "repo"}\n\tfsmonitor = "touch {marker}; false"\n'
    )
    script = [
        write_call(".github/agentci/HEAD", "ref: refs/heads/main\n"),
        write_call(".github/agentci/config", config),
        write_call(".github/agentci/objects/.keep", ""),
        write_call(".github/agentci/refs/.keep", ""),
        write_call("NOTE.md", "note\n"),
        {"text": "done"},
    ]
    hook = {"matcher": "write_file", "command": "git status --short"}
    run = run_layout(tmp_path, script, Path(sys.executable).parent, hook)
    assert not marker.exists()
    outputs = [e.output for e in run.events if e.type == "hook_result"]
    assert len(outputs) == 5
    # git in the hook works on the workspace's own repository, from any folder
    assert outputs[-1].splitlines() == [
        "?? .github/agentci/HEAD",
        "?? .github/agentci/config",
        "?? .github/agentci/objects/",
        "?? .github/agentci/refs/",
    ]


def test_a_hook_naming_a_workspace_file_by_absolute_path_is_invalid_input(
    repo_factory, tmp_path: Path
):
    ws = repo_factory({"README.md": "hi\n", "ci/check.py": "pass\n"})
    (tmp_path / "recipe").mkdir()
    hooks = Hooks.model_validate(
        {"before_tool": [{"matcher": "*", "command": f"python3 {ws / 'ci/check.py'}"}]}
    )
    with pytest.raises(InvalidInput, match="is a file of the workspace, which the agent can"):
        HookRunner(hooks, workspace=ws, env={}, recipe_dir=tmp_path / "recipe")


def test_a_relative_command_cannot_leave_the_recipes_folder(repo_factory, tmp_path: Path):
    ws = repo_factory({"README.md": "hi\n"})
    (tmp_path / "recipe").mkdir()
    (tmp_path / "check.sh").write_text("true\n")
    hooks = Hooks.model_validate({"before_tool": [{"matcher": "*", "command": "../check.sh"}]})
    with pytest.raises(InvalidInput, match="a relative command names a file inside that folder"):
        HookRunner(hooks, workspace=ws, env={}, recipe_dir=tmp_path / "recipe")


def test_a_hook_whose_private_copy_changed_is_not_run(repo_factory, tmp_path: Path):
    ws = repo_factory({"README.md": "hi\n"})
    recipe_dir = tmp_path / "recipe"
    script(recipe_dir, "check.py", "print('checked')\n")
    s = scheduler(ws, recipe_dir, {"before_tool": [{"matcher": "*", "command": "./check.py"}]})
    (s.hooks.home / "helper.py").write_text("import os\n")  # without a sandbox, say
    events, results = run_batch(s, [ToolCallPart("1", "read_file", {"file_path": "README.md"})])
    assert results[0].error is not None and "changed since the run started (helper.py)" in (
        results[0].error
    )
    assert [e.exit_code for e in of_type(events, "hook_result")] == [None]


def test_the_private_copy_holds_the_recipes_regular_files_only(tmp_path: Path):
    folder = tmp_path / "recipe"
    script(folder, "ci/check.py", "pass\n")
    (folder / "ci/secret-link").symlink_to(tmp_path)
    (folder / ".git").mkdir()
    (folder / ".git/config").write_text("[core]\n")
    (folder / "out").mkdir()
    (folder / "out/.agentci-out").write_text("")
    os.mkfifo(folder / "pipe")
    files_of_run = HookFiles()  # the copy lives as long as this object
    copy = files_of_run.prepare(folder, skip=[])
    files = sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*"))
    assert files == ["ci", "ci/check.py"]
    assert os.access(copy / "ci/check.py", os.X_OK)


def test_a_recipe_folder_too_large_to_copy_is_invalid_input(tmp_path: Path):
    folder = tmp_path / "recipe"
    folder.mkdir()
    for i in range(MAX_FILES + 1):
        (folder / f"f{i}.txt").write_text("")
    with pytest.raises(InvalidInput, match="keep a recipe with hooks and its hook scripts"):
        HookFiles().prepare(folder, skip=[])


def test_a_program_the_agent_puts_in_a_workspace_folder_on_path_never_runs_as_a_hook(
    tmp_path: Path,
):
    """CI often puts a checkout's folder on PATH (``node_modules/.bin``, ``.venv/bin``); the
    hook's ``python3`` must not be the one the agent wrote there."""
    marker = tmp_path / "escape" / "marker"
    fake = f"#!/bin/sh\ntouch {marker}\n"
    script = [
        shell_call(
            f"mkdir -p tools/bin && printf '{fake}' > tools/bin/python3 && chmod +x tools/bin/python3"
        ),
        write_call("NOTE.md", "note\n"),
        {"text": "done"},
    ]  # fmt: skip
    hook = {"matcher": "write_file", "command": "python3 ci/review_edit.py"}
    agents_bin = tmp_path / "repo/tools/bin"
    run = run_layout(tmp_path, script, agents_bin, hook, mode="yolo")
    assert (agents_bin / "python3").exists()  # the agent did write it
    assert not marker.exists()
    assert hooks_run(run) == ["continue"]


@pytest.mark.parametrize("tmpdir", ["tmp", "."])
def test_hooks_run_when_tmpdir_is_inside_the_recipes_folder(
    repo_factory, tmp_path: Path, tmpdir: str
):
    """The private copy lives in TMPDIR: copying the recipe's folder must not copy the copy
    into itself (it did, until the path was too long: exit 70), nor TMPDIR, nor another run's
    temp folder when TMPDIR is the recipe's folder itself."""
    site = tmp_path / "site"
    ws = repo_factory({"README.md": "hi\n"})
    recipe = {
        "version": 1,
        "name": "tmpdir",
        "model": {"name": "scripted:script.yaml"},
        "prompt": "Note it.",
        "workspace": {"path": str(ws)},
        "hooks": {"before_tool": [{"matcher": "write_file", "command": "python3 check.py"}]},
    }
    script = [write_call("NOTE.md", "note\n"), {"text": "done"}]
    (site / tmpdir / "agentci-hooks-1-leftover").mkdir(parents=True)  # another run's
    for i in range(MAX_FILES + 1):
        (site / tmpdir / f"agentci-hooks-1-leftover/{i}.txt").write_text("")
    (site / "recipe.yaml").write_text(yaml.safe_dump(recipe, sort_keys=False))
    (site / "script.yaml").write_text(yaml.safe_dump(script, sort_keys=False))
    (site / "check.py").write_text("import os\nprint(sorted(os.listdir('.')))\n")
    env = {"TMPDIR": str(site / tmpdir)}
    run = run_recipe(site / "recipe.yaml", tmp_path / "out", cwd=site, env=env)
    assert run.code == 0, run.stderr
    [hook] = [e for e in run.events if e.type == "hook_result"]
    assert hook.decision == "continue"
    assert hook.output.strip() == "['check.py', 'recipe.yaml', 'script.yaml']"
