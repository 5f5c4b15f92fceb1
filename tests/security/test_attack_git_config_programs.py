"""A program the workspace's git config names never runs on the host, through agentci's own
git, a hook's git or the model's read-only git (real ``agentci run``/``batch``, canary
secrets in agentci's environment, ``escape/`` outside the workspace as the target).

The outside tester's reproductions: a smudge filter named ``a=b`` (the override split at the
first ``=`` set ``filter.a``) run by a worktree's ``git reset --hard`` in ``agentci batch``;
one in an ``includeIf "gitdir:**/worktrees/**"`` target (false where agentci listed the
config, true in the worktree); a hook's ``git diff`` running the config's ``diff.external``
(hooks had no override of it); docs/hooks.md's own require-test.py hook whose
``git status`` ran a clean filter named ``a=b``; the model's allowed ``git diff`` running
``diff.external`` in the sandbox, reading a host file no rule allows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from attack_case import CANARIES, AttackCase, make_attack, shell, tool

REQUIRE_TEST = '''"""Block a final answer until the change includes a test."""

import json
import subprocess
import sys

doc = json.load(sys.stdin)
status = subprocess.run(
    ["git", "status", "--porcelain", "--untracked-files=all"],
    capture_output=True,
    text=True,
    check=True,
).stdout
if not any(line[3:].startswith("tests/") for line in status.splitlines()):
    print(json.dumps({"decision": "block", "reason": "add a test under tests/ for the fix first"}))
'''


def _append_config(case: AttackCase, text: str) -> None:
    with open(case.repo / ".git" / "config", "a") as fh:
        fh.write(text)
    subprocess.run(["git", "config", "--list"], cwd=case.repo, check=True, capture_output=True)


def _payload(case: AttackCase) -> Path:
    """A script outside the workspace that steals into the escape folder, then passes its
    input through (as a filter would)."""
    script = case.root / "payload.sh"
    script.write_text(f"#!/bin/sh\n{case.steal()}\nexec cat\n")
    script.chmod(0o755)
    return script


def _driver(kind: str, name: str, case: AttackCase) -> str:
    """A config section making the filter ``name``'s ``kind`` steal into the escape folder."""
    return f'[filter "{name}"]\n\t{kind} = {_payload(case)}\n'


def _stolen(case: AttackCase, run_stderr: str) -> str:
    got = case.loot.read_text() if case.loot.exists() else ""
    assert not [v for v in CANARIES.values() if v in got], f"secrets stolen: {got!r}"
    assert not case.loot.exists(), f"the repository's program ran on the host\n{run_stderr[-2000:]}"
    return got


def test_batch_worktrees_run_no_smudge_filter_named_with_an_equals_sign(tmp_path: Path) -> None:
    case = make_attack(
        tmp_path,
        [{"text": "done"}],
        files={"README.md": "# p\n", "data.txt": "hello\n", ".gitattributes": "*.txt filter=a=b\n"},
    )
    _append_config(case, _driver("smudge", "a=b", case))
    second = tmp_path / "second.yaml"
    second.write_text(case.recipe.read_text().replace("name: attack", "name: second"))
    done = subprocess.run(
        [sys.executable, "-m", "agentci", "batch", str(case.recipe), str(second),
         "--out", str(case.out)],
        cwd=case.repo, env={**os.environ, **CANARIES}, capture_output=True, text=True,
        timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    _stolen(case, done.stderr)
    assert (case.out / "second").is_dir(), done.stderr[-2000:]
    assert case.leaked() == []


def test_a_worktree_run_runs_no_smudge_filter_included_only_in_worktrees(tmp_path: Path) -> None:
    case = make_attack(
        tmp_path,
        [{"text": "done"}],
        {"workspace": {"path": ".", "isolation": "worktree"}},
        files={"README.md": "# p\n", "data.txt": "hello\n", ".gitattributes": "*.txt filter=pwn\n"},
    )
    (case.repo / ".git" / "evil.inc").write_text(_driver("smudge", "pwn", case))
    _append_config(case, '[includeIf "gitdir:**/worktrees/**"]\n\tpath = evil.inc\n')
    run = case.run()
    _stolen(case, run.stderr)
    assert case.leaked(run) == []


def test_a_hooks_git_diff_runs_no_external_diff_of_the_repository(tmp_path: Path) -> None:
    case = make_attack(
        tmp_path,
        [tool("write_file", file_path="README.md", content="# changed\n"), {"text": "done"}],
        {"hooks": {"session_end": [{"command": "git diff"}]}},
    )
    _append_config(case, f"[diff]\n\texternal = {_payload(case)}\n")
    run = case.run()
    _stolen(case, run.stderr)
    assert case.leaked(run) == []


def test_the_documented_require_test_hooks_git_status_runs_no_clean_filter_named_a_eq_b(
    tmp_path: Path,
) -> None:
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path="calc.py", content="x = 2\n"),
            tool("write_file", file_path="tests/test_calc.py", content="def test_x():\n    pass\n"),
            {"text": "done"},
        ],
        {"hooks": {"after_agent": [{"command": "python3 ci/require-test.py"}]}},
        files={"calc.py": "x = 1\n", ".gitattributes": "*.py filter=a=b\n"},
    )
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "require-test.py").write_text(REQUIRE_TEST)
    _append_config(case, _driver("clean", "a=b", case))
    run = case.run()
    _stolen(case, run.stderr)
    assert run.code == 0, run.stderr[-2000:]


def test_the_models_read_only_git_diff_runs_no_external_diff_of_the_repository(
    tmp_path: Path,
) -> None:
    """The read-only ``git diff`` is allowed; the config's ``diff.external`` (a committed
    script no rule allows, which could read any file the sandbox shows) is not run, in the
    sandbox or not: git reports that the external diff failed."""
    case = make_attack(
        tmp_path,
        [shell("git diff"), {"text": "done"}],
        files={"a.txt": "one\n", "ext.sh": "#!/bin/sh\necho EXTERNAL-DIFF-RAN\n"},
    )
    (case.repo / "ext.sh").chmod(0o755)
    _append_config(case, f"[diff]\n\texternal = {case.repo / 'ext.sh'}\n")
    (case.repo / "a.txt").write_text("two\n")
    run = case.run()
    events = (case.out / "events.jsonl").read_text()
    assert "EXTERNAL-DIFF-RAN" not in events
    assert "fatal: external diff died, stopping at a.txt" in events, run.stderr[-2000:]
