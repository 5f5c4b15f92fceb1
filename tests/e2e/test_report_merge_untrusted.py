"""``agentci report merge`` treats downloaded shard folders as untrusted input: no link is
followed out of them, files are size-capped, a result.json of another shape is a clean
``invalid_input`` (exit 2), and the output folder can never be one of the inputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from e2e_scenario import make_case, write_call

from agentci.testing.cli import agentci

SECRET = "outside-secret-5b1e0c"


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The outputs of one real one-task run (success, exit 0)."""
    root = tmp_path_factory.mktemp("run")
    case = make_case(root, [write_call("a.txt", "a\n"), {"text": "done"}], {"name": "fix"})
    run = case.run()
    assert run.code == 0, run.stderr
    return case.out


@pytest.fixture
def shard(finished: Path, tmp_path: Path) -> Path:
    """A copy of the run's outputs, as a downloaded artifact, beside a folder it must not reach."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    copy = tmp_path / "shard"
    shutil.copytree(finished, copy)
    return copy


def merge(tmp_path: Path, *dirs: Path, out: Path | None = None):
    done = agentci("report", "merge", *map(str, dirs), "--out", str(out or tmp_path / "merged"))
    assert "Traceback" not in done.stderr
    return done


def files_under(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): p.read_text(errors="replace")
        for p in folder.rglob("*")
        if p.is_file()
    }


def test_a_link_in_a_shard_folder_is_not_copied(tmp_path: Path, shard: Path):
    (shard / "leak.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    (shard / "leakdir").symlink_to(tmp_path / "outside", target_is_directory=True)
    done = merge(tmp_path, shard)
    assert done.returncode == 0, done.stderr
    merged = files_under(tmp_path / "merged")
    assert "fix/fix/patch.diff" in merged
    assert not any(SECRET in text for text in merged.values())
    assert not (tmp_path / "merged" / "fix" / "fix" / "leak.txt").exists()
    assert f"not copied: {shard / 'leak.txt'}: a symbolic link" in done.stderr


def test_a_file_over_the_size_cap_is_not_copied(tmp_path: Path, shard: Path):
    with (shard / "huge.bin").open("wb") as fh:
        fh.truncate(65 * 1024 * 1024)  # sparse: nothing is written
    done = merge(tmp_path, shard)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "merged" / "fix" / "fix" / "huge.bin").exists()
    assert "huge.bin: too large (68157440 bytes, the limit is 67108864)" in done.stderr


def _batch_listing(shard: Path, tmp_path: Path, entry_dir: str) -> Path:
    batch = tmp_path / "batch"
    batch.mkdir()
    shutil.move(shard, batch / "task")
    doc = json.loads((batch / "task" / "result.json").read_text())
    listing = {**doc, "kind": "batch", "tasks": [{"dir": entry_dir}]}
    (batch / "result.json").write_text(json.dumps(listing))
    return batch


@pytest.mark.parametrize("entry_dir", ["../outside", "/etc", "link"])
def test_a_task_folder_outside_the_shard_folder_is_refused(
    tmp_path: Path, shard: Path, entry_dir: str
):
    batch = _batch_listing(shard, tmp_path, entry_dir)
    (batch / "link").symlink_to(tmp_path / "outside", target_is_directory=True)
    shutil.copytree(batch / "task", tmp_path / "outside", dirs_exist_ok=True)  # a task to leak
    done = merge(tmp_path, batch)
    assert done.returncode == 2
    assert done.stderr.startswith(f"Error: {batch}: ")
    assert not (tmp_path / "merged").exists()


def test_a_result_json_that_is_a_link_is_refused(tmp_path: Path, shard: Path):
    (tmp_path / "outside" / "result.json").write_text((shard / "result.json").read_text())
    (shard / "result.json").unlink()
    (shard / "result.json").symlink_to(tmp_path / "outside" / "result.json")
    done = merge(tmp_path, shard)
    assert done.returncode == 2
    assert "no readable result.json (a symbolic link" in done.stderr


def _edit(shard: Path, change) -> None:
    doc = json.loads((shard / "result.json").read_text())
    (shard / "result.json").write_text(json.dumps(change(doc)))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: {**d, "tasks": [{**d["tasks"][0], "exit_code": 1}]}, "status success with exit code 1 do not agree"),
        (lambda d: {**d, "exit_code": 1}, "status success with exit code 1 do not agree"),
        (lambda d: {**d, "status": "fine"}, "not a result.json of agentci (status:"),
        (lambda d: {**d, "tasks": "all"}, "not a result.json of agentci (tasks:"),
        (lambda d: {**d, "tasks": [{**d["tasks"][0], "usage": {"x": 1}}]}, "not a result.json of agentci (usage.x:"),
        (lambda d: {**d, "duration_ms": "long"}, "not a result.json of agentci (duration_ms:"),
        (lambda d: [d], "not a result.json of agentci (the document:"),
        (lambda d: {**d, "kind": "batch", "tasks": [{"dir": 7}]}, "lists a task without a folder"),
    ],
)  # fmt: skip
def test_a_result_json_of_another_shape_is_invalid_input(
    tmp_path: Path, shard: Path, change, message: str
):
    _edit(shard, change)
    done = merge(tmp_path, shard)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr


def test_a_result_json_that_is_not_json_is_invalid_input(tmp_path: Path, shard: Path):
    (shard / "result.json").write_bytes(b'{"status": "succ\xff')
    done = merge(tmp_path, shard)
    assert done.returncode == 2
    assert f"Error: {shard}: result.json is not JSON" in done.stderr


@pytest.mark.parametrize("where", ["same", "inside", "around"])
def test_the_output_folder_may_not_overlap_an_input(tmp_path: Path, shard: Path, where: str):
    out = {"same": shard, "inside": shard / "merged", "around": tmp_path}[where]
    before = files_under(shard)
    done = merge(tmp_path, shard, out=out)
    assert done.returncode == 2
    assert "overlaps the input folder" in done.stderr
    assert files_under(shard) == before
    assert not (shard.parent / (shard.name + ".prev")).exists()
