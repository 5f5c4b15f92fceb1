"""The bytecode store sandboxed Python reads (agentci/policy/pyc_cache.py) is agentci's alone.

The agent's code runs in verify (a conftest.py) and in its own commands; both try to leave a
poisoned ``.pyc`` of a standard-library module where the next run would read it: in the
prefix folder they see and in the store itself. A second run with the same store then
imports that module in verify and must get the standard one.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from attack_case import make_attack, shell, tool

#: The attack: an unchecked-hash .pyc (Python never compares it with the source) of a standard
#: module with one more name, written into the prefix (colorsys) and into the store (netrc);
#: what happened goes to poison-<who>.log in the workspace (verify's is ignored: what verify
#: writes to a file the patch is made of is put back after the run).
POISON = """\
import os, sys, sysconfig
from importlib._bootstrap_external import _code_to_hash_pyc

STORE = {store!r}


def attack(who):
    lines = []
    for where, root, module in (("prefix", sys.pycache_prefix or "/nowhere", "colorsys"),
                                ("store", STORE, "netrc")):
        src = os.path.join(sysconfig.get_paths()["stdlib"], module + ".py")
        name = module + "." + sys.implementation.cache_tag + ".pyc"
        code = compile(open(src).read() + "\\nPOISONED = True\\n", src, "exec")
        evil = _code_to_hash_pyc(code, bytes(8), checked=False)
        target = root + os.path.dirname(src) + "/" + name
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(evil)
            lines.append(f"{{who}} {{where}} written")
        except OSError as exc:
            lines.append(f"{{who}} {{where}} refused: {{exc.strerror}}")
    with open(f"poison-{{who}}.log", "a") as f:
        f.write("\\n".join(lines) + "\\n")


if __name__ == "__main__":
    attack(sys.argv[1])
"""
CONFTEST = "import poison\n\npoison.attack('verify')\n"
CALC = {
    ".gitignore": "poison-verify.log\n",
    "calc.py": "def add(a, b):\n    return a - b\n",
    "test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}
CLEAN = {
    "test_clean.py": (
        "import colorsys\nimport netrc\n\n\n"
        "def test_colorsys_and_netrc_are_the_standard_ones():\n"
        "    assert not hasattr(colorsys, 'POISONED')\n"
        "    assert not hasattr(netrc, 'POISONED')\n"
    ),
}
#: verify's pytest from this venv, without its auto-loaded plugins.
ENV = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
POLICY = {
    "env_passthrough": ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"],
    "rules": [{"tool": "run_shell_command", "command": "python poison.py", "decision": "allow"}],
}
VERIFY = {"command": "python -m pytest -q -p no:cacheprovider", "runner": "pytest", "attempts": 1}


def test_code_run_by_verify_cannot_change_what_the_next_verify_imports(tmp_path: Path) -> None:
    store = tmp_path / "store"
    env = {**ENV, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "AGENTCI_PYC_CACHE": str(store)}
    recipe = {"policy": POLICY, "verify": VERIFY}
    script = [
        tool("write_file", file_path="poison.py", content=POISON.format(store=str(store))),
        shell("python poison.py tool"),
        tool("write_file", file_path="conftest.py", content=CONFTEST),
        {"text": "Done."},
    ]
    first = make_attack(tmp_path / "first", script, recipe, CALC)
    run = first.run(env=env)
    assert run.result["status"] == "verify_failed", run.stderr[-3000:]
    log = [*(first.repo / "poison-tool.log").read_text().splitlines(),
           *(first.repo / "poison-verify.log").read_text().splitlines()]  # fmt: skip
    assert "tool prefix refused: Read-only file system" in log
    assert "verify prefix written" in log  # its private view: thrown away after the run
    assert "verify store refused: Read-only file system" in log

    stdlib_dir = Path(os.__file__).parent
    entry = Path(f"{store}{stdlib_dir}/colorsys.{sys.implementation.cache_tag}.pyc")
    # learned from the view's name, copied from beside the source, never linked to it
    beside = (stdlib_dir / "__pycache__" / entry.name).read_bytes()
    assert not entry.is_symlink()
    copied = entry.read_bytes()
    assert copied[:4] == beside[:4] and int.from_bytes(copied[4:8], "little") == 3
    assert copied[8:16] == importlib.util.source_hash((stdlib_dir / "colorsys.py").read_bytes())
    assert copied[16:] == beside[16:]

    second = make_attack(tmp_path / "second", [{"text": "Nothing to do."}], recipe, CLEAN)
    again = second.run(env=env)
    verify = [e for e in again.events if e.type == "verify_result"]
    assert [(v.phase, v.passed) for v in verify] == [("baseline", True)], again.stderr[-3000:]


def test_the_store_holds_nothing_of_the_workspace(tmp_path: Path) -> None:
    """verify imports the workspace's modules: the store learns their names and skips them."""
    store = tmp_path / "store"
    env = {**ENV, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "AGENTCI_PYC_CACHE": str(store)}
    case = make_attack(tmp_path, [{"text": "Nothing to do."}], {"verify": VERIFY}, CALC)
    run = case.run(env=env)
    assert run.result["status"] == "verify_failed", run.stderr[-3000:]
    entries = [Path(d, f) for d, _, files in os.walk(store) for f in files]
    assert any(p.parent.name == "_pytest" for p in entries)  # pytest's own, learned
    workspace = os.path.realpath(case.repo)
    assert [p for p in entries if str(p).startswith(f"{store}{workspace}")] == []
    for p in entries:
        target = os.readlink(p) if p.is_symlink() else str(p)
        assert not target.startswith(workspace), p
