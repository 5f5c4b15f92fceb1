"""The starter recipes ``agentci init`` writes, one per job kind.

Each is a complete, commented recipe (checked by ``agentci validate`` in the tests), shorter
than the ones in ``recipes/``: a verify command, a policy that lets the model run that command (with any arguments),
a budget, guards. ``{{ verify.… }}`` stays for agentci to render at run time; the choices made
on the command line are filled in here with :func:`render_starter`.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass


@dataclass(frozen=True)
class Starter:
    """One kind of job ``agentci init`` can set up."""

    name: str  # the recipe's name and file name
    summary: str  # one line for --help and the recipe's description
    verify: str  # the default verify command
    setup: str  # the workflow's default setup (the project's tools)
    body: str  # the recipe after its head; @VERIFY@, @RUNNER@, @ALLOW@ are filled in


_FIX_TESTS = """\
instructions: |
  Never edit, skip, delete or weaken a test to make it pass: fix the code under test.
  Keep the change minimal and in the style of the surrounding code.
prompt: |
  The test suite of this repository fails. Before you started, verify ran `{{ verify.command }}`:

  {{ verify.failures }}

  Find the root cause in the code and fix it. Run `{{ verify.command }}` to check your fix,
  then finish with a short summary of the cause and the fix.
workspace: {path: ., isolation: none}
verify:
  command: @VERIFY@@RUNNER@
  attempts: 3               # failures go back to the model up to twice more
  skip_if_passing: true     # already green: exit 0 at once, no tokens spent
policy:
  mode: auto_edit           # edits allowed; shell commands only where a rule allows them
  rules:
@ALLOW@    - {tool: run_shell_command, command: "git diff", decision: allow}
budget: {max_turns: 40, max_cost_usd: 1.0, max_wall_seconds: 1200}
guards:
  forbid_test_edits: ["tests/**", "test/**", "**/test_*.py", "**/*_test.py", "**/conftest.py"]
  max_changed_files: 10
  max_changed_lines: 400
"""

_FIX_CHECK = """\
instructions: |
  Fix the code itself. Never silence the tool (no ignore comments, no configuration changes).
prompt: |
  `{{ verify.command }}` reports problems:

  {{ verify.output }}

  Fix each one in the code. Run `{{ verify.command }}` to check, then finish with a short summary.
workspace: {path: ., isolation: none}
verify:
  command: @VERIFY@@RUNNER@
  attempts: 3
  skip_if_passing: true
policy:
  mode: auto_edit
  rules:
@ALLOW@budget: {max_turns: 30, max_cost_usd: 0.5, max_wall_seconds: 900}
guards:
  forbid_test_edits: [@CONFIG@]
  max_changed_files: 20
  max_changed_lines: 400
"""

STARTERS: dict[str, Starter] = {
    s.name: s
    for s in (
        Starter("fix-tests", "make the failing tests pass, without touching the tests",
                "python -m pytest -q", "python -m pip install -e . pytest", _FIX_TESTS),
        Starter("fix-lint", "fix what ruff reports, by editing the code",
                "ruff check --no-cache --output-format=concise .", "python -m pip install ruff",
                _FIX_CHECK.replace("@CONFIG@", '"pyproject.toml", "ruff.toml", ".ruff.toml"')),
        Starter("type-errors", "fix what mypy reports, without ignores",
                "mypy --no-error-summary --no-color-output .", "python -m pip install -e . mypy",
                _FIX_CHECK.replace("@CONFIG@", '"pyproject.toml", "mypy.ini", "setup.cfg"')),
    )
}  # fmt: skip


def _quoted(text: str) -> str:
    """A YAML scalar holding ``text`` exactly (a JSON string is valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def command_family(command: str) -> list[str]:
    """The rule prefixes that allow ``command`` however the model spells it: the program and its
    subcommand words, without the options and paths (``python -m pytest -q`` → ``python -m
    pytest`` and ``pytest``; ``ruff check --no-cache .`` → ``ruff check``); a prefix allows any
    arguments after it."""
    try:
        words = shlex.split(command)
    except ValueError:
        return [command]
    if len(words) >= 3 and words[0] in ("python", "python3") and words[1] == "-m":
        return [" ".join(words[:3]), words[2]]
    head = [words[0]] if words else [command]
    for word in words[1:]:
        if word.startswith("-") or "/" in word or "." in word or len(head) == 2:
            break
        head.append(word)
    family = [shlex.join(head)]
    if head == ["pytest"]:
        family.insert(0, "python -m pytest")
    return family


def _allow_rules(command: str) -> str:
    return "".join(
        f"    - {{tool: run_shell_command, command: {_quoted(prefix)}, decision: allow}}\n"
        for prefix in command_family(command)
    )


def render_starter(starter: Starter, *, model: str, verify: str | None) -> str:
    """The recipe text for ``starter`` with the chosen model and verify command. pytest gets
    ``runner: pytest`` (per-test results) when the command runs pytest."""
    command = verify or starter.verify
    runner = (
        "\n  runner: pytest            # per-test results" if "pytest" in command.split() else ""
    )
    head = (
        "# Written by `agentci init`. Run it locally: agentci run THIS_FILE\n"
        "# Reference: docs/ of agentci (recipes, policy, verify, outputs).\n"
        "version: 1\n"
        f"name: {starter.name}\n"
        f"description: {_quoted(starter.summary)}\n"
        f"model:\n  name: {_quoted(model)}\n  temperature: 0.2\n"
    )
    body = starter.body.replace("@VERIFY@@RUNNER@", _quoted(command) + runner)
    return head + body.replace("@ALLOW@", _allow_rules(command))
