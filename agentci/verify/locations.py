"""Where a verify run's failures are: file, line, message — for annotations and SARIF.

Read from what the verify command left, in this order:

* **JUnit** (``runner: pytest`` or ``verify.junit``): each failed or errored test, at the last
  ``path:line:`` of its traceback that names a file of the workspace (pytest ends a failure's
  text with ``tests/test_x.py:12: AssertionError``); tool ``pytest`` (or ``junit``).
* **ruff** ``--output-format=json`` (a JSON array of diagnostics) and **mypy** ``-O json``
  (one JSON object per line): their own locations, rule codes and severities.
* **Text lines** ``path:line[:column]: message`` (ruff's concise output, mypy's, flake8,
  pylint's parseable format, pytest's own short tracebacks): the rule is a leading code such
  as ``F401`` or mypy's trailing ``[code]``; ``note:`` lines are not failures.

A location counts only when its file exists inside the workspace (relative paths as the
command printed them, absolute ones inside the workspace made relative): anything else is
text, not a place in the repository. At most :data:`MAX_LOCATIONS` per run, each once. In the
events (:func:`run_locations`) paths are relative to the repository's top level.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentci import jsontext
from agentci.change.patch import find_repo_root
from agentci.events.verify_events import VerifyLocation
from agentci.verify.run import VerifyRun

MAX_LOCATIONS = 1000

_TEXT = re.compile(
    r"^(?P<file>[^\s:][^:\n]*?):(?P<line>\d+)(?::(?P<col>\d+))?:\s*(?P<msg>\S.*)$", re.MULTILINE
)
_LEADING_CODE = re.compile(r"^(?P<code>[A-Z]{1,4}\d{2,5})\b:?\s*(?:\[\*\]\s*)?")
_MYPY_TAIL = re.compile(r"(?<!\s)\s+\[(?P<code>[a-z][a-z0-9-]*)\]$")  # from a run's start: linear
_LEVEL = re.compile(r"^(?P<level>error|warning|note|info):\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Location:
    """One failure at one place of the workspace."""

    file: str  # workspace-relative, with /
    line: int
    message: str
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    rule: str = ""
    tool: str = "verify"
    level: str = "error"  # error | warning


class _Workspace:
    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))

    def relative(self, name: str) -> str | None:
        """``name`` as a workspace-relative path of an existing file, or None."""
        name = name.strip()
        if not name or "\0" in name:
            return None
        path = Path(name)
        full = path if path.is_absolute() else self.root / path
        try:
            real = Path(os.path.realpath(full))
            rel = real.relative_to(self.root)
        except (OSError, ValueError):
            return None
        return rel.as_posix() if real.is_file() and rel.parts else None


def find_locations(run: VerifyRun, workspace: Path) -> list[Location]:
    """The failures of ``run`` that have a place in ``workspace`` (see the module docstring)."""
    ws = _Workspace(workspace)
    found: list[Location]
    if run.tests:
        found = _from_tests(run, ws)
    else:
        found = _from_json(run.output, ws) or _from_text(run.output, ws, tool_name(run.command))
    seen: set[tuple[str, int, str]] = set()
    out = []
    for loc in found:
        key = (loc.file, loc.line, loc.message)
        if key not in seen:
            seen.add(key)
            out.append(loc)
        if len(out) >= MAX_LOCATIONS:
            break
    return out


def _from_tests(run: VerifyRun, ws: _Workspace) -> list[Location]:
    tool = "pytest" if "pytest" in run.command else "junit"
    out = []
    for test in run.tests.values():
        if not test.bad:
            continue
        place = None
        for m in _TEXT.finditer(test.detail):
            rel = ws.relative(m.group("file"))
            if rel is not None:
                place = (rel, int(m.group("line")))
        if place is None:
            continue
        first = (test.message or test.detail).strip().splitlines()
        what = first[0] if first else test.outcome
        out.append(
            Location(
                place[0],
                place[1],
                f"{test.id} {test.outcome}: {what}",
                rule=test.outcome,
                tool=tool,
            )  # fmt: skip
        )
    return out


def _json_values(output: str) -> list[Any] | None:
    """The JSON documents of ``output``: one array (ruff) or one object per line (mypy)."""
    text = output.strip()
    start = text.find("[")
    if start >= 0 and (start == 0 or text[start - 1] == "\n"):
        try:
            value, _ = json.JSONDecoder().raw_decode(text[start:])
            if isinstance(value, list):
                return value
        except (ValueError, RecursionError):  # the tool printed "[[[[…" deeper than Python reads
            pass
    objects = []
    for line in text.splitlines():
        if line.startswith("{") and line.rstrip().endswith("}"):
            try:
                objects.append(jsontext.loads(line))
            except jsontext.NotJson:
                continue
    return objects or None


def _from_json(output: str, ws: _Workspace) -> list[Location] | None:
    values = _json_values(output)
    if values is None:
        return None
    out = []
    for v in values:
        if not isinstance(v, dict):
            continue
        if "filename" in v and isinstance(v.get("location"), dict):  # ruff
            rel = ws.relative(str(v["filename"]))
            start, end = v["location"], v.get("end_location") or {}
            if rel is None or not isinstance(start.get("row"), int):
                continue
            out.append(
                Location(rel, start["row"], str(v.get("message", "")), start.get("column"),
                         end.get("row"), end.get("column"), str(v.get("code") or ""), "ruff")
            )  # fmt: skip
        elif "file" in v and isinstance(v.get("line"), int) and "message" in v:  # mypy
            if v.get("severity") == "note":
                continue
            rel = ws.relative(str(v["file"]))
            if rel is None:
                continue
            column = v.get("column")
            out.append(
                Location(rel, v["line"], str(v["message"]),
                         column + 1 if isinstance(column, int) and column >= 0 else None,
                         rule=str(v.get("code") or ""), tool="mypy",
                         level="warning" if v.get("severity") == "warning" else "error")
            )  # fmt: skip
    return out if out else None


def tool_name(command: str) -> str:
    """The known tool a verify command runs (ruff, mypy, flake8, pylint, pytest), or verify."""
    for tool in ("ruff", "mypy", "flake8", "pylint", "pytest"):
        if re.search(rf"(?<![\w.-]){tool}(?![\w-])", command):
            return tool
    return "verify"


def _from_text(output: str, ws: _Workspace, tool: str) -> list[Location]:
    out = []
    for m in _TEXT.finditer(output):
        rel = ws.relative(m.group("file"))
        if rel is None:
            continue
        message = m.group("msg").strip()
        level = "error"
        lv = _LEVEL.match(message)
        if lv:
            if lv.group("level").lower() == "note":
                continue
            level = "warning" if lv.group("level").lower() == "warning" else "error"
            message = message[lv.end() :]
        rule = ""
        code = _LEADING_CODE.match(message)
        if code:
            rule, message = code.group("code"), message[code.end() :]
        else:
            tail = _MYPY_TAIL.search(message)
            if tail:
                rule, message = tail.group("code"), message[: tail.start()]
        column = int(m.group("col")) if m.group("col") else None
        out.append(Location(rel, int(m.group("line")), message.strip(), column, rule=rule,
                            tool=tool, level=level))  # fmt: skip
    return out


def run_locations(run: VerifyRun, workspace: Path) -> list[VerifyLocation]:
    """:func:`find_locations` of a failed run as event data (none for a run that passed), with
    paths relative to the repository's top level when the workspace is a folder inside one
    (annotations and code scanning name files from the repository root)."""
    if run.passed:
        return []

    root = Path(os.path.realpath(workspace))
    top = find_repo_root(root)
    prefix = root.relative_to(top).as_posix() + "/" if top and top != root else ""
    return [
        VerifyLocation(**{**dataclasses.asdict(loc), "file": prefix + loc.file})
        for loc in find_locations(run, workspace)
    ]
