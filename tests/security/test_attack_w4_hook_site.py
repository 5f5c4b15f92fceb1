"""w4: a hook's Python imports the agent's ``src/sitecustomize.py`` on the host, which then read
agentci's secrets in ``/proc/<agentci>/environ`` (the test fails while that is open).

Hooks run on the host in a private copy of the recipe's folder, with ``PYTHONSAFEPATH=1`` and
a ``PATH`` without the workspace's folders (docs/hooks.md): nothing the agent writes is meant
to run there. But the ``python3`` a hook runs is the job's, and when the project is installed
editable in that environment (``pip install -e .`` of a src layout, ``uv sync``), its ``.pth``
puts the workspace's ``src/`` on every such interpreter's ``sys.path``; ``site`` then imports
``sitecustomize`` from there. A ``src/sitecustomize.py`` the agent wrote runs in every hook,
on the host, as root: agentci's own environment is in ``/proc/<pid>/environ`` (undumpable
makes it root's, and the hook is root).

That the project's own Python runs the project's code is the limit docs/hooks.md states (a hook
that needs Python runs ``python3 -I -S`` or an interpreter outside the project's environment);
what agentci closes is the secrets: the values in its initial environment block are blanked
(agentci.policy.env.hide_initial_environ), so the hook's ancestors show none.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from attack_case import CANARIES, make_attack, tool

PAYLOAD = """\
import os
found, pid = [], os.getppid()
while pid > 1:  # the hook's ancestors: bash, agentci
    try:
        env = open(f"/proc/{{pid}}/environ", "rb").read().split(b"\\0")
        found += [v for v in env if v.startswith(b"GEMINI_API_KEY=")]
        pid = int(open(f"/proc/{{pid}}/stat").read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        break
with open({loot!r}, "wb") as f:
    f.write(b"\\n".join(found))
"""


def test_code_a_hooks_python_runs_finds_no_secret_in_agentcis_proc_environ(tmp_path: Path) -> None:
    loot = tmp_path / "escape" / "loot"
    case = make_attack(
        tmp_path,
        [
            tool(
                "write_file",
                file_path="src/sitecustomize.py",
                content=PAYLOAD.format(loot=str(loot)),
            ),
            tool("read_file", file_path="README.md"),
            {"text": "done"},
        ],
        {"hooks": {"after_tool": [{"matcher": "read_file", "command": "python3 -c pass"}]}},
        files={"src/project/__init__.py": "", "README.md": "# p\n"},
    )
    venv = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    here = Path(__file__).resolve().parents[2]
    (site / "agentci-host.pth").write_text(f"{sysconfig.get_path('purelib')}\n{here}\n")
    (site / "__editable__.project-0.1.pth").write_text(f"{case.repo / 'src'}\n")
    env = {**os.environ, **CANARIES, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}"}
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "agentci", "run", str(case.recipe), "--out", str(case.out)],
        cwd=case.repo, env=env, capture_output=True, text=True, timeout=180,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    got = loot.read_text() if loot.exists() else ""
    assert loot.exists(), f"the hook did not run the project's Python\n{done.stderr[-2000:]}"
    assert not [v for v in CANARIES.values() if v in got], f"secrets read by the hook: {got!r}"
