"""The layers of docs/architecture.md hold: a module imports only from the layers below its own
(import-linter's contract in pyproject.toml, function-local and TYPE_CHECKING imports included),
and a function-local import is rare and says why it waits."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "agentci"
MAX_DEFERRED = 40


def lint_imports() -> subprocess.CompletedProcess[str]:
    """``lint-imports`` as a user runs it, from the checkout's root."""
    command = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(command), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def deferred_imports() -> list[tuple[Path, int, list[str]]]:
    """Every import inside a function body of agentci: (file, line, source lines from the one
    above the statement to its last)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        tree = ast.parse(source)
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    assert node.end_lineno is not None
                    text = lines[max(node.lineno - 2, 0) : node.end_lineno]
                    found.append((path, node.lineno, text))
    # a function inside a function is walked twice: count each statement once
    return sorted({(p, n): (p, n, t) for p, n, t in found}.values())


def test_the_layers_contract_is_kept() -> None:
    result = lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_function_local_imports_are_few() -> None:
    found = deferred_imports()
    assert len(found) < MAX_DEFERRED, [f"{p.relative_to(ROOT)}:{n}" for p, n, _ in found]


def test_each_function_local_import_says_why_it_waits() -> None:
    unexplained = [
        f"{path.relative_to(ROOT)}:{line}"
        for path, line, text in deferred_imports()
        if not any("# deferred: " in row for row in text)
    ]
    assert unexplained == []
