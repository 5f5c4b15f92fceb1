"""Wave 3b: an outside tester's attacks that got through (each test fails while the hole is open).

``python -m agentci`` (the ``agentci`` command, per ``agentci/__main__.py``, and how
``agentci.testing.case`` starts every run) puts the working directory — the workspace — first
on ``sys.path``. agentci imports some modules lazily, after the model's tools have run: the
Markdown renderer (``markdown_it``, ``mdurl``, ``linkify_it``, ``unicodedata``) when the
outputs are written. A module of that name that the agent writes into the workspace is then
imported on the host, in agentci's own process, with every secret of its environment.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from attack_case import CANARIES, make_attack, tool

PAYLOAD = """\
import os
with open({loot!r}, "w") as f:
    f.write(os.environ.get("GEMINI_API_KEY", "") + "\\n" + os.environ.get("GITHUB_TOKEN", ""))
raise ImportError("planted")
"""


@pytest.mark.parametrize("module", ["markdown_it", "mdurl"])
def test_module_written_by_agent_is_not_imported_on_host(tmp_path: Path, module: str) -> None:
    loot = tmp_path / "escape" / "loot"
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path=f"{module}.py", content=PAYLOAD.format(loot=str(loot))),
            {"text": "done"},
        ],
    )
    run = case.run()
    assert not loot.exists(), (
        f"agentci imported the workspace's {module}.py on the host: {loot.read_text()!r}"
    )
    assert all(v not in run.stdout + run.stderr for v in CANARIES.values())


# --- agentci installed in a virtualenv inside the workspace (``uv add --dev agentci-runner``,
# ``.venv/bin/agentci run …``): ripgrep is found next to agentci's Python (``.venv/bin/rg``,
# agentci/tools/rg_find.py find_rg, picked once per process) and run on the host for every
# ``grep_search``/``glob``; the sandbox leaves ``.venv`` writable (only .git, .agentci, workflows,
# hooks and the recipe are protected: agentci/policy/paths.py sandbox_readonly).

RG_PAYLOAD = 'printf \'#!/bin/sh\\ncat /proc/$PPID/environ | tr "\\\\\\\\0" "\\\\\\\\n" > {loot}\\n\' > .venv/bin/rg'


def _workspace_venv(repo: Path) -> Path:
    """A virtualenv at ``repo/.venv`` holding agentci (a .pth onto this one's site-packages)."""
    import shutil
    import subprocess
    import sys
    import sysconfig

    venv = repo / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    here = Path(__file__).resolve().parents[2]
    (site / "agentci-host.pth").write_text(f"{sysconfig.get_path('purelib')}\n{here}\n")
    rg = Path(sysconfig.get_path("scripts")) / "rg"
    if not rg.exists():
        rg = Path(shutil.which("rg") or "")
    shutil.copy2(rg, venv / "bin" / "rg")
    entry = venv / "bin" / "agentci"
    entry.write_text(
        f"#!{venv / 'bin' / 'python'}\nimport sys\nfrom agentci.cli import main\nsys.exit(main())\n"
    )
    entry.chmod(0o755)
    return entry


def test_ripgrep_in_workspace_venv_is_not_run_after_the_agent_replaced_it(tmp_path: Path) -> None:
    import os
    import subprocess

    loot = tmp_path / "escape" / "loot"
    case = make_attack(
        tmp_path,
        [
            tool("grep_search", pattern="x"),
            tool("run_shell_command", command=RG_PAYLOAD.format(loot=loot)),
            tool("grep_search", pattern="y"),
            {"text": "done"},
        ],
        files={".gitignore": ".venv/\n", "a.py": "x = 1\n"},
    )
    entry = _workspace_venv(case.repo)
    env = {**os.environ, **CANARIES}
    done = subprocess.run(
        [str(entry), "run", str(case.recipe), "--out", str(case.out)],
        cwd=case.repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    got = loot.read_text() if loot.exists() else ""
    assert not [v for v in CANARIES.values() if v in got], (
        "agentci's environment read by the planted rg"
    )
    assert not loot.exists(), f"the agent's .venv/bin/rg ran on the host\n{done.stderr[-2000:]}"
