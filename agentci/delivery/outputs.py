"""The Action's outputs (``status``, ``exit-code``, paths, ``changed-files``, ...) from a run's
output folder, written to ``$GITHUB_OUTPUT``; and the job summary's warning when the run had no
sandbox.

Run by action.yml as ``python -I -m agentci.delivery outputs`` from a folder outside the
workspace: the output folder is the agent's workspace's, so its files are read as data only
(:mod:`agentci.delivery.out_folder`: no link followed on any component, no FIFO or device
opened, sizes bounded), and no module of the workspace is ever imported. An output folder that
is a link, passes through one or lacks agentci's marker is not read at all: the outputs say
``out-dir-ok=false`` (the Action then uploads no artifact) and the step warns.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentci import jsontext
from agentci.delivery.out_folder import OutFolder, UnsafeOutFolder, out_folder

MAX_JSON = 64 * 1024 * 1024  # result.json, events.jsonl
SUMMARY_LIMIT = 60_000  # the summary output: GitHub's step outputs are 1 MB in all

FIX_HINT = (
    "The Action's sandbox step allows bubblewrap's user namespaces where it can (sudo); where "
    "it cannot, allow them before agentci: "
    "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` "
    "(see docs/github-action.md in agentci)."
)


#: git's C-style escapes for the bytes that have one (``quote_c_style``).
_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r",
            34: '\\"', 92: "\\\\"}  # fmt: skip


def quoted_path(name: str) -> str:
    """``name`` on one line of valid UTF-8, as git quotes a path (``git diff --name-only``):
    as it is, unless it holds a control character, ``"`` or ``\\``, or bytes that are not
    UTF-8 (a Latin-1 name reaches Python as lone surrogates); then in double quotes with C
    escapes (``\\n``, ``\\"``, ``\\\\``) and every other such byte, and every byte above
    0x7F, as ``\\ooo``."""
    try:
        raw = os.fsencode(name)
    except UnicodeEncodeError:  # a surrogate no file name decodes to (from a JSON escape)
        raw = name.encode("utf-8", "surrogatepass")
    try:
        raw.decode("utf-8")
        plain = not any(b < 0x20 or b in (0x22, 0x5C, 0x7F) for b in raw)
    except UnicodeDecodeError:
        plain = False
    if plain:
        return name
    parts = [_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in raw]
    return '"' + "".join(parts) + '"'


def _json(folder: OutFolder | None, name: str) -> Any:
    data = folder.read(name, MAX_JSON) if folder else None
    try:
        return jsontext.loads(data) if data is not None else None
    except jsontext.NotJson:
        return None


@dataclass
class RunOutputs:
    """What the Action tells the workflow about one run."""

    status: str
    exit_code: str
    changed: list[str]
    has_changes: bool
    summary: str
    output: str
    sarif: bool
    unsandboxed: str = ""  # the sandbox_unavailable event's message
    refused: str = ""  # agentci refused to run without a sandbox
    paths: dict[str, str] = field(default_factory=dict)
    unsafe: str = ""  # why the output folder was not read (a link on its path, no marker)


def collect(workspace: Path, out: str, code: str) -> RunOutputs:
    """Read the run's outputs in ``workspace / out`` (``out`` as the workflow gave it), or
    nothing when that folder is not agentci's (:func:`~agentci.delivery.out_folder.out_folder`)."""
    try:
        folder: OutFolder | None = out_folder(workspace, out)
        unsafe = ""
    except UnsafeOutFolder as err:
        folder, unsafe = None, str(err)
    result = _json(folder, "result.json")
    result = result if isinstance(result, dict) else {}
    files = result.get("changed_files")
    changed = [str(f) for f in files] if isinstance(files, list) else []
    unsandboxed = refused = ""
    events = (folder.read("events.jsonl", MAX_JSON) if folder else None) or b""
    for line in events.decode("utf-8", errors="replace").splitlines():
        try:
            event = jsontext.loads(line)
        except jsontext.NotJson:
            continue
        if not isinstance(event, dict):
            continue
        message = str(event.get("message", ""))
        if event.get("type") == "warning" and event.get("kind") == "sandbox_unavailable":
            unsandboxed = message
        if event.get("type") == "error" and "without a working sandbox" in message:
            refused = message
    summary_bytes = (
        folder.read("summary.md", SUMMARY_LIMIT * 4, cut=True) if folder else None
    ) or b""
    summary = summary_bytes[: SUMMARY_LIMIT * 4].decode("utf-8", errors="replace")
    if len(summary) > SUMMARY_LIMIT:
        summary = summary[:SUMMARY_LIMIT] + "\n\n… (cut: the whole summary is summary.md)\n"
    answer = result.get("output")
    status = result.get("status")
    return RunOutputs(
        status=status if isinstance(status, str) else "unknown",
        exit_code=code or str(result.get("exit_code", 70)),
        changed=changed,
        has_changes=bool(changed) or bool(folder and folder.has_data("patch.diff")),
        summary=summary,
        output="" if answer is None else jsontext.dumps(answer),
        sarif=folder is not None and folder.read("sarif.json", 0, cut=True) is not None,
        unsandboxed=unsandboxed,
        refused=refused,
        unsafe=unsafe,
        paths={
            name: str(Path(out) / file) if folder else ""
            for name, file in [
                ("patch", "patch.diff"),
                ("result", "result.json"),
                ("junit", "junit.xml"),
                ("summary-file", "summary.md"),
            ]
        },  # fmt: skip
    )


def github_output(run: RunOutputs) -> str:
    """The ``$GITHUB_OUTPUT`` lines (multi-line values in heredoc form, with a random
    delimiter the run's text cannot guess)."""
    delimiter = "agentci_" + secrets.token_hex(16)

    def block(name: str, value: str) -> str:
        return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"

    lines = [f"status={run.status}\n", f"exit-code={run.exit_code}\n"]
    lines.append(f"out-dir-ok={'false' if run.unsafe else 'true'}\n")
    lines += [f"{name}={path}\n" for name, path in run.paths.items()]
    lines.append(f"has-changes={'true' if run.has_changes else 'false'}\n")
    names = "".join(quoted_path(f) + "\n" for f in run.changed)  # one line each, always UTF-8
    lines.append(f"changed-files<<{delimiter}\n" + names)
    lines.append(f"{delimiter}\n")
    lines.append(f"sandboxed={'false' if run.unsandboxed or run.refused else 'true'}\n")
    sarif = str(Path(run.paths["patch"]).with_name("sarif.json")) if run.sarif else ""
    lines.append(f"sarif={sarif}\n")
    lines.append(block("output", run.output))
    lines.append(block("summary", run.summary.rstrip("\n")))
    return "".join(lines)


def step_summary(run: RunOutputs) -> str:
    """What the job summary gets beyond agentci's own summary: a caution when agentci refused
    to run without its sandbox, a warning when it ran without one."""
    text = ""
    if run.refused:
        text += (
            "\n> [!CAUTION]\n"
            f"> **agentci refused to run without the sandbox**: {run.refused}.\n> {FIX_HINT}\n"
        )
    if run.unsandboxed:
        text += (
            "\n> [!WARNING]\n"
            f"> **This run was unsandboxed**: {run.unsandboxed}.\n"
            "> The model's commands ran without bubblewrap (no private /tmp, network and PID "
            f"namespace). {FIX_HINT}\n"
        )
    return text
