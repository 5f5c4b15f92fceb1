"""Each task of a batch gets its own output folder, whatever its recipe is named: names that
differ only in the characters a folder name cannot keep, or that are the names of the merged
files, never share or clash."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from agentci.testing.case import write_call
from agentci.testing.cli import agentci
from agentci.testing.repo import commit_repo


def _batch(tmp_path: Path, names: list[str]) -> tuple[int, str, Path]:
    repo = commit_repo(tmp_path / "repo", {"README.md": "# project\n"})
    recipes = []
    for i, name in enumerate(names):
        script = tmp_path / f"script{i}.yaml"
        script.write_text(
            yaml.safe_dump([write_call(f"notes{i}.txt", f"{name}\n"), {"text": "ok"}])
        )
        recipe = tmp_path / f"recipe{i}.yaml"
        recipe.write_text(yaml.safe_dump({
            "version": 1, "name": name, "model": {"name": f"scripted:{script.name}"},
            "prompt": "Write the notes.", "sandbox": "none",
            "workspace": {"isolation": "worktree"},
        }))  # fmt: skip
        recipes.append(str(recipe))
    out = tmp_path / "out"
    done = agentci("batch", *recipes, "--out", str(out), cwd=repo)
    return done.returncode, done.stderr, out


def test_recipes_whose_names_make_the_same_safe_name_get_two_folders(tmp_path: Path):
    code, stderr, out = _batch(tmp_path, [".dot", "_.dot"])
    assert code == 0, stderr
    merged = json.loads((out / "result.json").read_text())
    dirs = [t["dir"] for t in merged["tasks"]]
    assert len(set(dirs)) == 2
    for task in merged["tasks"]:
        assert task["status"] == "success"
        own = json.loads((out / task["dir"] / "result.json").read_text())
        assert own["recipe_name"] == task["recipe"]
        patch = (out / task["dir"] / "patch.diff").read_text()
        assert f"+{task['recipe']}" in patch


def test_a_recipe_named_like_a_merged_file_does_not_clash_with_it(tmp_path: Path):
    code, stderr, out = _batch(tmp_path, ["result.json"])
    assert code == 0, stderr
    merged = json.loads((out / "result.json").read_text())
    (task,) = merged["tasks"]
    assert (task["recipe"], task["status"]) == ("result.json", "success")
    assert task["dir"].split("/")[0] != "result.json"
    assert (out / task["dir"] / "patch.diff").read_text().count("+result.json") == 1
