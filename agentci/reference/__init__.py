"""Generate the reference docs from the code, so they cannot drift from it.

* ``docs/tools.md`` — every tool's name, kind and arguments exactly as the model sees them
  (the function declarations of :mod:`agentci.tools.registry`);
* the event reference in ``docs/outputs.md`` (between ``<!-- events:begin -->`` and
  ``<!-- events:end -->``) — every event type of :data:`agentci.events.types.Event` and its
  fields;
* ``tests/events/event_contract.json`` — the same union as data (types, fields, defaults, the
  warning kinds), the snapshot the event contract test compares the union with;
* ``agentci/reports/templates/compiled/`` — report.html's template compiled to Python, with
  its stamp (:mod:`agentci.reports.page_template`).

``python -m agentci.reference`` rewrites these files in the checkout; ``--check`` only says
whether they are current (exit 1 when not). tests/test_reference_docs.py and
tests/events/test_event_contract.py run the check.

The parts: :mod:`~agentci.reference.tools_doc` (docs/tools.md),
:mod:`~agentci.reference.events_doc` (the event reference), :mod:`~agentci.reference.contract`
(the event contract as data) and :mod:`~agentci.reference.type_text` (types as the docs write
them).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentci.reference.contract import CONTRACT, contract_json, event_contract
from agentci.reference.events_doc import (
    EVENTS_BEGIN,
    EVENTS_END,
    event_models,
    events_markdown,
    with_events,
)
from agentci.reference.tools_doc import tools_markdown
from agentci.reference.type_text import type_name
from agentci.reports.page_template import COMPILED, compiled_files

ROOT = Path(__file__).resolve().parents[2]

__all__ = [
    "COMPILED",
    "CONTRACT",
    "EVENTS_BEGIN",
    "EVENTS_END",
    "ROOT",
    "contract_json",
    "event_contract",
    "event_models",
    "events_markdown",
    "generated",
    "main",
    "tools_markdown",
    "type_name",
    "with_events",
]


def generated(root: Path = ROOT) -> dict[Path, str]:
    """Each generated file and the text it should have."""
    outputs = root / "docs" / "outputs.md"
    return {
        root / "docs" / "tools.md": tools_markdown(),
        outputs: with_events(outputs.read_text(encoding="utf-8")),
        root / CONTRACT: contract_json(),
        **{
            root / COMPILED.relative_to(ROOT) / name: text
            for name, text in compiled_files().items()
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentci.reference", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only check; exit 1 when stale")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: this one)")
    ns = parser.parse_args(argv)
    stale = []
    for path, text in generated(ns.root).items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            stale.append(path)
            if not ns.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    verb = "is out of date" if ns.check else "written"
    for path in stale:
        print(f"{path.relative_to(ns.root)} {verb}", file=sys.stderr)
    return 1 if ns.check and stale else 0
