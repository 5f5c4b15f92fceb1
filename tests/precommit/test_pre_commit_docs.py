"""The configuration docs/pre-commit.md tells users to copy: the real ``pre-commit`` accepts it
(and agentci's hook manifest), and the ``agentci`` hook gets the staged Python files only."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml
from precommit_project import FILES

from agentci.testing.cli import agentci

ROOT = Path(__file__).resolve().parents[2]


def _doc_config() -> str:
    text = (ROOT / "docs" / "pre-commit.md").read_text()
    return re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", text, re.S).group(1)


def _pre_commit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)  # fmt: skip


def test_the_documented_config_is_one_pre_commit_accepts(tmp_path: Path):
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(_doc_config())
    done = _pre_commit("validate-config", str(config))
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = _pre_commit("validate-manifest", str(ROOT / ".pre-commit-hooks.yaml"))
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr


def test_the_documented_agentci_hook_takes_python_files_only():
    hooks = {h["id"]: h for h in yaml.safe_load(_doc_config())["repos"][0]["hooks"]}
    assert hooks["agentci"]["types"] == ["python"]
    assert hooks["agentci"]["entry"] == "agentci pre-commit --recipe ci/agentci-pre-commit.yaml --"
    manifest = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert manifest["agentci-fix-lint"]["types_or"] == ["python", "pyi"]  # the built-in: already
    assert "types" not in manifest["agentci"] and "types_or" not in manifest["agentci"]


def test_every_hook_entry_ends_in_the_separator_so_staged_names_are_files():
    """pre-commit appends the staged files' names (and ``args`` before them) to the entry: after
    ``--``, a file named ``--recipe=x.py`` is a file, never an option."""
    manifest = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    documented = yaml.safe_load(_doc_config())["repos"][0]["hooks"]
    entries = [h["entry"] for h in manifest + documented if "entry" in h]
    assert len(entries) == 3
    assert all(shlex.split(e)[:2] == ["agentci", "pre-commit"] for e in entries)
    assert all(shlex.split(e)[-1] == "--" for e in entries)
    assert not any("args" in h for h in manifest + documented)


def test_the_documented_command_runs_the_recipe_on_the_files_after_the_separator(repo_factory):
    text = (ROOT / "docs" / "pre-commit.md").read_text()
    line = re.search(r"```bash\n(agentci pre-commit .*?)\n```", text).group(1)
    files = {**FILES, "src/app.py": "a = 1\n", "src/util.py": "u = 1\n"}
    project = repo_factory(files)
    done = agentci(*shlex.split(line)[1:], cwd=project)
    assert done.returncode == 0, done.stderr  # both files pass the recipe's verify
    result = json.loads((project / ".agentci/pre-commit-out/result.json").read_text())
    assert result["status"] == "success"
