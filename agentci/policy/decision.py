"""Policy rules and decisions: what a recipe rule matches, and what the engine answers.

:class:`Decision` is the engine's answer for one tool call; :class:`CompiledRule` is a recipe
rule ready to match tool names, paths and command words (see :mod:`agentci.policy.rules`).
"""

from __future__ import annotations

import fnmatch
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from agentci.policy import shell_parse as sp
from agentci.policy.paths import anchored
from agentci.policy.shell_words import GlobWord
from agentci.recipe.policy_config import Rule


@dataclass(frozen=True)
class Decision:
    """A policy decision: ``decision``, the ``rule`` that decided, and the ``reason``.

    ``env``: variables an allowed command must run with (git pinned to the workspace's
    repository, :mod:`agentci.policy.gitpin`). ``confine``: the command line is made only of
    built-in read-only commands, so the sandbox shows it the system's folders and the
    workspace, not the host's file system (:mod:`agentci.policy.confined`).
    """

    decision: Literal["allow", "deny"]
    rule: str
    reason: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    confine: bool = False

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"


def allow(
    rule: str, reason: str = "", env: Mapping[str, str] | None = None, *, confine: bool = False
) -> Decision:
    """An allow decision by ``rule`` (the command to run with ``env`` added, in the confined
    sandbox with ``confine``)."""
    return Decision("allow", rule, reason, dict(env or {}), confine)


def deny(rule: str, reason: str) -> Decision:
    """A deny decision by ``rule``, with the reason the model is told."""
    return Decision("deny", rule, reason)


@dataclass
class CompiledRule:
    """A recipe rule, numbered, with its command's words and shell shapes."""

    index: int
    rule: Rule
    words: list[str] | None
    shapes: frozenset[str]

    @property
    def label(self) -> str:
        r = self.rule
        what = r.command or (r.path if isinstance(r.path, str) else ", ".join(r.path or []))
        tools = r.tool if isinstance(r.tool, str) else ",".join(r.tool)
        return f"rules[{self.index}]: {r.decision} {tools}" + (f" {what!r}" if what else "")

    def tool_matches(self, name: str) -> bool:
        tools = [self.rule.tool] if isinstance(self.rule.tool, str) else self.rule.tool
        return any(fnmatch.fnmatchcase(name, t) for t in tools)

    def path_matches(self, rel: str) -> bool:
        globs = [self.rule.path] if isinstance(self.rule.path, str) else self.rule.path or []
        return bool(anchored(globs).match_file(rel))


def words_prefix(rule_words: Sequence[str], words: Sequence[str | None]) -> bool:
    """Whether the command's words start with the rule's words (all known at parse time)."""
    return len(words) >= len(rule_words) and all(
        w is not None and w == r for r, w in zip(rule_words, words, strict=False)
    )


def compile_rule(index: int, rule: Rule) -> CompiledRule:
    """A recipe rule ready to match: its command split into words and its shell shapes."""
    words: list[str] | None = None
    shapes: frozenset[str] = frozenset()
    if rule.command is not None:
        try:
            words = shlex.split(rule.command)
        except ValueError:
            words = rule.command.split()
        if words:
            words[0] = words[0].rsplit("/", 1)[-1] if words[0].startswith("/") else words[0]
        shapes = frozenset(sp.analyze(rule.command).shapes)
    return CompiledRule(index, rule, words, shapes)


def deny_matches(rule_words: Sequence[str], words: Sequence[str | None], open_args: bool) -> bool:
    """Whether a deny rule's words could be the command's: a word that expands at run time
    matches any rule word, a pattern the rule words it matches, and under ``xargs`` missing
    words may come from its input."""
    for i, r in enumerate(rule_words):
        if i >= len(words):
            return open_args
        w = words[i]
        if isinstance(w, GlobWord) and fnmatch.fnmatchcase(r, w):
            continue
        if w is not None and w != r:
            return False
    return True


def raw_equal(rule_command: str, command: str) -> bool:
    """A shape rule allows exactly its own command line (whitespace aside), nothing more."""
    return " ".join(rule_command.split()) == " ".join(command.split())
