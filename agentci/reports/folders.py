"""The folder of each task's outputs (``tasks/<name>/``): a recipe or task name as one folder name."""

from __future__ import annotations

import hashlib
import re

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
#: What a folder of outputs holds besides task folders (a batch's merged files, a run's
#: ``tasks/``): a name is never one of these, in any case.
RESERVED_NAMES = frozenset(
    name.lower()
    for name in (
        "events.jsonl", "patch.diff", "junit.xml", "result.json", "output.json", "summary.md",
        "report.html", "sarif.json", "history.jsonl", "tasks", ".gitignore", ".agentci-out",
    )
)  # fmt: skip


def task_dir_name(name: str) -> str:
    """A recipe or task name as one folder name, different for different names: a name of
    letters, digits, ``_.-`` that starts with a letter or digit is kept as it is (unless it is
    one of :data:`RESERVED_NAMES`); any other becomes ``_<safe name>-<8 hex digits of its
    sha256>`` (plain names never start with ``_``, so the two kinds never meet)."""
    if _PLAIN_NAME.fullmatch(name) and name.lower() not in RESERVED_NAMES:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"_{_SAFE_NAME.sub('_', name)[:80]}-{digest}"
