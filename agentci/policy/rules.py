"""The policy engine: decides every tool call before it runs (headless: no "ask").

Order of judgement, first match wins:

1. containment — a path outside the workspace is denied;
2. protected paths — ``.git/**`` (and the real git dir), ``.agentci/**``, the recipe file,
   and ``.github/workflows/**`` unless an allow rule names it, are never written;
3. deny rules — a deny rule matching the call (for shell commands: matching *any*
   sub-command, seen through wrappers) denies it; deny beats allow;
4. shell shapes — a parse error, ``$(…)``, backticks, ``<(…)``, heredocs, ``eval``, a
   variable as the command, redirections outside the workspace … deny unless a rule
   allows that exact shape (``yolo`` lets the visible ones through: see docs/policy.md);
5. allow rules — for shell commands *every* sub-command must be allowed;
6. the mode's default: ``read_only`` reads, ``auto_edit`` reads and edits (plus built-in
   read-only commands for both), ``yolo`` everything.

A deny is returned to the model as the tool's error, with the reason. The engine judges what a
call touches (:class:`~agentci.policy.access.Access` values the tool declares), never the
tool's arguments or class: ``read``/``write`` a path (containment, protected paths, path
rules), ``exec`` a shell command in a folder (everything above), or ``exec`` something it cannot
see into (only a rule naming the tool, or ``yolo``, allows it).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from agentci.errors import ToolFailure
from agentci.policy import shell_parse as sp
from agentci.policy.access import UNDECLARED, Access
from agentci.policy.command_forms import allow_form, deny_form
from agentci.policy.decision import (
    CompiledRule,
    Decision,
    allow,
    compile_rule,
    deny,
    deny_matches,
    raw_equal,
    words_prefix,
)
from agentci.policy.gitpin import command_dirs, find_repo, judge
from agentci.policy.paths import Protected, resolve
from agentci.policy.program_path import workspace_program
from agentci.policy.readonly import why_not_read_only
from agentci.policy.unsandboxed import unsandboxed
from agentci.policy.wrappers import HARMLESS_VARS
from agentci.recipe.policy_config import Policy, Rule


class PolicyEngine:
    """Decides tool calls for one task. Build it with :meth:`from_recipe`."""

    def __init__(
        self,
        mode: str,
        rules: Sequence[Rule],
        *,
        workspace: Path,
        recipe_path: Path | None = None,
    ) -> None:
        self.mode = mode
        self.workspace = Path(os.path.realpath(workspace))
        self.rules = [compile_rule(i, r) for i, r in enumerate(rules)]
        self.protected = Protected(self.workspace, recipe_path=recipe_path)
        #: the repository the model's read-only git is pinned to (as found at the start)
        self.repo = find_repo(self.workspace)
        #: the tools' PATH: where a read-only command's name leads
        self.search_path = os.environ.get("PATH", os.defpath)
        #: why ``sandbox: auto`` runs without a sandbox (None: sandboxed, or ``sandbox: none``)
        self.no_sandbox: str | None = None

    @classmethod
    def from_recipe(
        cls, policy: Policy, *, workspace: Path, recipe_path: Path | None
    ) -> PolicyEngine:
        """The engine for a recipe's ``policy`` section."""
        return cls(policy.mode, policy.rules, workspace=workspace, recipe_path=recipe_path)

    def workflows_allowed(self, tool: str = "write_file") -> bool:
        """Whether an allow rule lets ``tool`` write ``.github/workflows/``."""
        return any(
            r.rule.decision == "allow"
            and r.rule.path
            and r.tool_matches(tool)
            and r.path_matches(".github/workflows/x")
            for r in self.rules
        )

    def sandbox_readonly(self) -> list[Path]:
        """Protected paths that exist, for the sandbox to mount read-only."""
        return self.protected.sandbox_readonly(
            workflows_allowed=self.workflows_allowed("run_shell_command")
        )

    # ---- deciding -------------------------------------------------------------------

    def decide(self, tool: str, accesses: Sequence[Access]) -> Decision:
        """Decide one call of ``tool`` from what it touches (its
        :meth:`~agentci.tools.base.Tool.accesses`): every access must be allowed, the first
        deny decides. A call that declares nothing is judged as :data:`UNDECLARED`."""
        done: list[Decision] = []
        for access in accesses or UNDECLARED:
            if access.kind != "exec":
                d = self._decide_file(tool, access)
            elif access.command is not None:
                d = self._decide_shell(tool, access.command, access.path)
            else:
                d = self._decide_exec(tool, access)
            if not d.allowed:
                return d
            done.append(d)
        return next((d for d in done if d.env), done[0])

    def _name_rules(self, tool: str, rel: str) -> Decision | None:
        """The first rule without a command for ``tool`` on ``rel``: deny rules first."""
        applicable = [r for r in self.rules if r.tool_matches(tool) and r.rule.command is None]
        for r in applicable:
            if r.rule.decision == "deny" and (r.rule.path is None or r.path_matches(rel)):
                return deny(r.label, r.rule.reason or f"denied by {r.label}")
        for r in applicable:
            if r.rule.decision == "allow" and (r.rule.path is None or r.path_matches(rel)):
                return allow(r.label, r.rule.reason)
        return None

    def _decide_file(self, tool: str, access: Access) -> Decision:
        try:
            target = resolve(self.workspace, access.path or ".")
        except ToolFailure as exc:
            return deny("containment", str(exc))
        rel = target.rel
        if access.kind == "write":
            why = self.protected.why(
                target.real, rel, workflows_allowed=self.workflows_allowed(tool)
            )
            if why:
                return deny(f"protected:{why}", f"{rel} is protected ({why}); never writable")
        by_rule = self._name_rules(tool, rel)
        if by_rule is not None:
            return by_rule
        if access.kind == "read" or self.mode in ("auto_edit", "yolo"):
            return allow(f"mode:{self.mode}")
        return deny(
            f"mode:{self.mode}",
            f"{tool} is not allowed in {self.mode} mode (no human to ask in CI)",
        )

    def _decide_exec(self, tool: str, access: Access) -> Decision:
        """A call that runs something agentci cannot read as a command line (an MCP or command
        tool, a tool that declares nothing): rules naming the tool (without ``command`` or
        ``path``, which only built-in tools have) decide, deny first; else only ``yolo``
        allows it."""
        try:
            resolve(self.workspace, access.path or ".")
        except ToolFailure as exc:
            return deny("containment", str(exc))
        rules = [
            r
            for r in self.rules
            if r.tool_matches(tool) and r.rule.command is None and r.rule.path is None
        ]
        for r in rules:
            if r.rule.decision == "deny":
                return deny(r.label, r.rule.reason or f"denied by {r.label}")
        for r in rules:
            if r.rule.decision == "allow":
                return allow(r.label, r.rule.reason)
        if self.mode == "yolo":
            return allow("mode:yolo")
        return deny(
            f"mode:{self.mode}",
            f"{tool} runs a program and no rule allows it in {self.mode} mode (no human "
            f"to ask in CI); a rule `{{tool: {tool}, decision: allow}}` would",
        )

    def _decide_shell(self, tool: str, command: str, where: str) -> Decision:
        try:
            cwd = resolve(self.workspace, where or ".").real
        except ToolFailure as exc:
            return deny("containment", str(exc))
        found = sp.analyze(command)
        if found.error:
            return deny("shell_parse", f"{found.error}; denied")
        rules = [r for r in self.rules if r.tool_matches(tool)]
        # deny rules: any sub-command, through wrappers, with or without a path
        for r in rules:
            if r.rule.decision != "deny":
                continue
            if r.words is None and r.rule.path is None:
                return deny(r.label, r.rule.reason or f"denied by {r.label}")
            for c in found.commands:
                if r.words and deny_matches(r.words, deny_form(c.words), c.open_args):
                    return deny(r.label, r.rule.reason or f"`{c.text}` is denied by {r.label}")
        hit = self._path_rule_hit(found, cwd, tool)
        if hit is not None:
            return hit
        # redirections (after a cd, a relative target could be anywhere)
        moves = any(c.name in ("cd", "pushd", "popd") for c in found.commands)
        for red in found.redirects:
            if moves and red.target is not None and not red.target.startswith("/"):
                return deny("shape:redirect", "a relative redirection after cd; use dir_path")
            verdict = self._redirect(red, cwd)
            if verdict is not None:
                return verdict
        # shapes
        shape_rules = [r for r in rules if r.rule.decision == "allow" and r.shapes]
        exact = next((r for r in shape_rules if raw_equal(r.rule.command or "", command)), None)
        for shape, text in found.shapes.items():
            if any(
                shape in r.shapes and raw_equal(r.rule.command or "", command) for r in shape_rules
            ):
                continue
            if self.mode == "yolo" and shape in sp.VISIBLE_SHAPES:
                continue
            what = text if shape == sp.HIDDEN else f"{shape.replace('_', ' ')} (`{text[:80]}`)"
            return deny(
                f"shape:{shape}",
                f"{what} is not allowed without a rule that allows this exact command",
            )
        if exact is not None:  # a rule written for this very shape allows the whole line
            return unsandboxed(found, [exact.label], self.no_sandbox) or allow(exact.label)
        # allow: every sub-command
        deciding: list[str] = []
        bases = command_dirs(found, cwd) or [cwd]
        for c in found.commands:
            d = self._allow_one(c, rules, cwd, found.variables, bases)
            if not d.allowed:
                return d
            deciding.append(d.rule)
        if self.mode == "read_only" and any(
            r.target not in ("/dev/null", "/dev/stdout", "/dev/stderr") for r in found.redirects
        ):
            return deny("mode:read_only", "output redirection writes a file in read_only mode")
        main = next((d for d in deciding if d.startswith("rules[")), None)
        refused = unsandboxed(found, deciding, self.no_sandbox)
        if refused is not None:
            return refused
        gits = [
            c
            for c, d in zip(found.commands, deciding, strict=True)
            if d == "read_only_command" and allow_form(c.words)[0] == "git"
        ]
        env: dict[str, str] = {}
        if gits:
            why, env = judge(found, cwd, gits, self.workspace, self.repo)
            if why is not None:
                return deny("read_only_git", f"`{gits[0].text[:120]}` is denied: {why}")
        return allow(main or (deciding[0] if deciding else f"mode:{self.mode}"), env=env)

    def _allow_one(
        self,
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
        if self.mode == "yolo":
            return allow("mode:yolo")
        why = why_not_read_only(
            allow_form(c.words),
            cwd=cwd,
            workspace=self.workspace,
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
            found = workspace_program(str(name), self.search_path, bases, self.workspace)
            if found is not None:
                why = f"`{name}` would run {found}, a program in the workspace (on PATH)"
                break
        if why is None:
            return allow("read_only_command")
        return deny(
            f"mode:{self.mode}",
            f"`{c.text[:120]}` needs approval in {self.mode} mode and no rule allows it "
            f"({why}); there is no human to ask in CI, so it is denied",
        )

    def _path_rule_hit(self, found: sp.Analysis, cwd: Path, tool: str) -> Decision | None:
        """A path deny rule naming a file the command writes (redirection) or names.

        Rules for the shell tool see redirection targets and the words of every command;
        rules for ``write_file`` see redirection targets too (a redirection writes a file).
        """
        rules = [
            r
            for r in self.rules
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
                for rel in self._rels(word, bases):
                    if r.path_matches(rel):
                        return deny(r.label, r.rule.reason or f"{rel} is denied by {r.label}")
        return None

    def _rels(self, word: str, bases: list[Path]) -> list[str]:
        """``word`` as a workspace path from each directory the command may be in."""
        rels = []
        for base in bases:
            try:
                rels.append(resolve(self.workspace, word, base=base).rel)
            except (ToolFailure, OSError, ValueError):
                continue
        return rels

    def _redirect(self, red: sp.Redirect, cwd: Path) -> Decision | None:
        if red.target is None:
            return deny("shape:redirect", "redirection to a target computed at run time")
        if red.target in ("/dev/null", "/dev/stdout", "/dev/stderr"):
            return None
        if red.target.startswith("~"):
            return deny("containment", f"redirection to {red.target} is outside the workspace")
        try:
            target = resolve(self.workspace, red.target, base=cwd)
        except ToolFailure as exc:
            return deny("containment", f"redirection: {exc}")
        why = self.protected.why(
            target.real, target.rel, workflows_allowed=self.workflows_allowed("run_shell_command")
        )
        if why:
            return deny(f"protected:{why}", f"redirection writes {target.rel}, which is protected")
        return None
