"""agentci installed one level down in the workspace (a monorepo's ``backend/.venv``): the
sandbox mounts ``backend/.venv`` read-only, but a folder above a mount can be renamed from
inside the sandbox, and the mount moves with it. Code the sandbox runs (the recipe's verify
command running the agent's script) renames ``backend`` and makes a new ``backend/.venv``
holding its own ``rg``; agentci chose ``backend/.venv/bin/rg`` by name before the agent acted,
and the model's next ``grep_search`` runs it on the host, as agentci's child, where
``/proc/$PPID/environ`` is agentci's environment.

The end-of-run check (the run ends ``internal_error``) came too late for a host program run
mid-run. Now no folder between the workspace and a protected path can be renamed in the
sandbox (each is a mount point there), and a protected path that moved anyway is never run.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from attack_case import CANARIES, make_attack, tool
from test_attack_wave3b import _workspace_venv

FAKE_RG = """\
#!/bin/sh
cat /proc/$PPID/environ > {loot}
exit 1
"""

MOVE_AND_PLANT = """\
#!/bin/sh
mv backend backend.old
mkdir -p backend/.venv/bin
cp fake_rg.txt backend/.venv/bin/rg
chmod +x backend/.venv/bin/rg
exit 1
"""


def _run(case, entry: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(entry), "run", str(case.recipe), "--out", str(case.out)],
        cwd=case.repo, env={**os.environ, **CANARIES}, capture_output=True, text=True,
        timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_folder_above_agentcis_workspace_venv_cannot_be_renamed_to_plant_the_rg_it_runs(
    tmp_path: Path,
) -> None:
    loot = tmp_path / "escape" / "loot"
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path="fake_rg.txt", content=FAKE_RG.format(loot=str(loot))),
            tool("write_file", file_path="check.sh", content=MOVE_AND_PLANT),
            {"text": "done"},
            tool("grep_search", pattern="x ="),
            {"text": "done again"},
        ],
        {"verify": {"command": "sh check.sh", "attempts": 2}},
        files={".gitignore": ".venv/\n", "check.sh": "exit 1\n", "backend/app.py": "x = 1\n"},
    )
    entry = _workspace_venv(case.repo / "backend")
    done = _run(case, entry)
    got = loot.read_text() if loot.exists() else ""
    assert not [v for v in CANARIES.values() if v in got], (
        "the agent renamed backend/ in the sandbox and its backend/.venv/bin/rg ran on the host "
        f"for grep_search: {got!r}\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
    )
    assert not loot.exists()
    assert not (case.repo / "backend.old").exists(), "the rename went through"
    assert (case.repo / "backend" / ".venv" / "bin" / "agentci").exists()


def test_an_installation_moved_outside_the_sandbox_runs_no_rg_and_ends_internal_error(
    tmp_path: Path,
) -> None:
    """The second layer: a move the sandbox cannot stop (here the recipe author's own hook,
    on the host, after a write_file) leaves grep_search refused and ends the run
    ``internal_error`` without outputs; the planted rg never runs."""
    loot = tmp_path / "escape" / "loot"
    hook = tmp_path / "move.sh"
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path="fake_rg.txt", content=FAKE_RG.format(loot=str(loot))),
            tool("grep_search", pattern="x ="),
            {"text": "done"},
        ],
        {"hooks": {"after_tool": [{"matcher": "write_file", "command": f"sh {hook}"}]}},
        files={".gitignore": ".venv/\n", "backend/app.py": "x = 1\n"},
    )
    hook.write_text(f"cd {case.repo}\n" + MOVE_AND_PLANT.replace("exit 1", "exit 0"))
    entry = _workspace_venv(case.repo / "backend")
    done = _run(case, entry)
    assert not loot.exists(), done.stdout[-3000:] + done.stderr[-2000:]
    assert (case.repo / "backend.old").exists(), "the hook did not move the installation"
    assert "grep_search error: not run: agentci's installation at" in done.stderr, done.stderr
    assert done.returncode == 70, done.stdout[-3000:] + done.stderr[-2000:]
    assert "was moved or replaced during the run" in done.stderr, done.stderr
    assert "agentci: no outputs written in" in done.stderr, done.stderr
