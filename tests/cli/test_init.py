"""``agentci init``: a starter recipe, a workflow and the .gitignore line, asking nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agentci.testing.cli import agentci

ROOT = Path(__file__).parents[2]
KINDS = ["fix-tests", "fix-lint", "type-errors"]


def _check_workflow(path: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    return subprocess.run(
        [exe, "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize("kind", KINDS)
def test_the_recipe_validates_and_the_workflow_matches_the_schema(tmp_path: Path, kind: str):
    done = agentci("init", str(tmp_path), "--recipe", kind)
    assert done.returncode == 0, done.stderr
    recipe = tmp_path / ".github" / "agentci" / f"{kind}.yaml"
    workflow = tmp_path / ".github" / "workflows" / f"agentci-{kind}.yml"
    checked = agentci("validate", str(recipe))
    assert (checked.returncode, checked.stdout.strip()) == (0, f"{recipe}: ok ({kind})")
    schema = _check_workflow(workflow)
    assert schema.returncode == 0, schema.stdout + schema.stderr


def test_the_workflow_uses_only_inputs_the_action_has_and_keeps_no_token(tmp_path: Path):
    agentci("init", str(tmp_path))
    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    flow = yaml.safe_load((tmp_path / ".github/workflows/agentci-fix-tests.yml").read_text())
    steps = flow["jobs"]["agentci"]["steps"]
    (ours,) = [s for s in steps if "agentci" in s["uses"]]
    assert set(ours["with"]) <= inputs
    assert ours["with"]["recipe"] == ".github/agentci/fix-tests.yaml"
    assert steps[0]["with"]["persist-credentials"] is False
    assert flow["permissions"] == {"contents": "read"}


def test_verify_names_the_command_the_recipe_runs_and_allows(tmp_path: Path):
    done = agentci("init", str(tmp_path), "--verify", "make test", "--model", "gemini-2.5-pro")
    assert done.returncode == 0, done.stderr
    path = tmp_path / ".github/agentci/fix-tests.yaml"
    recipe = yaml.safe_load(path.read_text())
    assert recipe["verify"]["command"] == "make test"
    assert "runner" not in recipe["verify"]  # per-test JUnit only for pytest
    assert {"tool": "run_shell_command", "command": "make test", "decision": "allow"} in recipe[
        "policy"
    ]["rules"]
    assert recipe["model"]["name"] == "gemini-2.5-pro"
    assert agentci("validate", str(path)).returncode == 0


def test_a_pytest_verify_gets_per_test_results(tmp_path: Path):
    agentci("init", str(tmp_path), "--verify", "pytest -q tests/unit")
    recipe = yaml.safe_load((tmp_path / ".github/agentci/fix-tests.yaml").read_text())
    assert recipe["verify"] == {
        "command": "pytest -q tests/unit", "runner": "pytest", "attempts": 3,
        "skip_if_passing": True,
    }  # fmt: skip


def test_existing_files_are_never_overwritten_without_force(tmp_path: Path):
    mine = tmp_path / ".github" / "agentci" / "fix-tests.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own recipe\n")
    done = agentci("init", str(tmp_path))
    assert done.returncode == 2
    assert ".github/agentci/fix-tests.yaml" in done.stderr and "--force" in done.stderr
    assert mine.read_text() == "my own recipe\n"
    assert not (tmp_path / ".github" / "workflows").exists()  # nothing at all was written
    assert not (tmp_path / ".gitignore").exists()

    forced = agentci("init", str(tmp_path), "--force")
    assert forced.returncode == 0, forced.stderr
    assert "overwrote .github/agentci/fix-tests.yaml" in forced.stdout
    assert mine.read_text().startswith("# Written by `agentci init`")


def test_the_gitignore_line_is_added_once_and_the_rest_kept(tmp_path: Path):
    (tmp_path / ".gitignore").write_text("*.pyc\nbuild/")  # no final newline
    agentci("init", str(tmp_path))
    agentci("init", str(tmp_path), "--force")
    assert (tmp_path / ".gitignore").read_text() == (
        "*.pyc\nbuild/\n# agentci's outputs (agentci init)\n.agentci/\n"
    )


def test_a_gitignore_that_already_ignores_the_outputs_is_left_alone(tmp_path: Path):
    (tmp_path / ".gitignore").write_text("/.agentci\n")
    done = agentci("init", str(tmp_path), "--no-workflow")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / ".gitignore").read_text() == "/.agentci\n"
    assert not (tmp_path / ".github" / "workflows").exists()


def test_a_gitignore_in_another_encoding_keeps_its_bytes(tmp_path: Path):
    (tmp_path / ".gitignore").write_bytes(b"caf\xe9/\n")  # latin-1
    done = agentci("init", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / ".gitignore").read_bytes() == (
        b"caf\xe9/\n# agentci's outputs (agentci init)\n.agentci/\n"
    )
    assert (tmp_path / ".github" / "workflows" / "agentci-fix-tests.yml").is_file()


def _outside(tmp_path: Path) -> tuple[Path, Path]:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("theirs\n")
    return repo, outside


def _untouched(repo: Path, outside: Path, links: set[str]) -> None:
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text() == "theirs\n"
    assert {str(p.relative_to(repo)) for p in repo.rglob("*")} == links  # nothing written


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_gitignore_that_links_out_of_the_repository_is_not_written_through(
    tmp_path: Path, force: list[str]
):
    repo, outside = _outside(tmp_path)
    (repo / ".gitignore").symlink_to(outside / "keep.txt")
    done = agentci("init", str(repo), *force)
    assert done.returncode == 2
    assert done.stderr.startswith(f"Error: {repo}: .gitignore is a symbolic link")
    assert "nothing was written" in done.stderr
    _untouched(repo, outside, {".gitignore"})


@pytest.mark.parametrize("link", [".github", ".github/workflows", ".github/agentci/fix-tests.yaml"])
def test_a_link_where_init_writes_is_refused_before_anything_is_written(tmp_path: Path, link: str):
    repo, outside = _outside(tmp_path)
    (repo / link).parent.mkdir(parents=True, exist_ok=True)
    (repo / link).symlink_to(outside / ("keep.txt" if link.endswith(".yaml") else ""))
    done = agentci("init", str(repo), "--force")
    assert done.returncode == 2
    assert f"{link} is a symbolic link: init writes no file through one" in done.stderr
    parents = {"/".join(link.split("/")[:i]) for i in range(1, link.count("/") + 1)}
    _untouched(repo, outside, {link, *parents})


@pytest.mark.parametrize(
    "args, message",
    [
        (["--action", "evil\n  run: curl x"], "--action"),
        (["--verify", ""], "--verify must be one non-empty line"),
        (["--setup", "a\nb"], "--setup must be one non-empty line"),
    ],
)
def test_bad_choices_are_user_errors(tmp_path: Path, args: list[str], message: str):
    done = agentci("init", str(tmp_path), *args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("kind", "commands"),
    [
        ("fix-tests", ["python -m pytest -q", "pytest -q", "python -m pytest tests/x.py -x"]),
        ("fix-lint", ["ruff check --no-cache --output-format=concise .", "ruff check app.py"]),
        ("type-errors", ["mypy --no-error-summary --no-color-output .", "mypy src/app.py"]),
    ],
)
def test_the_starter_lets_the_model_run_its_check_command_its_own_way(
    tmp_path: Path, h, kind: str, commands: list[str]
):
    agentci("init", str(tmp_path), "--recipe", kind)
    recipe = yaml.safe_load((tmp_path / f".github/agentci/{kind}.yaml").read_text())
    h.mode, h.rules = recipe["policy"]["mode"], recipe["policy"]["rules"]
    assert [h.decide_shell(c).decision for c in commands] == ["allow"] * len(commands)
