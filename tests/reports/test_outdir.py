"""The output folder: never a user's files lost, one run at a time, no untracked noise, and
nothing left behind by a killed run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentci.errors import InvalidInput
from agentci.reports.outdir import MARKER, prepare_out_dir
from agentci.run_locks import lock_workspace
from agentci.tempdirs import prune_leftovers
from agentci.testing.case import write_case
from agentci.testing.cli import run_recipe


def test_a_users_folder_that_looks_like_outputs_is_never_moved_or_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    docs = tmp_path / "docs"
    (docs / "tasks").mkdir(parents=True)
    (docs / "summary.md").write_text("the user's notes\n")
    (docs / "result.json").write_text("{}\n")
    for _ in range(2):  # the second run used to delete the first run's ".prev"
        with pytest.raises(InvalidInput, match="not an agentci output folder"):
            prepare_out_dir(docs)
    assert (docs / "summary.md").read_text() == "the user's notes\n"
    assert not docs.with_name("docs.prev").exists()


def test_a_users_prev_folder_is_not_deleted(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    prepare_out_dir(out)
    (tmp_path / "out.prev").mkdir()
    (tmp_path / "out.prev" / "keep.txt").write_text("mine\n")
    with pytest.raises(InvalidInput, match="out.prev"):
        prepare_out_dir(out)
    assert (tmp_path / "out.prev" / "keep.txt").read_text() == "mine\n"


def test_outputs_inside_a_checkout_are_not_untracked_noise(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    out = prepare_out_dir(tmp_path / "repo" / ".agentci" / "out")
    (out / "summary.md").write_text("x\n")
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=tmp_path / "repo", capture_output=True, text=True)  # fmt: skip
    assert status.stdout == ""
    assert (out / MARKER).is_file()


def test_an_unwritable_output_folder_names_the_setting(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidInput, match=r"^outputs.dir / --out .*file/out"):
        prepare_out_dir(tmp_path / "file" / "out")
    with pytest.raises(InvalidInput, match=r"^outputs.dir / --out /proc/agentci-out"):
        prepare_out_dir(Path("/proc/agentci-out"))


HOLD = (
    "import sys; from pathlib import Path\n"
    "from agentci.reports.outdir import prepare_out_dir\n"
    "from agentci.run_locks import lock_workspace\n"
    "prepare_out_dir(Path(sys.argv[1])) if sys.argv[2] == 'out' else lock_workspace(Path(sys.argv[1]))\n"
    "print('held', flush=True); sys.stdin.read()\n"
)


def hold(path: Path, what: str) -> subprocess.Popen[str]:
    """Another process holding the lock on ``path`` until its stdin closes."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), what], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def test_a_second_run_on_the_same_output_folder_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    other = hold(tmp_path / "out", "out")
    try:
        with pytest.raises(InvalidInput, match=f"in use by another agentci run \\(pid {other.pid}"):
            prepare_out_dir(tmp_path / "out")
    finally:
        other.communicate("")
    assert prepare_out_dir(tmp_path / "out") == (tmp_path / "out").resolve()  # free again


def test_a_second_run_editing_the_same_workspace_in_place_is_refused(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    other = hold(ws, "ws")
    try:
        with pytest.raises(
            InvalidInput, match=f"workspace .* in use by another agentci run \\(pid {other.pid}"
        ):
            lock_workspace(ws)
    finally:
        other.communicate("")


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_leftovers_of_a_killed_run_are_pruned_and_a_live_runs_are_kept(tmp_path: Path) -> None:
    dead, live = dead_pid(), os.getpid()
    gone = tmp_path / f"agentci-baseline-{dead}-abcd"
    kept = tmp_path / f"agentci-verify-{live}-efgh"
    other = tmp_path / "agentci-notes"
    for folder in (gone, kept, other):
        folder.mkdir()
        (folder / "f").write_text("x")
    assert prune_leftovers(tmp_path) == [gone]
    assert not gone.exists() and kept.exists() and other.exists()


def test_a_worktree_left_by_a_killed_run_is_unregistered(tmp_path: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a").write_text("a\n")
    subprocess.run(["git", "add", "a"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "i"], cwd=repo, check=True, env=env)
    temp = tmp_path / "tmp"
    left = temp / f"agentci-worktree-{dead_pid()}-abcd" / "repo"
    temp.mkdir()
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(left)], cwd=repo, check=True)
    prune_leftovers(temp)
    listed = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=repo,
                            capture_output=True, text=True).stdout  # fmt: skip
    assert str(left) not in listed and not left.exists()


def test_clearing_a_killed_runs_worktree_keeps_the_users_moved_worktree(tmp_path: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    repo, side, moved = tmp_path / "repo", tmp_path / "side", tmp_path / "side-moved"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a").write_text("a\n")
    subprocess.run(["git", "add", "a"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "i"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(side)], cwd=repo, check=True)
    (side / "staged.py").write_text("staged here\n")
    subprocess.run(["git", "add", "staged.py"], cwd=side, check=True)
    side.rename(moved)  # the user's worktree, moved by hand: git cannot see it until repaired
    temp = tmp_path / "tmp"
    left = temp / f"agentci-worktree-{dead_pid()}-abcd" / "repo"
    temp.mkdir()
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(left)], cwd=repo, check=True)
    prune_leftovers(temp)
    repair = subprocess.run(["git", "worktree", "repair", str(moved)], cwd=repo,
                            capture_output=True, text=True)  # fmt: skip
    assert repair.returncode == 0, repair.stderr
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=moved,
                            capture_output=True, text=True).stdout  # fmt: skip
    assert staged == "staged.py\n"


def test_an_output_folder_the_agent_could_write_is_invalid_input(tmp_path: Path) -> None:
    case = write_case(tmp_path, [{"text": "done"}], {"outputs": {"dir": "agent-out"}})
    run = run_recipe(case.recipe, case.repo / "agent-out", cwd=case.repo)
    assert run.code == 2, run.stderr
    assert run.result["status"] == "invalid_input"
    assert run.result["reason"] == (
        f"case: outputs.dir / --out {case.repo / 'agent-out'}: inside the workspace ({case.repo}), "
        "where the agent could rewrite the outputs before agentci reads them back; use a folder "
        "below .agentci/ (the default, .agentci/out, is read-only to the agent) or one outside "
        "the workspace"
    )
    assert run.result["usage"]["model_calls"] == 0


def test_an_output_folder_reached_through_a_committed_link_is_invalid_input(tmp_path: Path):
    case = write_case(tmp_path, [{"text": "done"}], {})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (case.repo / ".agentci").symlink_to(elsewhere)
    run = run_recipe(case.recipe, Path(".agentci/out"), cwd=case.repo)
    assert run.code == 2, run.stderr
    assert (
        f"outputs.dir / --out {case.repo / '.agentci/out'}: {case.repo / '.agentci'} is a "
        "symbolic link" in run.stderr
    )
    assert list(elsewhere.iterdir()) == []
