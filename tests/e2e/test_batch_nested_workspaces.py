"""Inside one ``agentci batch``, recipes whose in-place workspaces are one repository — one on
its root, one on a subfolder — would edit one tree at once; each gets its own worktree."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from agentci.testing.case import write_call
from agentci.testing.cli import agentci
from agentci.testing.repo import commit_repo, git


def test_recipes_on_the_root_and_on_a_subfolder_each_get_a_worktree(tmp_path: Path):
    repo = commit_repo(tmp_path / "repo", {"a.py": "A = 0\n", "sub/b.py": "B = 0\n"})
    recipes = []
    for name, path, file in (("outer", ".", "a.py"), ("inner", "sub", "b.py")):
        script = tmp_path / f"{name}.yaml"
        script.write_text(yaml.safe_dump([write_call(file, "X = 1\n"), {"text": "done"}]))
        recipe = tmp_path / f"{name}-recipe.yaml"
        recipe.write_text(yaml.safe_dump({
            "version": 1, "name": name, "model": {"name": f"scripted:{script.name}"},
            "prompt": "Do it.", "sandbox": "none", "workspace": {"path": path},
        }))  # fmt: skip
        recipes.append(str(recipe))
    out = tmp_path / "out"
    done = agentci("batch", *recipes, "--out", str(out), cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "outer: tasks share the workspace" in done.stderr
    assert "inner: tasks share the workspace" in done.stderr
    assert git(repo, "status", "--porcelain") == ""  # neither worked in the checkout
    merged = json.loads((out / "result.json").read_text())
    changed = {t["recipe"]: t["changed_files"] for t in merged["tasks"]}
    assert changed == {"outer": ["a.py"], "inner": ["b.py"]}
