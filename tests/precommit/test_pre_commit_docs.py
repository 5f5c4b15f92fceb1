"""The configuration docs/pre-commit.md tells users to copy: the real ``pre-commit`` accepts it
(and agentci's hook manifest), and the ``agentci`` hook gets the staged Python files only."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

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
    assert hooks["agentci"]["args"] == ["--recipe", "ci/agentci-pre-commit.yaml"]
    manifest = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert manifest["agentci-fix-lint"]["types_or"] == ["python", "pyi"]  # the built-in: already
    assert "types" not in manifest["agentci"] and "types_or" not in manifest["agentci"]
