"""The optional outputs (report.html, sarif.json) are the recipe's choice (``outputs.extra``) or
the command's (``--outputs``); the five contract outputs are always written (docs/outputs.md)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from e2e_scenario import assert_agree, make_case

from agentci.testing.cli import agentci

ROOT = Path(__file__).parents[2]
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
needs_ruff = pytest.mark.skipif(
    RUFF is None, reason="ruff is not installed (pip install '.[test]')"
)
LINT_FILES = {"app.py": "import os\n"}  # verify fails at a place: sarif.json has something to say
NOTHING = [{"text": "I changed nothing."}]
CONTRACT = {"events.jsonl", "patch.diff", "junit.xml", "result.json", "summary.md"}


def _lint_recipe(**outputs: object) -> dict:
    verify = {"command": f"{RUFF} check --no-cache --output-format=json .", "attempts": 1}
    return {"verify": verify, **({"outputs": outputs} if outputs else {})}


def _written(out: Path) -> set[str]:
    return {p.name for p in out.iterdir() if p.is_file() and not p.name.startswith(".")}


def _docs_snippets() -> tuple[dict, str]:
    """docs/outputs.md's recipe snippet (YAML) and command line, as printed there."""
    text = (ROOT / "docs" / "outputs.md").read_text()
    start = text.index("<!-- outputs-extra-snippet -->")
    blocks = re.findall(r"```(yaml|bash)\n(.*?)```", text[start:], flags=re.S)[:2]
    assert [kind for kind, _ in blocks] == ["yaml", "bash"]
    return yaml.safe_load(blocks[0][1]), blocks[1][1].strip()


@needs_ruff
def test_the_docs_recipe_writes_sarif_json_and_no_report_html(tmp_path: Path):
    snippet, _ = _docs_snippets()
    case = make_case(tmp_path, NOTHING, _lint_recipe(**snippet["outputs"]), LINT_FILES)
    run = case.run()  # --out out: the snippet's dir is the default one
    assert_agree(run, "verify_failed", 1)
    assert _written(run.out) == CONTRACT | {"history.jsonl", "sarif.json"}


@needs_ruff
def test_the_docs_command_writes_neither_whatever_the_recipe_says(tmp_path: Path):
    _, command = _docs_snippets()
    recipe = {**_lint_recipe(extra=["report.html", "sarif.json"]),
              "workspace": {"path": str(tmp_path / "repo")}}  # fmt: skip
    case = make_case(tmp_path, NOTHING, recipe, LINT_FILES)  # recipe.yaml, as the docs name it
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(["bash", "--noprofile", "--norc", "-c", command], cwd=case.root,
                          env={**os.environ, "PATH": path}, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300)  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]
    out = case.root / ".agentci" / "out"
    assert _written(out) == CONTRACT | {"history.jsonl"}
    assert "outputs in .agentci/out/ (summary.md, patch.diff, result.json, …)" in done.stderr


def test_a_recipe_naming_an_unknown_output_is_invalid_input_at_its_line(tmp_path: Path):
    case = make_case(tmp_path, NOTHING, {"outputs": {"extra": ["report.html", "report.pdf"]}})
    run = case.run()
    assert run.code == 2
    line = next(i for i, text in enumerate(case.recipe.read_text().splitlines(), 1)
                if "report.pdf" in text)  # fmt: skip
    assert f"{case.recipe}:{line}" in run.stderr and "outputs.extra" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("value", ["report.pdf", "", "none,report.html"])
def test_an_unknown_outputs_value_is_a_usage_error(tmp_path: Path, value: str):
    case = make_case(tmp_path, NOTHING, {})
    run = case.run("--outputs", value)
    assert run.code == 2
    assert "Invalid value for '--outputs'" in run.stderr and "Traceback" not in run.stderr
    assert not run.out.exists()  # refused before anything ran


def test_batch_outputs_applies_to_every_task(tmp_path: Path):
    case = make_case(tmp_path, NOTHING, {"allow_no_changes": True})
    done = agentci("batch", str(case.recipe), "--outputs", "report.html",
                   "--out", str(tmp_path / "batch-out"), cwd=case.repo)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    [task_out] = [p.parent for p in (tmp_path / "batch-out").rglob("result.json")
                  if p.parent != tmp_path / "batch-out"]  # fmt: skip
    assert _written(task_out) == CONTRACT | {"history.jsonl", "report.html"}
