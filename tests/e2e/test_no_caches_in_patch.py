"""Caches are never the agent's change: in a repository whose .gitignore does not list
``__pycache__/``, the model's test runs write no bytecode or pytest cache, and a cache file
written anyway is neither in patch.diff nor a test edit the guard reverts."""

from __future__ import annotations

from pathlib import Path

from lean_pytest import NO_PLUGIN_AUTOLOAD, without_plugin_autoload

from agentci.testing.case import shell_call, tool_call, write_call, write_case

FILES = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}
RECIPE = {
    # the model's and verify's pytest without the suite's venv plugins (tests/lean_pytest.py)
    "policy": without_plugin_autoload(
        {
            "mode": "auto_edit",
            "rules": [
                {"tool": "run_shell_command", "command": "python -m pytest", "decision": "allow"}
            ],
        }
    ),
    "verify": {"command": "python -m pytest -q", "attempts": 2},
    "guards": {"forbid_test_edits": ["tests/**"]},
    "sandbox": "none",
}
FIX = tool_call("replace", file_path="calc.py", old_string="a - b", new_string="a + b")


def _caches(repo: Path) -> list[str]:
    names = ("__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache")
    return sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if p.name in names)


def test_the_models_test_runs_write_no_caches(tmp_path: Path):
    script = [shell_call("python -m pytest -q"), FIX, shell_call("python -m pytest -q"),
              {"text": "Fixed add()."}]  # fmt: skip
    case = write_case(tmp_path, script, RECIPE, FILES)
    run = case.run(env=NO_PLUGIN_AUTOLOAD)
    assert run.result["status"] == "success", run.stderr
    assert _caches(case.repo) == []
    assert run.result["changed_files"] == ["calc.py"]


def test_a_cache_file_written_anyway_is_not_the_agents_change(tmp_path: Path):
    pyc = "tests/__pycache__/test_calc.cpython-311-pytest-8.0.0.pyc"
    script = [FIX, write_call(pyc, "bytecode\n"), write_call(".pytest_cache/v/x", "[]\n"),
              {"text": "Fixed add()."}]  # fmt: skip
    case = write_case(tmp_path, script, RECIPE, FILES)
    run = case.run(env=NO_PLUGIN_AUTOLOAD)
    assert run.result["status"] == "success", run.stderr
    assert run.result["changed_files"] == ["calc.py"]
    assert "__pycache__" not in run.patch and ".pytest_cache" not in run.patch
    verify = [e for e in run.events if e.type == "verify_result"]
    assert [(v.phase, v.passed) for v in verify] == [("baseline", False), ("attempt", True)]
    assert (case.repo / pyc).exists()  # not reverted as a test edit
