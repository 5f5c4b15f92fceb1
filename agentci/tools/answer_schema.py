"""Whether a recipe's ``output.schema`` can be the schema of a structured answer.

Checked when the recipe is (``agentci validate`` and ``run``, before anything runs), so this
module imports nothing of the tools: :mod:`agentci.tools.submit` is the tool that applies the
schema to the model's answers (docs/structured-output.md).
"""

from __future__ import annotations

from typing import Any


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` cannot be an answer's schema (None: it can)."""
    # deferred: jsonschema takes ~0.3 s to import; only a recipe's JSON Schemas need it
    from jsonschema import SchemaError, validators

    if not isinstance(schema, dict):
        return "a JSON Schema is a mapping"
    if schema.get("type") != "object":
        return "the schema's root must be `type: object` (the answer is a tool call's arguments)"
    cls = validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except SchemaError as err:
        return f"not a valid JSON Schema: {err.message}"
    ref = _unresolvable_ref(schema, cls.META_SCHEMA.get("$schema"))
    return f"not a valid JSON Schema: cannot resolve $ref {ref!r}" if ref is not None else None


def _unresolvable_ref(schema: dict[str, Any], dialect: str | None) -> str | None:
    """The first ``$ref`` of ``schema`` that points nowhere in the schema or the meta-schemas
    (nothing is fetched from the network), or None."""
    # deferred: jsonschema takes ~0.3 s to import; only a recipe's JSON Schemas need it
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

    # deferred: jsonschema takes ~0.3 s to import; only a recipe's JSON Schemas need it
    from referencing.exceptions import Unresolvable

    # deferred: jsonschema takes ~0.3 s to import; only a recipe's JSON Schemas need it
    from referencing.jsonschema import specification_with

    root = specification_with(dialect or "").create_resource(schema)
    todo = [(REGISTRY.resolver_with_root(root), root)]
    while todo:
        resolver, resource = todo.pop()
        ref = resource.contents.get("$ref") if isinstance(resource.contents, dict) else None
        if isinstance(ref, str):
            try:
                resolver.lookup(ref)
            except Unresolvable:
                return ref
        todo.extend((resolver.in_subresource(sub), sub) for sub in resource.subresources())
    return None
