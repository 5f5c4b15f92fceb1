"""A canary secret in the environment never reaches an output file or the console.

The scripted model writes it into a file, echoes it through a shell command and puts it in its
final message; none of events.jsonl, patch.diff, junit.xml, result.json, summary.md, stdout or
stderr may contain it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_scenario import make_case, shell_call, write_call

CANARY = "canary-7d1e55b0c4a9f3"
ENV = {"AGENTCI_TEST_TOKEN": CANARY}


@pytest.mark.parametrize(
    "args, env",
    [((), {"GITHUB_ACTIONS": "true"}), (("--format", "jsonl", "-v"), {})],
    ids=["text+annotations", "jsonl-verbose"],
)
def test_a_canary_secret_appears_nowhere(tmp_path: Path, args: tuple[str, ...], env: dict):
    script = [
        write_call("config.txt", f"token={CANARY}\n"),
        shell_call(f"echo {CANARY} && echo ::add-mask::{CANARY}"),
        {"text": f"Done. I stored the token {CANARY} in config.txt."},
    ]
    rule = {"tool": "run_shell_command", "command": "echo", "decision": "allow"}
    case = make_case(tmp_path, script, {"policy": {"rules": [rule]}})
    run = case.run(*args, env={**ENV, **env})
    assert run.code == 0, run.stderr
    files = [p for p in case.out.rglob("*") if p.is_file()]
    assert {
        "events.jsonl",
        "patch.diff",
        "junit.xml",
        "result.json",
        "summary.md",
        "report.html",
    } <= {p.name for p in files}
    for path in files:
        assert CANARY not in path.read_text(errors="replace"), path.name
    assert CANARY not in run.stdout
    assert CANARY not in run.stderr
    assert "token=***" in run.patch  # the change itself is kept, the secret masked
    # the runner acts on workflow commands at a line start only: none may get there
    assert not [line for line in run.stdout.splitlines() if line.lstrip().startswith("::add-mask")]
    assert (case.repo / "config.txt").read_text() == f"token={CANARY}\n"  # the work is real
