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
see into (only a rule naming the tool, or ``yolo``, allows it). Shell command lines are judged
in :mod:`agentci.policy.shell_judge`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from agentci.errors import ToolFailure
from agentci.policy.access import UNDECLARED, Access
from agentci.policy.decision import (
    Decision,
    allow,
    compile_rule,
    deny,
)
from agentci.policy.gitpin import find_repo
from agentci.policy.paths import Protected, resolve
from agentci.policy.shell_judge import decide_shell
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
                d = decide_shell(self, tool, access.command, access.path)
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
                more = self.protected.explain(why)
                return deny(f"protected:{why}", f"{rel} is protected ({why}){more}; never writable")
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
