"""``agentci report merge`` takes in downloaded shard folders: attacker data:
the host never follows a link in what a run or a batch takes in from outside.

A shard artifact is whatever the shard's job uploaded; a pull request's workflow (or a
compromised shard) controls it. The merged folder is then published (artifact, job summary).

Found red on 220a778; main fixed it independently in 02b578a, so these stay as regression tests.
"""

from __future__ import annotations

import json
from pathlib import Path

from attack_case import CANARIES

from agentci.testing.cli import agentci

RESULT = {
    "version": 1, "status": "success", "exit_code": 0, "recipe_name": "r",
    "tasks": [{"name": "t", "status": "success", "exit_code": 0, "reason": "", "usage": {}}],
}  # fmt: skip


def _shard(root: Path) -> Path:
    shard = root / "shard"
    shard.mkdir()
    (shard / "result.json").write_text(json.dumps(RESULT))
    return shard


def _leaks(out: Path, needles: list[str]) -> list[str]:
    found = []
    for p in out.rglob("*"):
        if p.is_file() and not p.is_symlink():
            text = p.read_text(errors="replace")
            found += [f"{p.relative_to(out)}: {n}" for n in needles if n in text]
    return found


def test_a_link_in_a_shard_folder_to_a_host_file_is_not_copied(tmp_path: Path) -> None:
    host = tmp_path / "escape" / "host-secret"
    host.parent.mkdir()
    host.write_text("HOST-FILE-CANARY\n")
    shard = _shard(tmp_path)
    (shard / "patch.diff").symlink_to(host)
    done = agentci("report", "merge", str(shard), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode in (0, 2), done.stderr
    assert _leaks(tmp_path / "out", ["HOST-FILE-CANARY"]) == []


def test_a_link_in_a_shard_folder_to_agentci_environ_does_not_leak_secrets(
    tmp_path: Path,
) -> None:
    shard = _shard(tmp_path)
    (shard / "events.jsonl").symlink_to("/proc/self/environ")
    done = agentci(
        "report", "merge", str(shard), "-o", str(tmp_path / "out"), cwd=tmp_path, env=CANARIES
    )
    assert done.returncode in (0, 2), done.stderr
    assert _leaks(tmp_path / "out", list(CANARIES.values())) == []


def test_a_batch_task_dir_cannot_name_a_host_folder(tmp_path: Path) -> None:
    """result.json of a batch lists its task folders: ``dir`` is attacker data too."""
    host = tmp_path / "escape" / "private"
    host.mkdir(parents=True)
    (host / "result.json").write_text(json.dumps(RESULT))
    (host / "id_rsa").write_text("HOST-FILE-CANARY\n")
    shard = tmp_path / "shard"
    shard.mkdir()
    batch = {"version": 1, "kind": "batch", "status": "success", "exit_code": 0,
             "tasks": [{"dir": str(host)}]}  # fmt: skip
    (shard / "result.json").write_text(json.dumps(batch))
    agentci("report", "merge", str(shard), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert _leaks(tmp_path / "out", ["HOST-FILE-CANARY"]) == []
