"""``agentci run --prompt``: the built-in recipe, and the command line's fields on top of a recipe.

The fields (:class:`RecipeFields`) are put into the recipe's YAML data before it is validated, so
a wrong value is reported like a wrong key of the recipe (docs/prompts.md).
"""

from __future__ import annotations

import os
import re
import select
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentci.errors import InvalidInput

#: Where errors about the built-in recipe point.
BUILTIN_FILE = "<built-in recipe>"

#: The folder of the recipes agentci ships (``agentci pre-commit --recipe fix-lint``).
_PACKAGED = Path(__file__).resolve().parent.parent


def recipe_label(path: Path | None) -> str:
    """The recipe as the console and the outputs name it: its path, ``<built-in recipe>`` for
    ``--prompt``, and ``<built-in recipe NAME>`` for a recipe shipped inside agentci (its
    install path, often deep in a site-packages folder, says nothing to the user)."""
    if path is None:
        return BUILTIN_FILE
    if path.resolve().is_relative_to(_PACKAGED):
        return f"<built-in recipe {path.stem}>"
    return str(path)


BUILTIN_RECIPE = """\
version: 1
name: prompt
description: A prompt given on the command line (agentci run --prompt).
model: {name: gemini-2.5-flash}
policy: {mode: read_only}
budget: {max_turns: 50, max_wall_seconds: 1800}
"""

_ENDRAW = re.compile(r"\{%-?\s*endraw\s*-?%\}")


@dataclass
class RecipeFields:
    """Recipe fields given on the command line (None: not given)."""

    prompt: str | None = None
    model: str | None = None
    mode: str | None = None
    verify: str | None = None
    output_schema: Path | None = None  # relative to the working directory
    allow: list[str] | None = None  # --allow CMD: commands the model may also run

    def __bool__(self) -> bool:
        return any(v is not None for v in vars(self).values())


def literal_template(text: str) -> str:
    """A template that renders to ``text`` exactly: a prompt from the command line is not a
    template (a diff piped in may hold ``{{``)."""
    parts = _ENDRAW.split(text)
    marks = _ENDRAW.findall(text)
    out = "{% raw %}" + parts[0]
    for mark, part in zip(marks, parts[1:], strict=True):
        out += "{% endraw %}{{ " + repr(mark) + " }}{% raw %}" + part
    return out + "{% endraw %}"


def apply_fields(data: dict[str, Any], fields: RecipeFields, *, builtin: bool = False) -> None:
    """Put ``fields`` into a recipe's YAML data (``builtin``: the built-in recipe's defaults
    that follow from them)."""
    if fields.prompt is not None:
        if data.get("tasks"):
            raise InvalidInput(
                "--prompt replaces the recipe's prompt, but this recipe has tasks: "
                "change the task's prompt in the recipe instead"
            )
        data["prompt"] = literal_template(fields.prompt)
    if fields.model is not None:
        model = data.get("model")
        kept = {k: v for k, v in model.items() if k != "pricing"} if isinstance(model, dict) else {}
        data["model"] = {**kept, "name": model_from_flag(fields.model)}
        for task in data.get("tasks") or []:
            if isinstance(task, dict) and isinstance(task.get("model"), dict):
                task["model"] = {
                    k: v for k, v in task["model"].items() if k not in ("name", "pricing")
                }
    if fields.mode is not None:
        policy = _section(data, "policy")
        data["policy"] = {**policy, "mode": fields.mode}
    if fields.verify is not None:
        verify = _section(data, "verify")
        # the built-in recipe has no baseline: a prompt may ask for new work on a green build
        data["verify"] = {**verify, "command": fields.verify} | (
            {"baseline": False} if builtin else {}
        )
        for task in data.get("tasks") or []:
            if isinstance(task, dict) and isinstance(task.get("verify"), dict):
                task["verify"] = {**task["verify"], "command": fields.verify}
    allowed = ([fields.verify] if fields.verify is not None else []) + (fields.allow or [])
    if allowed:  # --verify CMD: the model may run the check it is judged by
        policy = _section(data, "policy")
        rules: list[Any] = policy["rules"] if isinstance(policy.get("rules"), list) else []
        extra = [
            {"tool": "run_shell_command", "command": command, "decision": "allow"}
            for command in allowed
        ]
        data["policy"] = {**policy, "rules": [*rules, *extra]}
    if fields.output_schema is not None:
        output = _section(data, "output")
        data["output"] = {**output, "schema": str(fields.output_schema.resolve())}
    if builtin:
        data["allow_no_changes"] = data["policy"]["mode"] == "read_only"


def model_from_flag(name: str) -> str:
    """``--model NAME``: the file of ``replay:FILE`` / ``scripted:FILE`` is relative to the
    working directory (as ``--output-schema``), not to the recipe's folder."""
    for prefix in ("replay:", "scripted:"):
        if name.startswith(prefix) and name != prefix:
            return prefix + str(Path(name.removeprefix(prefix)).resolve())
    return name


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return dict(value) if isinstance(value, dict) else {}


def piped_input(stdin: Any, wait: float = 1.0) -> str:
    """What is piped into agentci (``echo log | agentci run --prompt "why"``): a pipe's or a
    file's content; "" for a terminal, ``/dev/null``, or a pipe that stays silent for ``wait``
    seconds (a CI step's open stdin must not hold the run)."""
    try:
        fd = stdin.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):
        return ""
    if stat.S_ISREG(mode):
        return str(stdin.read())
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return ""
    ready, _, _ = select.select([fd], [], [], wait)
    return str(stdin.read()) if ready else ""


def with_piped_input(prompt: str, piped: str) -> str:
    """The prompt, then what was piped in (as ``gemini -p`` takes both)."""
    return f"{prompt}\n\n{piped}" if piped.strip() else prompt


def read_prompt(value: str, stdin: Any) -> str:
    """``--prompt VALUE``; ``-`` reads standard input. An empty prompt is bad input."""
    text = stdin.read() if value == "-" else value
    if not text.strip():
        where = "standard input" if value == "-" else "--prompt"
        raise InvalidInput(f"the prompt is empty ({where})")
    return text
