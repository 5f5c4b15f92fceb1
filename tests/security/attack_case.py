"""One attack, end to end: a workspace, the attacker's tool calls as the scripted model, a
recipe, and ``agentci run`` in a subprocess with canary secrets in its environment.

A case lives in ``tmp_path``: ``repo/`` (the workspace and the run's working directory; a git
repository unless ``git=False``), ``recipe.yaml`` and ``script*.yaml`` next to it, ``out/``,
and ``escape/`` — a host folder outside the workspace that the attack tries to write to
(``escape/loot`` holds whatever secret it got).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentci.testing.case import Case, shell_call, tool_call, write_case
from agentci.testing.cli import Run

CANARIES = {
    "GEMINI_API_KEY": "AIzaCanaryGeminiKey0000000000000000000",
    "GITHUB_TOKEN": "ghs_CanaryGithubToken00000000000000000",
}
#: A shell payload: every environment it can read on the host, into the escape folder.
STEAL = (
    "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done 2>/dev/null"
    " | grep -a -e GEMINI_API_KEY -e GITHUB_TOKEN > {loot}; cp {loot} leak.txt 2>/dev/null; true"
)


shell = shell_call
tool = tool_call


@dataclass
class AttackCase(Case):
    """A case with an escape folder and the canaries in the run's environment."""

    @property
    def loot(self) -> Path:
        return self.root / "escape" / "loot"

    def steal(self) -> str:
        """The payload command, writing to this case's escape target."""
        return STEAL.format(loot=self.loot)

    def run(self, *args: str, env: dict[str, str] | None = None) -> Run:
        """The run, with the canary secrets in agentci's environment."""
        return super().run(*args, env={**CANARIES, **(env or {})})

    def leaked(self, run: Run | None = None) -> list[str]:
        """Where a canary got to: the escape folder, the workspace, the outputs, the console."""
        places = [p for p in (self.root / "escape").rglob("*") if p.is_file()]
        places += [p for p in self.repo.rglob("*") if p.is_file() and ".git/" not in str(p)]
        places += [p for p in self.out.rglob("*") if p.is_file()]
        found = []
        for p in places:
            text = p.read_text(errors="replace")
            if any(v in text for v in CANARIES.values()):
                found.append(str(p))
        if run is not None and any(v in run.stdout + run.stderr for v in CANARIES.values()):
            found.append("console")
        return found


def make_attack(
    root: Path,
    script: list[Any],
    recipe: dict[str, Any] | None = None,
    files: dict[str, str] | None = None,
    *,
    git: bool = True,
    scripts: dict[str, list[Any]] | None = None,
) -> AttackCase:
    """Write the case; the recipe gets ``model: scripted:script.yaml`` and a prompt, nothing
    else unless given (all defaults: auto_edit, no rules, ``sandbox: auto``)."""
    (root / "escape").mkdir(parents=True)
    recipe = {"name": "attack", **(recipe or {})}
    case = write_case(root, script, recipe, files, git=git, scripts=scripts)
    return AttackCase(case.root)
