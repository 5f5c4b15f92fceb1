"""``agentci run --resume OUT``: what an earlier run left, read back, and what may go on from it.

An earlier run's output folder holds, per task, the conversation (``history.jsonl``), the patch,
``result.json`` with the reason it stopped, its totals and its resume fingerprint (the model, the
hashes of the tool declarations, system prompt and recipe, the base commit and the trees before
and after the agent). The folder may be a downloaded artifact: it is data (docs/architecture.md,
the host side), read through :mod:`agentci.workspace_io` — beneath the folder, no link followed,
sizes capped — and every problem is a :class:`ResumeRefused` naming the folder.

What happens to each task of the recipe (:func:`load_resume`):

* ``success`` / ``verify_failed``: kept as it was, not run again (:attr:`ResumePoint.kept`);
* ``budget_exhausted`` / ``cancelled`` / ``provider_unavailable``: continued from its last
  complete turn with fresh budgets (:attr:`ResumePoint.history` non-empty);
* any other end, or a task that never reached the model: run again from the start.

A task's outputs are read where the earlier run wrote them (its own one-task or
``tasks/<name>/`` layout). A resumed run that stopped before it went on left the earlier end
in its outputs (``resume.carried``), so it is read as that end. The folder resumed from is
never moved or deleted by the run (:func:`refuse_overwriting`).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentci import jsontext
from agentci.change.snapshot import find_repo_dirs, head_commit
from agentci.errors import InvalidInput
from agentci.gitenv import run_git
from agentci.outcome import Status
from agentci.providers.base import Message, ToolSpec
from agentci.providers.history import complete_turns, message_from_dict
from agentci.reports.folders import task_dir_name
from agentci.reports.redact import MASK
from agentci.spec import TaskSpec
from agentci.usage import Usage
from agentci.workspace_io import UnsafePath, read_bytes, writes

MAX_RESULT_BYTES = 16 * 1024 * 1024
MAX_HISTORY_BYTES = 256 * 1024 * 1024
MAX_PATCH_BYTES = 256 * 1024 * 1024

#: Ends that are continued from the last complete turn.
CONTINUED = frozenset({Status.budget_exhausted, Status.cancelled, Status.provider_unavailable})
#: Ends that are kept as they were: the work was judged.
KEPT = frozenset({Status.success, Status.verify_failed})


class ResumeRefused(InvalidInput):
    """The earlier outputs cannot be resumed here (the message says why and how to fix it)."""


@dataclass
class Totals:
    """What a task spent: turns, tool calls, usage."""

    turns: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)

    def __add__(self, other: Totals) -> Totals:
        return Totals(
            self.turns + other.turns, self.tool_calls + other.tool_calls, self.usage + other.usage
        )

    def as_dict(self) -> dict[str, Any]:
        return {"turns": self.turns, "tool_calls": self.tool_calls,
                "usage": self.usage.model_dump(), "cost_usd": self.usage.cost_usd}  # fmt: skip


@dataclass
class ResumePoint:
    """One task of the earlier run, as far as it went."""

    source: Path  # the earlier output folder
    status: Status
    entry: dict[str, Any]  # its result.json task entry
    history: list[Message]  # up to the last complete turn ([]: nothing to continue)
    dropped: int  # messages dropped (a half turn)
    patch: str
    fingerprint: dict[str, Any]
    previous: Totals  # every earlier run of the task, summed
    force: bool = False
    masked: int = 0  # values the history shows masked (``***``): not what the model saw
    folder: str = "."  # where in ``source`` the earlier run wrote the task's outputs

    @property
    def kept(self) -> bool:
        return self.status in KEPT

    @property
    def continued(self) -> bool:
        return self.status in CONTINUED and bool(self.history)


def _read(folder: Path, rel: str, cap: int) -> bytes | None:
    if not os.path.lexists(folder / rel):
        return None
    try:
        return read_bytes(folder, rel, cap)
    except UnsafePath as err:
        raise ResumeRefused(f"--resume {folder}: {rel}: {err}") from None


def _json(folder: Path, rel: str) -> dict[str, Any]:
    raw = _read(folder, rel, MAX_RESULT_BYTES)
    if raw is None:
        raise ResumeRefused(
            f"--resume {folder}: no {rel}: not the output folder of an agentci run "
            "(give the folder the earlier run wrote, e.g. .agentci/out, or its .prev)"
        )
    try:
        data = jsontext.loads(raw)
    except jsontext.NotJson as err:
        raise ResumeRefused(f"--resume {folder}: {rel} is not JSON ({err})") from None
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        raise ResumeRefused(f"--resume {folder}: {rel} is not a result.json of agentci")
    return data


def _history(folder: Path, rel: str) -> list[Message]:
    raw = _read(folder, rel, MAX_HISTORY_BYTES)
    if raw is None:
        return []
    messages = []
    for n, line in enumerate(raw.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            messages.append(message_from_dict(json.loads(line)))
        except ValueError as err:  # json.JSONDecodeError is one
            raise ResumeRefused(f"--resume {folder}: {rel}:{n}: {err}") from None
    return messages


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _totals(entry: dict[str, Any]) -> Totals:
    """The task's totals over every run so far (a resumed run's entry carries them)."""
    resume = _dict(entry.get("resume"))
    block = resume.get("all_runs")
    src = block if isinstance(block, dict) else entry
    usage = _dict(src.get("usage"))
    known = {k: v for k, v in usage.items() if k in Usage.model_fields}
    try:
        parsed = Usage.model_validate(known)
    except ValueError:
        parsed = Usage()
    turns, calls = src.get("turns", 0), src.get("tool_calls", 0)
    return Totals(
        turns if isinstance(turns, int) else 0, calls if isinstance(calls, int) else 0, parsed
    )


def load_resume(source: Path, plans: list[TaskSpec], *, force: bool) -> dict[str, ResumePoint]:
    """Each planned task's :class:`ResumePoint`, by name (tasks the earlier run did not have
    run from the start). Raises :class:`ResumeRefused`."""
    source = Path(source)
    if not source.is_dir():
        raise ResumeRefused(f"--resume {source}: no such folder")
    result = _json(source, "result.json")
    entries = {t.get("name"): t for t in result["tasks"] if isinstance(t, dict)}
    several = len(result["tasks"]) > 1
    points: dict[str, ResumePoint] = {}
    for plan in plans:
        entry = entries.get(plan.name)
        if entry is None:
            continue
        try:
            status = Status(entry.get("status"))
        except ValueError:
            raise ResumeRefused(
                f"--resume {source}: task {plan.name!r} has an unknown status"
            ) from None
        resume = _dict(entry.get("resume"))
        earlier = resume.get("resumed_status")
        carried = resume.get("refused") or resume.get("carried")
        if carried and (earlier in CONTINUED or earlier in KEPT):  # it stopped before going on
            status = Status(earlier)  # the end it did not go on from
        # where the earlier run wrote the task's outputs: its own layout, not this recipe's
        folder = f"tasks/{task_dir_name(plan.name)}" if several else "."
        history = _history(source, f"{folder}/history.jsonl")
        kept = complete_turns(history)
        patch = _read(source, f"{folder}/patch.diff", MAX_PATCH_BYTES) or b""
        fingerprint = resume.get("fingerprint")
        points[plan.name] = ResumePoint(
            source=source, status=status, entry=entry, history=kept,
            dropped=len(history) - len(kept), patch=patch.decode("utf-8", "surrogateescape"),
            fingerprint=fingerprint if isinstance(fingerprint, dict) else {},
            previous=_totals(entry), force=force, masked=masked_values(kept), folder=folder,
        )  # fmt: skip
    return points


def masked_values(history: list[Message]) -> int:
    """How many values ``history`` shows masked (``***``, outputs.md): the model saw them, the
    resumed conversation does not."""
    count = 0
    for message in history:
        for part in message.parts:
            for value in vars(part).values():
                if isinstance(value, str):
                    count += value.count(MASK)
                elif isinstance(value, dict):
                    count += json.dumps(value, ensure_ascii=False).count(MASK)
    return count


def refuse_overwriting(source: Path, out_dir: Path) -> None:
    """Refuse a run whose output folder would replace the folder it resumes from: a run moves
    a non-empty ``out_dir`` aside to ``<out_dir>.prev``, deleting what was there
    (:func:`agentci.reports.outdir.prepare_out_dir`)."""
    out = Path(out_dir).absolute()
    prev = out.with_name(out.name + ".prev")
    if not (out.is_dir() and any(out.iterdir())):
        return  # nothing is moved aside
    if prev.exists() and Path(source).resolve() == prev.resolve():
        raise ResumeRefused(
            f"--resume {source}: this run would move its output folder {out_dir} aside to "
            f"{prev.name}, replacing the folder it resumes from; give another output folder "
            f"(--out DIR), or resume from {out_dir} instead if it holds the run to go on from"
        )


def digest(value: Any) -> str:
    """sha256 of ``value`` as canonical JSON (or of the bytes / text given)."""
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, str):
        data = value.encode("utf-8", "surrogateescape")
    else:
        data = json.dumps(value, sort_keys=True, default=str).encode()
    return hashlib.sha256(data).hexdigest()


def tools_digest(tools: list[ToolSpec]) -> str:
    """The tool declarations the model saw, as one hash."""
    return digest([[t.name, t.description, t.parameters] for t in tools])


def check_in_place(points: dict[str, ResumePoint], plans: list[TaskSpec], base_dir: Path,
                   override: Path | None) -> None:  # fmt: skip
    """A task that edits its workspace in place (``isolation: none``) and is continued needs
    that workspace at the earlier base commit, with nothing uncommitted: the patch is put on
    it, and nothing of the user's may be lost. Raises :class:`ResumeRefused` saying how to fix."""
    for plan in plans:
        point = points.get(plan.name)
        if point is None or not point.continued or plan.workspace.isolation != "none":
            continue
        path = override if override is not None else Path(plan.workspace.path)
        workspace = (base_dir / path).resolve()
        if not workspace.is_dir():
            continue  # the task says so itself
        base = point.fingerprint.get("base_commit")
        head = head_commit(workspace)
        if base and head and head != base and not point.force:
            raise ResumeRefused(
                f"--resume: task {plan.name!r} started from commit {base[:12]}, but {workspace} "
                f"is at {head[:12]}: check out {base[:12]} (git checkout {base[:12]}) and run "
                "again, or give --resume-force to go on from this commit anyway"
            )
        found = find_repo_dirs(workspace)
        if found is None:
            continue
        top, git_dir = found
        rel = workspace.relative_to(top).as_posix() if workspace != top else "."
        # --ignore-submodules=dirty: git runs nothing inside a submodule (its config's filters)
        status = run_git(["status", "--porcelain", "--untracked-files=normal",
                          "--ignore-submodules=dirty", "--", rel,
                          f":(exclude){rel}/.agentci"], cwd=top, repo=git_dir, timeout=60)  # fmt: skip
        dirty = status.stdout.decode(errors="replace").splitlines()
        if status.returncode == 0 and dirty:
            shown = ", ".join(line[3:] for line in dirty[:5])
            more = f" … and {len(dirty) - 5} more" if len(dirty) > 5 else ""
            raise ResumeRefused(
                f"--resume: {workspace} has uncommitted changes ({shown}{more}); resume puts "
                "the earlier patch on a clean checkout of its base commit. If they are the "
                "earlier run's changes (isolation: none edits in place), discard them "
                "(git stash -u, or git checkout -- . && git clean -fd); if they are yours, "
                "commit or stash them first; then run again"
            )


def apply_patch(workspace: Path, patch: str, scratch: Path) -> str:
    """Put the earlier ``patch`` on ``workspace`` with ``git apply`` (git pinned to an empty
    repository in ``scratch``: nothing in the workspace configures it, paths are the
    workspace's, nothing outside it or through a link is written). Returns git's complaint,
    "" when it applied."""
    if not patch.strip():
        return ""
    repo = scratch / "apply.git"
    run_git(["init", "-q", "--bare", str(repo)], cwd=scratch)
    diff = scratch / "earlier.patch"
    diff.write_text(patch, encoding="utf-8", errors="surrogateescape")
    writes.note(workspace)  # agentci writes the workspace: older snapshots are stale
    out = run_git(["apply", "--whitespace=nowarn", str(diff)], cwd=workspace, repo=repo,
                  timeout=300)  # fmt: skip
    if out.returncode != 0:
        return out.stderr.decode(errors="replace").strip() or f"git apply exited {out.returncode}"
    return ""


def changes(old: dict[str, Any], new: dict[str, Any], keys: tuple[str, ...]) -> list[str]:
    """What differs between two fingerprints, in words (only keys the old one has)."""
    words = {
        "model": "the model", "tools": "the tool declarations", "system": "the system prompt",
        "recipe": "the recipe file", "base_tree": "the workspace files before the agent (the base)",
        "tree": "the workspace files after the earlier patch",
        "base_commit": "the commit the workspace starts from",
    }  # fmt: skip
    out = []
    for key in keys:
        if old.get(key) and new.get(key) and old[key] != new[key]:
            shown = f" ({old[key]} → {new[key]})" if key == "model" else ""
            if key == "base_commit":
                shown = f" ({old[key][:12]} → {new[key][:12]})"
            out.append(words.get(key, key) + shown)
    return out
