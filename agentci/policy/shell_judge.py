"""How the policy engine judges a shell command line (:mod:`agentci.policy.rules`).

For an ``exec`` access with a command, in order: containment of the folder it runs in; the
command must parse; deny rules (any sub-command, through wrappers; path deny rules see the
files it names and writes); redirections (outside the workspace, into protected paths, computed
at run time); shapes (``$(…)``, heredocs, ``eval`` …) unless a rule allows this exact line or
``yolo`` lets a visible one through; then every sub-command must be allowed, by a rule, by
``yolo``, or as a built-in read-only command (:mod:`agentci.policy.readonly`) that is not a
program of the workspace and sets no risky variable; read-only ``git`` is pinned to the
workspace's repository (:mod:`agentci.policy.gitpin`), a line made only of them runs in the
confined sandbox (:mod:`agentci.policy.confined`), and without a sandbox what could escape is
refused (:mod:`agentci.policy.unsandboxed`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from agentci.errors import ToolFailure
from agentci.policy import shell_parse as sp
from agentci.policy.command_forms import allow_form, deny_form
from agentci.policy.decision import (
    CompiledRule,
    Decision,
    allow,
    deny,
    deny_matches,
    raw_equal,
    words_prefix,
)
from agentci.policy.gitpin import Repo, command_dirs, judge
from agentci.policy.paths import Protected, resolve
from agentci.policy.program_path import workspace_program
from agentci.policy.readonly import why_not_read_only
from agentci.policy.unsandboxed import unsandboxed
from agentci.policy.wrappers import HARMLESS_VARS


class EngineView(Protocol):
    """What the shell judgement reads of the engine (:class:`~agentci.policy.rules.PolicyEngine`)."""

    mode: str
    workspace: Path
    rules: list[CompiledRule]
    protected: Protected
    repo: Repo | None
    search_path: str
    no_sandbox: str | None

    def workflows_allowed(self, tool: str = ...) -> bool: ...


def decide_shell(engine: EngineView, tool: str, command: str, where: str) -> Decision:
    """Decide one shell command line run in ``where`` (see the module doc)."""
    try:
        cwd = resolve(engine.workspace, where or ".").real
    except ToolFailure as exc:
        return deny("containment", str(exc))
    found = sp.analyze(command)
    if found.error:
        return deny("shell_parse", f"{found.error}; denied")
    rules = [r for r in engine.rules if r.tool_matches(tool)]
    # deny rules: any sub-command, through wrappers, with or without a path
    for r in rules:
        if r.rule.decision != "deny":
            continue
        if r.words is None and r.rule.path is None:
            return deny(r.label, r.rule.reason or f"denied by {r.label}")
        for c in found.commands:
            if r.words and deny_matches(r.words, deny_form(c.words), c.open_args):
                return deny(r.label, r.rule.reason or f"`{c.text}` is denied by {r.label}")
    hit = _path_rule_hit(engine, found, cwd, tool)
    if hit is not None:
        return hit
    # redirections (after a cd, a relative target could be anywhere)
    moves = any(c.name in ("cd", "pushd", "popd") for c in found.commands)
    for red in found.redirects:
        if moves and red.target is not None and not red.target.startswith("/"):
            return deny("shape:redirect", "a relative redirection after cd; use dir_path")
        verdict = _redirect(engine, red, cwd)
        if verdict is not None:
            return verdict
    # shapes
    shape_rules = [r for r in rules if r.rule.decision == "allow" and r.shapes]
    exact = next((r for r in shape_rules if raw_equal(r.rule.command or "", command)), None)
    for shape, text in found.shapes.items():
        if any(shape in r.shapes and raw_equal(r.rule.command or "", command) for r in shape_rules):
            continue
        if engine.mode == "yolo" and shape in sp.VISIBLE_SHAPES:
            continue
        what = text if shape == sp.HIDDEN else f"{shape.replace('_', ' ')} (`{text[:80]}`)"
        return deny(
            f"shape:{shape}",
            f"{what} is not allowed without a rule that allows this exact command",
        )
    if exact is not None:  # a rule written for this very shape allows the whole line
        refused = unsandboxed(
            found, [exact.label], engine.no_sandbox, cwd=cwd, workspace=engine.workspace
        )
        return refused or allow(exact.label)
    # allow: every sub-command
    deciding: list[str] = []
    bases = command_dirs(found, cwd) or [cwd]
    for c in found.commands:
        d = _allow_one(engine, c, rules, cwd, found.variables, bases)
        if not d.allowed:
            return d
        deciding.append(d.rule)
    if engine.mode == "read_only" and any(
        r.target not in ("/dev/null", "/dev/stdout", "/dev/stderr") for r in found.redirects
    ):
        return deny("mode:read_only", "output redirection writes a file in read_only mode")
    main = next((d for d in deciding if d.startswith("rules[")), None)
    refused = unsandboxed(found, deciding, engine.no_sandbox, cwd=cwd, workspace=engine.workspace)
    if refused is not None:
        return refused
    gits = [
        c
        for c, d in zip(found.commands, deciding, strict=True)
        if d == "read_only_command" and allow_form(c.words)[0] == "git"
    ]
    env: dict[str, str] = {}
    if gits:
        why, env = judge(found, cwd, gits, engine.workspace, engine.repo)
        if why is not None:
            return deny("read_only_git", f"`{gits[0].text[:120]}` is denied: {why}")
    # made only of built-in read-only commands: the sandbox shows it no host folder
    confine = bool(deciding) and all(d == "read_only_command" for d in deciding)
    rule = main or (deciding[0] if deciding else f"mode:{engine.mode}")
    return allow(rule, env=env, confine=confine)


def _allow_one(
    engine: EngineView,
    c: sp.SimpleCommand,
    rules: list[CompiledRule],
    cwd: Path,
    variables: set[str],
    bases: list[Path],
) -> Decision:
    for r in rules:
        if r.rule.decision != "allow" or r.shapes:
            continue
        if r.words is None and r.rule.path is None:
            return allow(r.label)
        if r.words and words_prefix(r.words, allow_form(c.words)):
            return allow(r.label)
    if engine.mode == "yolo":
        return allow("mode:yolo")
    why = why_not_read_only(
        allow_form(c.words),
        cwd=cwd,
        workspace=engine.workspace,
        open_args=c.open_args,
        bases=bases,
    )
    risky = sorted(v for v in {*c.env, *variables} if not HARMLESS_VARS.match(v))
    if why is None and risky:
        why = (
            f"it sets {', '.join(risky)} for the command, which may point it at a "
            "configuration that runs a program"
        )
    for name in [*c.wrappers, *allow_form(c.words)[:1]] if why is None else []:
        found = workspace_program(str(name), engine.search_path, bases, engine.workspace)
        if found is not None:
            why = f"`{name}` would run {found}, a program in the workspace (on PATH)"
            break
    if why is None:
        return allow("read_only_command")
    return deny(
        f"mode:{engine.mode}",
        f"`{c.text[:120]}` needs approval in {engine.mode} mode and no rule allows it "
        f"({why}); there is no human to ask in CI, so it is denied",
    )


def _path_rule_hit(engine: EngineView, found: sp.Analysis, cwd: Path, tool: str) -> Decision | None:
    """A path deny rule naming a file the command writes (redirection) or names.

    Rules for the shell tool see redirection targets and the words of every command;
    rules for ``write_file`` see redirection targets too (a redirection writes a file).
    """
    rules = [
        r
        for r in engine.rules
        if r.rule.decision == "deny" and r.rule.path is not None and r.words is None
    ]
    if not rules:
        return None
    bases = [cwd] + [
        cwd / str(c.words[1])
        for c in found.commands
        if c.name in ("cd", "pushd") and len(c.words) == 2 and c.words[1] is not None
    ]
    written = [red.target for red in found.redirects if red.target is not None]
    named = [
        w.split("=", 1)[1] if w.startswith("--") and "=" in w else w
        for c in found.commands
        for w in c.words[1:]
        if w is not None
    ]
    for r in rules:
        words = named + written if r.tool_matches(tool) else written
        if not (r.tool_matches(tool) or r.tool_matches("write_file")):
            continue
        for word in words:
            for rel in _rels(engine.workspace, word, bases):
                if r.path_matches(rel):
                    return deny(r.label, r.rule.reason or f"{rel} is denied by {r.label}")
    return None


def _rels(workspace: Path, word: str, bases: list[Path]) -> list[str]:
    """``word`` as a workspace path from each directory the command may be in."""
    rels = []
    for base in bases:
        try:
            rels.append(resolve(workspace, word, base=base).rel)
        except (ToolFailure, OSError, ValueError):
            continue
    return rels


def _redirect(engine: EngineView, red: sp.Redirect, cwd: Path) -> Decision | None:
    if red.target is None:
        return deny("shape:redirect", "redirection to a target computed at run time")
    if red.target in ("/dev/null", "/dev/stdout", "/dev/stderr"):
        return None
    if red.target.startswith("~"):
        return deny("containment", f"redirection to {red.target} is outside the workspace")
    try:
        target = resolve(engine.workspace, red.target, base=cwd)
    except ToolFailure as exc:
        return deny("containment", f"redirection: {exc}")
    why = engine.protected.why(
        target.real, target.rel, workflows_allowed=engine.workflows_allowed("run_shell_command")
    )
    if why:
        more = engine.protected.explain(why)
        return deny(
            f"protected:{why}", f"redirection writes {target.rel}, which is protected{more}"
        )
    return None
