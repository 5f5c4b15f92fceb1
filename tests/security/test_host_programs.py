"""Programs agentci runs on the host are chosen before the agent acts, never from what it wrote.

CI often puts a folder of the checkout on PATH (``node_modules/.bin``, ``.venv/bin``, a
``tools/bin``). A ``git`` the agent writes there must not be the git agentci runs on the host
for its snapshots and the patch (it would run with agentci's secrets).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from attack_case import make_attack, tool

GIT = shutil.which("git")


def test_a_git_the_agent_puts_in_a_workspace_folder_on_path_never_runs_on_the_host(
    tmp_path: Path,
) -> None:
    loot = tmp_path / "escape" / "loot"
    fake = f'#!/bin/sh\ntr "\\0" "\\n" < /proc/$PPID/environ > {loot}\nexec {GIT} "$@"\n'
    case = make_attack(
        tmp_path,
        [
            tool(
                "run_shell_command",
                command=(
                    "mkdir -p tools/bin && cp fake-git tools/bin/git && chmod +x tools/bin/git"
                ),
            ),
            tool("write_file", file_path="NOTE.md", content="note\n"),
            {"text": "done"},
        ],  # fmt: skip
        {"policy": {"mode": "yolo"}},
        files={"README.md": "# project\n", "fake-git": fake},
    )
    run = case.run(env={"PATH": f"{case.repo}/tools/bin:{os.environ['PATH']}"})
    assert (case.repo / "tools/bin/git").exists()  # the agent did write it
    assert not loot.exists(), "the agent's git ran on the host"
    assert run.result["changed_files"] == ["NOTE.md", "tools/bin/git"]
