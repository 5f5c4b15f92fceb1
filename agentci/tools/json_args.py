"""Arguments described by a JSON Schema (MCP and command tools) as the pydantic model the
scheduler validates with.

Built-in tools declare their arguments as pydantic models; an MCP server or a recipe author
declares them as a JSON Schema. :func:`schema_args` makes a model that accepts any object and
checks it against the schema with ``jsonschema`` (every error named by its path), so these
calls go through the same validation step as the built-in tools' ones.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

#: Errors listed in one tool error at most.
MAX_ERRORS = 5


class SchemaArgs(BaseModel):
    """Arguments checked against a JSON Schema (the model :func:`schema_args` makes)."""

    model_config = ConfigDict(extra="allow")

    def values(self) -> dict[str, Any]:
        """The arguments as the model sent them."""
        return dict(self.__pydantic_extra__ or {})


def _messages(schema: dict[str, Any], data: Any) -> list[str]:
    # deferred: jsonschema takes ~0.3 s to import; only a recipe's JSON Schemas need it
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    out = []
    for err in errors[:MAX_ERRORS]:
        where = ".".join(str(p) for p in err.absolute_path) or "arguments"
        out.append(f"{where}: {err.message}")
    if len(errors) > MAX_ERRORS:
        out.append(f"and {len(errors) - MAX_ERRORS} more")
    return out


def schema_args(schema: dict[str, Any], title: str) -> type[SchemaArgs]:
    """A :class:`SchemaArgs` model for ``schema`` (already checked to be a valid schema)."""
    frozen = dict(schema)

    class Args(SchemaArgs):
        @model_validator(mode="before")
        @classmethod
        def _check(cls, data: Any) -> Any:
            problems = _messages(frozen, data)
            if problems:
                raise ValueError("; ".join(problems))
            return data

    Args.__name__ = Args.__qualname__ = title
    return Args
