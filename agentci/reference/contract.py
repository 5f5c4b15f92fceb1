"""The event contract as data: ``tests/events/event_contract.json``, the snapshot the event
contract test compares the union with (types, fields, defaults, the warning kinds)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from agentci.reference.events_doc import event_models
from agentci.reference.type_text import type_name

CONTRACT = Path("tests/events/event_contract.json")
"""The stored snapshot of the event contract (:func:`event_contract`), in the checkout."""


def _default(field: Any) -> Any:
    if field.default_factory is not None:
        made = field.default_factory()
        return made.model_dump() if isinstance(made, BaseModel) else made
    return field.default


def _nested_models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _nested_models(arg)]


def _contract_fields(model: type[BaseModel], skip: set[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        if name in skip:
            continue
        entry: dict[str, Any] = {"type": type_name(field.annotation, " | ")}
        if get_origin(field.annotation) is Literal:  # one value a line: a new kind shows alone
            entry = {"one_of": list(get_args(field.annotation))}
        if field.is_required():
            entry["required"] = True
        else:
            entry["default"] = _default(field)
        out[name] = entry
    return out


def event_contract(models: list[type[BaseModel]] | None = None) -> dict[str, Any]:
    """The JSONL contract as data: every event ``type`` of the union (in its order) with its
    fields' types and defaults, and the models nested in them. Stored in
    ``tests/events/event_contract.json`` (see :data:`CONTRACT`): a change to an event shows
    there, in review, and tests/events/test_event_contract.py fails until it is regenerated."""
    models = event_models() if models is None else models
    common = {"v", "seq", "ts", "run_id", "task", "type"}
    events: dict[str, Any] = {}
    nested: dict[str, type[BaseModel]] = {}
    for model in models:
        events[model.model_fields["type"].default] = _contract_fields(model, common)
        todo = [m for f in model.model_fields.values() for m in _nested_models(f.annotation)]
        while todo:
            found = todo.pop()
            if found.__name__ not in nested:
                nested[found.__name__] = found
                todo += [
                    m for f in found.model_fields.values() for m in _nested_models(f.annotation)
                ]
    return {
        "v": 1,
        "common": sorted(common - {"type"}),
        "events": events,
        "models": {name: _contract_fields(nested[name], set()) for name in sorted(nested)},
    }


def contract_json(models: list[type[BaseModel]] | None = None) -> str:
    """:func:`event_contract` as the text of the stored snapshot."""
    return json.dumps(event_contract(models), indent=1, ensure_ascii=False) + "\n"
