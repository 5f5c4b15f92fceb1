"""File names the agent makes reach GitHub: as annotations of verify's findings, and in the
Action's outputs step. Neither may break the runner's line format.

The run's annotations (``::error file=…,line=…::message``) escape a name's newline, ``:``,
``,`` and ``%`` inside the ``file`` property, so a name cannot end the command or start one;
a finding in a file whose name is not UTF-8 is not annotated (the linter's report names it
with U+FFFD, which is no file of the workspace) and the run goes on to its verdict.

The agent names files with bytes that are not UTF-8 (``caf\\xe9.py``) and with a newline
followed by a workflow command. agentci's run keeps them (result.json writes the Latin-1 byte
as a JSON escape), and the Action's outputs step (``python -I -m agentci.delivery outputs``)
lists them in ``changed-files``, one path per line. It used to crash writing the Latin-1 name
(a traceback, no output at all, so no artifact either) and to split the other name in two
lines; each name is now quoted as git quotes paths (``git diff --name-only``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from action_harness import parse_output_file
from attack_case import make_attack, shell, tool

#: The agent's script: a Latin-1 name, a newline and a workflow command in a name, and
#: the annotation property separators (``::``, ``,``, ``%``) in another.
MAKE = """\
for name in [b"caf\\xe9.py", b"nl\\n::error file=x::pwned.py", b"a::b,c%0A.py"]:
    open(name, "wb").write(b"import os\\n")
"""
POLICY = {
    "rules": [{"tool": "run_shell_command", "command": "python3 make.py", "decision": "allow"}]
}


def test_changed_files_in_the_actions_outputs_are_one_quoted_line_each(tmp_path: Path) -> None:
    script = [tool("write_file", file_path="make.py", content=MAKE), shell("python3 make.py"),
              {"text": "Made the files."}]  # fmt: skip
    case = make_attack(tmp_path, script, {"policy": POLICY})
    run = case.run()
    assert run.result["status"] == "success", run.stderr[-3000:]
    target = tmp_path / "github-output"
    target.write_text("")
    done = subprocess.run(
        [sys.executable, "-I", "-m", "agentci.delivery", "outputs", "--workspace", str(case.repo),
         "--out", str(case.out), "--exit-code", str(run.code)],
        cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "GITHUB_OUTPUT": str(target)},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    outputs = parse_output_file(target.read_text(encoding="utf-8"))
    assert (outputs["status"], outputs["exit-code"], outputs["out-dir-ok"]) == (
        "success",
        "0",
        "true",
    )
    assert outputs["changed-files"].split("\n") == [
        "a::b,c%0A.py",
        '"caf\\351.py"',
        "make.py",
        '"nl\\n::error file=x::pwned.py"',
    ]


RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (pip install '.[test]')")
def test_names_in_verify_findings_stay_inside_their_annotation(tmp_path: Path) -> None:
    script = [tool("write_file", file_path="make.py", content=MAKE), shell("python3 make.py"),
              {"text": "Made the files."}]  # fmt: skip
    verify = {"command": f"{RUFF} check --no-cache --output-format=json --select F401 .",
              "attempts": 1}  # fmt: skip
    case = make_attack(
        tmp_path, script, {"policy": POLICY, "verify": verify}, {"ok.py": "import sys\n"}
    )
    run = case.run(env={"GITHUB_ACTIONS": "true"})
    assert run.result["status"] == "verify_failed", run.stderr[-3000:]
    assert [line.split("::")[1] for line in run.stdout.splitlines()] == [
        "error file=a%3A%3Ab%2Cc%250A.py,line=1,col=8,endLine=1,endColumn=10,title=ruff F401",
        "error file=nl%0A%3A %3Aerror file=x%3A%3Apwned.py,line=1,col=8,endLine=1,endColumn=10,"
        "title=ruff F401",
        "error file=ok.py,line=1,col=8,endLine=1,endColumn=11,title=ruff F401",
        "error title=agentci",
    ]
