"""patch.diff as a pipeline uses it: applied with ``git apply`` to a fresh clone, and every way
it differs from the agent's files said in result.json, summary.md and the events."""

from __future__ import annotations

import subprocess
from pathlib import Path

from e2e_scenario import GIT_ENV, make_case, shell_call, write_call

from agentci.testing.cli import Run

CANARY = "canary-5e1f0a9b77d2c4"
CONFIG = 'AWS_KEY = "AKIAIOSFODNN7EXAMPLE"  # the project\'s public example key\nTIMEOUT = 1\n'


def apply_to_clone(repo: Path, run: Run, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(repo), str(dest)], check=True, env=GIT_ENV)
    done = subprocess.run(["git", "apply", str(run.out / "patch.diff")], cwd=dest,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return dest


def warnings(run: Run, kind: str) -> list[str]:
    return [e.message for e in run.events if e.type == "warning" and e.kind == kind]


def test_redaction_masks_added_lines_only_and_says_so(tmp_path: Path) -> None:
    new = CONFIG.replace("TIMEOUT = 1", f'TIMEOUT = 2\nTOKEN = "{CANARY}"')
    case = make_case(tmp_path, [write_call("config.py", new), {"text": "done"}], {},
                     files={"config.py": CONFIG})  # fmt: skip
    run = case.run(env={"AGENTCI_TEST_TOKEN": CANARY})
    assert run.code == 0, run.stderr
    clone = apply_to_clone(case.repo, run, tmp_path / "clone")
    assert (clone / "config.py").read_text() == new.replace(CANARY, "***")
    assert CANARY not in run.patch
    assert run.result["patch_redacted"] is True
    assert run.result["tasks"][0]["extra"]["patch"]["redacted_files"] == ["config.py"]
    assert "patch_redacted: true" in (case.out / "summary.md").read_text()
    assert ["config.py" in m for m in warnings(run, "patch_redacted")] == [True]


def test_a_patch_without_secrets_in_added_lines_is_not_marked(tmp_path: Path) -> None:
    new = CONFIG.replace("TIMEOUT = 1", "TIMEOUT = 2")
    case = make_case(tmp_path, [write_call("config.py", new), {"text": "done"}], {},
                     files={"config.py": CONFIG})  # fmt: skip
    run = case.run()
    assert run.code == 0, run.stderr
    assert (apply_to_clone(case.repo, run, tmp_path / "clone") / "config.py").read_text() == new
    assert run.result["patch_redacted"] is False and not warnings(run, "patch_redacted")


def test_worktree_isolation_with_a_dirty_original_says_what_the_patch_applies_to(
    tmp_path: Path,
) -> None:
    script = [write_call("new.txt", "made by the agent\n"), {"text": "done"}]
    case = make_case(tmp_path, script, {"workspace": {"path": ".", "isolation": "worktree"}})
    (case.repo / "README.md").write_text("# project, edited but not committed\n")
    run = case.run()
    assert run.code == 0, run.stderr
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=case.repo, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip
    assert run.result["patch_base"] == f"HEAD {head[:12]}"
    [message] = warnings(run, "worktree_base")
    assert "README.md" in message and f"HEAD {head[:12]}" in message
    assert f"applies to HEAD {head[:12]}" in (case.out / "summary.md").read_text()
    clone = apply_to_clone(case.repo, run, tmp_path / "clone")  # HEAD: it applies there
    assert (clone / "new.txt").read_text() == "made by the agent\n"


def test_a_file_too_large_for_the_patch_is_listed_and_the_run_says_so(tmp_path: Path) -> None:
    script = [
        shell_call("head -c 11000000 /dev/urandom > big.bin"),
        write_call("small.txt", "small\n"),
        {"text": "done"},
    ]
    rule = {"tool": "run_shell_command", "command": "head", "decision": "allow"}
    case = make_case(tmp_path, script, {"policy": {"rules": [rule]}})
    run = case.run()
    assert run.code == 0, run.stderr
    assert run.result["patch_incomplete"] is True
    assert run.result["patch_omitted"] == [{"path": "big.bin", "bytes": 11_000_000}]
    assert "big.bin" in run.result["reason"]
    assert "patch.diff is incomplete" in (case.out / "summary.md").read_text()
    assert (case.out / "patch.diff").stat().st_size < 10_000
    clone = apply_to_clone(case.repo, run, tmp_path / "clone")
    assert (clone / "small.txt").is_file() and not (clone / "big.bin").exists()
