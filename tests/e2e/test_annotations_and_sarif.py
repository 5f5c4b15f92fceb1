"""Verify failures with a place become GitHub annotations and sarif.json (SARIF 2.1.0)."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest
from e2e_scenario import make_case
from lean_pytest import NO_PLUGIN_AUTOLOAD, without_plugin_autoload

from agentci.events import types as ev
from agentci.events.annotations import MAX_ANNOTATIONS
from agentci.events.console import GitHubAnnotationsSink

SCHEMA = json.loads((Path(__file__).parents[1] / "reports" / "sarif-schema-2.1.0.json").read_text())
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
# CI also runs tests/e2e in small virtualenvs with pytest only: there these tests skip.
needs_ruff = pytest.mark.skipif(
    RUFF is None, reason="ruff is not installed (pip install '.[test]')"
)
LINT_FILES = {"app.py": "import os\nimport sys\n", "ok.py": "x = 1\n"}
NOTHING = [{"text": "I changed nothing."}]


def _valid_sarif(path: Path) -> dict:
    jsonschema = pytest.importorskip("jsonschema", reason="pip install '.[test]'")
    data = json.loads(path.read_text())
    jsonschema.Draft7Validator(SCHEMA).validate(data)
    return data


def _lint_case(tmp_path: Path, script: list) -> object:
    verify = {"command": f"{RUFF} check --no-cache --output-format=json .", "attempts": 1}
    return make_case(tmp_path, script, {"verify": verify}, LINT_FILES)


@needs_ruff
def test_lint_findings_are_error_annotations_at_their_place(tmp_path):
    case = _lint_case(tmp_path, NOTHING)
    run = case.run(env={"GITHUB_ACTIONS": "true"})
    assert run.code == 1, run.stderr[-2000:]
    located = [line for line in run.stdout.splitlines() if "file=" in line]
    assert located == [
        "::error file=app.py,line=1,col=8,endLine=1,endColumn=10,title=ruff F401::"
        "`os` imported but unused",
        "::error file=app.py,line=2,col=8,endLine=2,endColumn=11,title=ruff F401::"
        "`sys` imported but unused",
    ]


@needs_ruff
def test_sarif_json_holds_the_remaining_findings_and_validates(tmp_path):
    case = _lint_case(tmp_path, NOTHING)
    run = case.run()
    data = _valid_sarif(run.out / "sarif.json")
    [sarif_run] = data["runs"]
    assert sarif_run["tool"]["driver"]["name"] == "ruff"
    assert [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
         r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in sarif_run["results"]
    ] == [("F401", "app.py", 1), ("F401", "app.py", 2)]  # fmt: skip


@needs_ruff
def test_once_fixed_the_sarif_run_is_empty_and_nothing_is_annotated(tmp_path):
    fix = {"calls": [{"name": "write_file", "args": {"file_path": "app.py", "content": "x = 2\n"}}]}
    case = _lint_case(tmp_path, [fix, {"text": "Removed the unused imports."}])
    run = case.run(env={"GITHUB_ACTIONS": "true"})
    assert run.code == 0, run.stderr[-2000:]
    assert "file=" not in run.stdout
    data = _valid_sarif(run.out / "sarif.json")
    assert [(r["tool"]["driver"]["name"], r["results"]) for r in data["runs"]] == [("ruff", [])]


def test_no_sarif_json_when_verify_reports_no_place(tmp_path):
    verify = {"command": "echo broken; exit 1", "attempts": 1}
    run = make_case(tmp_path, NOTHING, {"verify": verify}).run()
    assert run.code == 1
    assert not (run.out / "sarif.json").exists()


PYTEST_FILES = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "test_calc.py": (
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_zero():\n    assert add(0, 0) == 0\n"
    ),
}


def test_a_failing_pytest_test_is_annotated_and_in_sarif(tmp_path):
    verify = {"command": f"{sys.executable} -m pytest -q -p no:cacheprovider", "runner": "pytest",
              "attempts": 1}  # fmt: skip
    policy = without_plugin_autoload(None)  # verify's pytest without the venv's plugins
    case = make_case(tmp_path, NOTHING, {"verify": verify, "policy": policy}, PYTEST_FILES)
    run = case.run(env={"GITHUB_ACTIONS": "true", **NO_PLUGIN_AUTOLOAD})
    assert run.code == 1, run.stderr[-2000:]
    [line] = [line for line in run.stdout.splitlines() if "file=" in line]
    assert line.startswith("::error file=test_calc.py,line=5,title=pytest failed::")
    assert "test_calc::test_add failed" in line
    [sarif_run] = _valid_sarif(run.out / "sarif.json")["runs"]
    assert sarif_run["tool"]["driver"]["name"] == "pytest"
    assert len(sarif_run["results"]) == 1


def _finished(task: str) -> ev.TaskFinished:
    return ev.TaskFinished(task=task, status="verify_failed", exit_code=1)


def _result(task: str, lines: range, passed: bool = False) -> ev.VerifyResult:
    locations = [ev.VerifyLocation(file="a.py", line=n, message=f"bad {n}") for n in lines]
    return ev.VerifyResult(task=task, phase="attempt", command="lint", exit_code=1,
                           passed=passed, locations=locations)  # fmt: skip


@pytest.mark.parametrize("sanitize", [lambda text: text])
def test_at_most_50_annotations_each_once_from_the_last_verify_run(sanitize):
    out = io.StringIO()
    sink = GitHubAnnotationsSink(out, sanitize=sanitize)
    sink.write(_result("a", range(1, 500)))  # an earlier attempt: superseded
    sink.write(_result("a", range(1, 41)))
    sink.write(_finished("a"))
    sink.write(_result("b", range(31, 61)))  # 10 already shown by task a, 20 new
    sink.write(_finished("b"))
    sink.write(ev.RunFinished(status="verify_failed", exit_code=1))
    lines = out.getvalue().splitlines()
    located = [line for line in lines if line.startswith("::error file=")]
    assert len(located) == MAX_ANNOTATIONS == 50
    assert len(set(located)) == 50
    assert [int(line.split(",line=")[1].split(",")[0]) for line in located] == list(range(1, 51))
    assert "::notice title=agentci::10 more verify failure(s)" in out.getvalue()


def test_annotation_text_is_escaped_for_the_runner():
    out = io.StringIO()
    sink = GitHubAnnotationsSink(out, sanitize=lambda text: text)
    loc = ev.VerifyLocation(file="a,b:c.py", line=3, message="50% off\nsecond line", rule="X1")
    sink.write(ev.VerifyResult(task="t", phase="baseline", command="c", exit_code=1,
                               passed=False, locations=[loc]))  # fmt: skip
    sink.write(_finished("t"))
    assert out.getvalue().splitlines()[0] == (
        "::error file=a%2Cb%3Ac.py,line=3,title=verify X1::50%25 off%0Asecond line"
    )
