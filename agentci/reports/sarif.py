"""``sarif.json``: what verify still reports at a place of the workspace, as SARIF 2.1.0.

Written when any verify run of the run had locations (:mod:`agentci.verify.locations`: failed
tests from JUnit, ruff and mypy diagnostics, ``path:line:`` lines), for GitHub code scanning
(``github/codeql-action/upload-sarif``). One SARIF run per tool (``ruff``, ``mypy``,
``pytest``, …): its results are the locations of each task's **last** verify run when that run
failed; a tool whose findings were all fixed keeps an empty run, so an upload closes its alerts.
Paths are relative to the repository's top level (``uriBaseId: %SRCROOT%``).
"""

from __future__ import annotations

import json
from typing import Any

from agentci import __version__
from agentci.events.verify_events import VerifyLocation
from agentci.reports.report import RunReport

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_URIS = {
    "ruff": "https://docs.astral.sh/ruff/",
    "mypy": "https://mypy-lang.org/",
    "pytest": "https://docs.pytest.org/",
    "flake8": "https://flake8.pycqa.org/",
    "pylint": "https://pylint.readthedocs.io/",
}


def has_locations(run: RunReport) -> bool:
    """Whether any verify run of ``run`` reported a location (then sarif.json is written)."""
    return any(v.locations for t in run.tasks for v in t.verify)


def _result(loc: VerifyLocation) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": max(loc.line, 1)}
    if loc.column is not None and loc.column >= 1:
        region["startColumn"] = loc.column
    if loc.end_line is not None and loc.end_line >= region["startLine"]:
        region["endLine"] = loc.end_line
        if loc.end_column is not None and loc.end_column >= 1:
            region["endColumn"] = loc.end_column
    return {
        "ruleId": loc.rule or loc.tool,
        "level": loc.level,
        "message": {"text": loc.message or loc.rule or f"{loc.tool} failure"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": loc.file, "uriBaseId": "%SRCROOT%"},
                    "region": region,
                }
            }
        ],
    }


def sarif_dict(run: RunReport) -> dict[str, Any]:
    """The SARIF log of ``run`` (see the module docstring)."""
    tools: dict[str, list[VerifyLocation]] = {}
    for task in run.tasks:
        for result in task.verify:
            for loc in result.locations:
                tools.setdefault(loc.tool, [])
        last = task.verify[-1] if task.verify else None
        if last is not None and not last.passed:
            for loc in last.locations:
                tools[loc.tool].append(loc)
    runs = []
    for tool, locations in tools.items():
        rules = sorted({loc.rule or loc.tool for loc in locations})
        driver: dict[str, Any] = {"name": tool, "rules": [{"id": r} for r in rules]}
        if tool in _URIS:
            driver["informationUri"] = _URIS[tool]
        runs.append(
            {
                "tool": {"driver": driver},
                "automationDetails": {"id": f"agentci/{run.recipe_name}/{tool}/"},
                "originalUriBaseIds": {
                    "%SRCROOT%": {"description": {"text": "The repository root"}}
                },
                "results": [_result(loc) for loc in locations],
                "properties": {"agentci": {"version": __version__, "run_id": run.run_id}},
            }
        )
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": runs}


def render_sarif(run: RunReport) -> str:
    """sarif.json's text."""
    return json.dumps(sarif_dict(run), indent=2, ensure_ascii=False) + "\n"
