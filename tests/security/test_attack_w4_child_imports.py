"""w4: the interpreter that writes the outputs imports modules from a project's editable src/
before it takes agentci's sys.path (each test fails while the hole is open).

With another thread alive at the end of a run, agentci writes its outputs in a new interpreter,
``python -I -m agentci.reports.child`` (agentci/reports/child.py). ``-I`` still runs ``site``,
so every ``.pth`` of agentci's environment adds its folders to that interpreter's ``sys.path``
— a project installed editable there (``pip install -e .`` of a src layout, ``uv sync``) puts
its ``src/``, inside the workspace, at the end. ``main()`` replaces ``sys.path`` with
agentci's only after ``-m`` has imported ``agentci.reports.child`` and everything it imports
at the top (pickle, asyncio, pydantic, the writer …). Some of those imports try optional
modules that are not there on Linux (``pickle``: ``org.python.core``, ``subprocess``:
``msvcrt``), and a missing module is looked up in every folder of ``sys.path``, ``src/``
included — and ``site`` itself imports ``sitecustomize`` after the ``.pth`` files (``-I`` does
not stop that): a ``src/sitecustomize.py`` or ``src/org/__init__.py`` the agent wrote runs there, in agentci's child, with every
secret of agentci's environment (the child inherits it: ``-I`` ignores only ``PYTHON*``).

The new interpreter is used whenever another thread is alive at the end: here tracing is on
(``OTEL_EXPORTER_OTLP_ENDPOINT`` set, as docs/outputs.md tells CI jobs to do: the exporter's
thread), and ``agentci batch`` for a task whose outputs are large (over 1,000,000 characters of
patch, conversation and events: agentci/batch/outputs.py): a batch of one recipe whose workspace
no other task shares works in place, default recipe, no environment; the agent writes a large
file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from attack_case import CANARIES, make_attack, tool

#: Tracing on (a collector nobody listens at): its exporter thread is alive when the outputs
#: are written, so they are written by a new interpreter.
OTEL = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_EXPORTER_OTLP_TIMEOUT": "1"}

PAYLOAD = """\
import os
with open({loot!r}, "w") as f:
    f.write(os.environ.get("GEMINI_API_KEY", "") + "\\n" + os.environ.get("GITHUB_TOKEN", ""))
raise ModuleNotFoundError("No module named " + repr(__name__), name=__name__)
"""


def _env_with_editable_project(root: Path, src: Path) -> Path:
    """A virtualenv holding agentci (a .pth onto this one's site-packages and checkout) and
    the project installed editable (a .pth naming its src/): its python."""
    venv = root / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    here = Path(__file__).resolve().parents[2]
    (site / "agentci-host.pth").write_text(f"{sysconfig.get_path('purelib')}\n{here}\n")
    (site / "__editable__.project-0.1.pth").write_text(f"{src}\n")
    return venv / "bin" / "python"


@pytest.mark.parametrize(
    ("command", "env", "module"),
    [
        ("run", OTEL, "org/__init__.py"),
        ("run", OTEL, "msvcrt.py"),
        ("batch", {}, "sitecustomize.py"),
    ],
)
def test_output_child_does_not_import_the_agents_module_from_editable_src(
    tmp_path: Path, command: str, env: dict[str, str], module: str
) -> None:
    loot = tmp_path / "escape" / "loot"
    script = [tool("write_file", file_path=f"src/{module}", content=PAYLOAD.format(loot=str(loot)))]
    if command == "batch":  # a batch writes a task's outputs in a new interpreter once they
        # are large; a run does whenever another thread is alive (the exporter's, OTEL)
        script.append(tool("write_file", file_path="data.txt", content="x = 1\n" * 200_000))
    case = make_attack(
        tmp_path,
        [*script, {"text": "done"}],
        files={"src/project/__init__.py": "", "README.md": "# p\n"},
    )
    python = _env_with_editable_project(tmp_path, case.repo / "src")
    done = subprocess.run(
        [str(python), "-m", "agentci", command, str(case.recipe), "--out", str(case.out)],
        cwd=case.repo,
        env={**os.environ, **CANARIES, **env},
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    got = loot.read_text() if loot.exists() else ""
    assert not [v for v in CANARIES.values() if v in got], (
        f"agentci's secrets read by the agent's src/{module}: {got!r}"
    )
    assert not loot.exists(), f"the agent's src/{module} ran on the host\n{done.stderr[-2000:]}"
