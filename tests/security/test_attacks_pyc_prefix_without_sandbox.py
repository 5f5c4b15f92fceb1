"""Without a sandbox, Python's bytecode prefix is no folder a later run reads.

With ``sandbox: none`` (or ``auto`` falling back, where verify still runs the agent's tests on
the host) the commands agentci starts run on the host. Their ``PYTHONPYCACHEPREFIX`` used to
be ``$TMPDIR/agentci-pycache``: one folder for every run on the machine, whoever's. The
agent's code wrote a poisoned ``.pyc`` of a standard module there, and the next job's verify
(another user's, another repository's) ran it. On the host the prefix is now a path under
which nothing can be created (``/dev/null``): every run compiles from source, as it did with
the empty folder, and reads nothing another run left.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from attack_case import make_attack, shell, tool

#: An unchecked-hash .pyc (never compared with its source) of colorsys with one more name,
#: written where this process's Python would look for colorsys's bytecode.
POISON = """\
import os, sys, sysconfig
from importlib._bootstrap_external import _code_to_hash_pyc

src = os.path.join(sysconfig.get_paths()["stdlib"], "colorsys.py")
code = compile(open(src).read() + "\\nPOISONED = True\\n", src, "exec")
target = sys.pycache_prefix + os.path.dirname(src) + "/colorsys." + sys.implementation.cache_tag + ".pyc"
try:
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as f:
        f.write(_code_to_hash_pyc(code, bytes(8), checked=False))
    print("written", target)
except OSError as exc:
    print("refused", exc.strerror)
"""
CLEAN = {
    "test_clean.py": (
        "import colorsys\n\n\n"
        "def test_colorsys_is_the_standard_one():\n"
        "    assert not hasattr(colorsys, 'POISONED')\n"
    ),
}
RECIPE = {
    "sandbox": "none",
    "policy": {
        "env_passthrough": ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"],
        "rules": [
            {"tool": "run_shell_command", "command": "python poison.py", "decision": "allow"}
        ],
    },
}
VERIFY = {"command": "python -m pytest -q -p no:cacheprovider", "runner": "pytest"}


def test_a_run_without_sandbox_cannot_leave_bytecode_for_the_next_run(tmp_path: Path) -> None:
    runner_tmp = tmp_path / "runner-tmp"  # the runner's $TMPDIR, shared by its jobs
    runner_tmp.mkdir()
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "TMPDIR": str(runner_tmp),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "CI": "",
        "GITHUB_ACTIONS": "",
    }
    script = [
        tool("write_file", file_path="poison.py", content=POISON),
        shell("python poison.py"),
        {"text": "Done."},
    ]
    first = make_attack(tmp_path / "first", script, RECIPE)
    run = first.run(env=env)
    shells = [
        e for e in run.events if e.type == "tool_call_response" and e.name == "run_shell_command"
    ]
    outputs = [e.output for e in shells]
    assert len(outputs) == 1 and "refused Not a directory" in outputs[0], run.stderr[-3000:]

    second = make_attack(
        tmp_path / "second", [{"text": "Nothing to do."}], {**RECIPE, "verify": VERIFY}, CLEAN
    )
    again = second.run(env=env)
    verify = [(e.phase, e.passed) for e in again.events if e.type == "verify_result"]
    assert verify == [("baseline", True)], again.stderr[-3000:]
    assert again.result["status"] == "success"
