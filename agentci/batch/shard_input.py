"""Reading downloaded shard folders for ``agentci report merge``: untrusted input.

A shard folder comes from an artifact another job uploaded, so it is data, never a map of the
host (docs/architecture.md, the host side). Everything here goes through
:mod:`agentci.workspace_io`: files are opened beneath the folder, **no link is followed** (a
link, or a path through one, is skipped), only regular files are read, and sizes are capped.

* ``result.json`` (at most :data:`MAX_RESULT_BYTES`) must have the shape agentci writes: a task's
  ``status`` is a known one and its ``exit_code`` the one that status has (``success`` with exit
  1 is refused); a batch's ``tasks[].dir`` is a relative path inside the shard folder.
* a task folder is copied file by file (:func:`copy_tree`): links, FIFOs, devices and files over
  :data:`MAX_FILE_BYTES` are left out and named in the ``skipped`` list.

Every problem is :class:`~agentci.errors.InvalidInput` naming the folder, never a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from agentci import jsontext
from agentci.errors import InvalidInput
from agentci.outcome import EXIT_CODES, SIGNAL_EXIT_CODES, Status
from agentci.usage import ReportedUsage
from agentci.workspace_io import UnsafePath, open_beneath, read_bytes

MAX_RESULT_BYTES = 16 * 1024 * 1024
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 16  # folders below a task folder (agentci writes two or three)


class _Branch(BaseModel):
    name: str
    commit: str


class _Extra(BaseModel):
    model_config = ConfigDict(extra="allow")
    branch: _Branch | None = None


class _Task(BaseModel):
    """The fields of a task entry that the merge reads (others are kept as they are)."""

    model_config = ConfigDict(extra="allow")
    name: str | None = None
    status: Status
    exit_code: int
    reason: str = ""
    turns: int = 0
    tool_calls: int = 0
    usage: ReportedUsage | None = None
    changed_files: list[Any] = []
    extra: _Extra | None = None


class _Run(BaseModel):
    model_config = ConfigDict(extra="allow")
    recipe_name: str | None = None
    kind: str | None = None
    status: Status
    exit_code: int
    started_at: str = ""
    duration_ms: int = 0
    tasks: list[dict[str, Any]] = []


def _agree(status: Status, code: int) -> bool:
    if status is Status.no_changes:
        return code in (0, 1)
    if status is Status.cancelled:
        return code in SIGNAL_EXIT_CODES.values()
    return EXIT_CODES[status] == code


def _checked(model: type[BaseModel], data: Any, where: str) -> BaseModel:
    try:
        doc = model.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        at = ".".join(str(p) for p in first["loc"]) or "the document"
        raise InvalidInput(
            f"{where}: not a result.json of agentci ({at}: {first['msg']})"
        ) from None
    status, code = getattr(doc, "status"), getattr(doc, "exit_code")  # noqa: B009
    if not _agree(status, code):
        raise InvalidInput(
            f"{where}: status {status.value} with exit code {code} do not agree "
            "(not a result.json of agentci)"
        )
    return doc


def read_result(folder: Path, rel: str = ".") -> dict[str, Any]:
    """The result.json of ``rel`` below the shard ``folder``, checked (module doc)."""
    where = str(folder if rel == "." else folder / rel)
    try:
        raw = read_bytes(folder, f"{rel}/result.json", MAX_RESULT_BYTES)
        data = jsontext.loads(raw)
    except UnsafePath as err:
        raise InvalidInput(f"{where}: no readable result.json ({err})") from None
    except jsontext.NotJson as err:
        raise InvalidInput(f"{where}: result.json is not JSON ({err})") from None
    run = _checked(_Run, data, where)
    assert isinstance(run, _Run)
    if run.kind != "batch":  # a batch lists folders; each one's own result.json is checked
        for task in run.tasks:
            _checked(_Task, task, where)
    return dict(data)


def task_dir(folder: Path, entry: Any) -> str:
    """A batch entry's ``dir``: a relative path inside ``folder`` (no ``..``, no link)."""
    rel = entry.get("dir") if isinstance(entry, dict) else None
    if not isinstance(rel, str) or not rel or "\0" in rel:
        raise InvalidInput(f"{folder}: result.json lists a task without a folder (`dir`)")
    parts = rel.split("/")
    if os.path.isabs(rel) or ".." in parts:
        raise InvalidInput(f"{folder}: a task folder outside the shard folder: {rel!r}")
    try:
        os.close(open_beneath(folder, rel, os.O_RDONLY | os.O_DIRECTORY))
    except UnsafePath as err:
        raise InvalidInput(f"{folder}: task folder {rel!r}: {err}") from None
    return rel


def copy_tree(folder: Path, rel: str, target: Path, skipped: list[str], depth: int = 0) -> None:
    """Copy the regular files below ``folder/rel`` to ``target``, following no link; what is
    left out goes to ``skipped`` (``path: why``)."""
    try:
        fd = open_beneath(folder, rel, os.O_RDONLY | os.O_DIRECTORY)
    except UnsafePath as err:
        skipped.append(f"{folder / rel}: {err}")
        return
    try:
        entries = sorted((e.name, e.is_dir(follow_symlinks=False)) for e in os.scandir(fd))
    finally:
        os.close(fd)
    target.mkdir(parents=True, exist_ok=True)
    for name, is_dir in entries:
        sub = f"{rel}/{name}"
        if is_dir:
            if depth >= MAX_DEPTH:
                skipped.append(f"{folder / sub}: nested more than {MAX_DEPTH} folders deep")
            else:
                copy_tree(folder, sub, target / name, skipped, depth + 1)
            continue
        try:
            data = read_bytes(folder, sub, MAX_FILE_BYTES)
        except UnsafePath as err:
            skipped.append(f"{folder / sub}: {err}")
            continue
        (target / name).write_bytes(data)
