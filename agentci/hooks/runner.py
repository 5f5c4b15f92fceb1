"""Recipe hooks: the recipe author's commands around tool calls (docs/hooks.md).

A hook is the recipe author's: it runs outside the policy and the sandbox, with the same
allowlisted environment as the tools (never agentci's secrets), with a wall timeout — and
never from anything the agent can write: it runs in a **private copy of the recipe's folder**
made before the first model call (:mod:`agentci.hooks.private`), outside the workspace, which
is its working directory and where its relative words resolve, so neither its script nor a
module beside it (Python 3.10 included) nor a planted git repository is the agent's; git in a
hook is pinned to the workspace's real repository (:mod:`agentci.hooks.env`). A file the
command names by absolute path inside the workspace is refused; one outside it is
fingerprinted (SHA-256) when the run starts, and if it or the copy changed since, the hook does
not run and the call is denied. It reads one JSON document on stdin and answers with its
exit code (and optionally a JSON line on stdout):

==============  ===========================================================================
exit 0          continue; stdout may be ``{"decision": "deny"|"stop"|"continue", "reason": …}``
exit 2          deny this call; the output is the reason the model reads
other / timeout deny this call too (a broken hook never silently allows), reason says why
``stop``        end the whole run: :class:`~agentci.errors.HookStopped`, status ``blocked``
==============  ===========================================================================

``after_tool`` hooks cannot undo the call: their output becomes a note on the result the
model reads; a deny or a failure becomes a note saying so; ``stop`` still ends the run.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentci import jsontext
from agentci.errors import InvalidInput
from agentci.events.types import HookResult
from agentci.hooks.commands import fingerprint, is_inside, named_files, real_path, resolve_command
from agentci.hooks.env import hook_env
from agentci.hooks.private import HookFiles
from agentci.recipe.schema import Hook, Hooks
from agentci.tools.process import run_process

Stage = Literal["before_tool", "after_tool"]
Decision = Literal["continue", "deny", "stop"]

#: Bytes of a hook's output kept (head and tail); the event and the model get less.
OUTPUT_CAP = 16_000
#: Characters of a hook's output in the ``hook_result`` event.
EVENT_CAP = 2_000
#: Characters of a reason or note that reach the model.
NOTE_CAP = 4_000


def _cap(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 20] + "\n[… output cut]"


@dataclass(frozen=True)
class CompiledHook:
    """One hook of the recipe, its first word resolved (see :func:`resolve_command`)."""

    stage: Stage
    index: int
    hook: Hook
    command: str
    script: Path | None = None

    @property
    def label(self) -> str:
        """``hooks.before_tool[0]``: where the hook is in the recipe."""
        return f"hooks.{self.stage}[{self.index}]"

    @property
    def rule(self) -> str:
        """What ``tool_call_decision.rule`` names: the hook and its command."""
        return f"{self.label}: {self.hook.command}"

    def matches(self, tool_name: str) -> bool:
        """``*`` matches every tool; anything else is a regex fully matching the name."""
        return self.hook.matcher == "*" or re.fullmatch(self.hook.matcher, tool_name) is not None


@dataclass
class HookVerdict:
    """What the hooks of one call decided, the events they produced and their notes."""

    decision: Decision = "continue"
    reason: str = ""
    hook: CompiledHook | None = None
    events: list[HookResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class _Answer:
    decision: Decision
    reason: str
    text: str


def _json_answer(output: str) -> dict[str, Any] | None:
    """The hook's JSON answer: the whole output, else its last line that is an object."""
    candidates = [output.strip()]
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if lines:
        candidates.append(lines[-1])
    for text in candidates:
        if text.startswith("{"):
            try:
                data = jsontext.loads(text)
            except jsontext.NotJson:
                continue
            if isinstance(data, dict):
                return data
    return None


def _interpret(exit_code: int | None, timed_out: bool, output: str, timeout: float) -> _Answer:
    """Exit code and output → decision (docs/hooks.md, "Answers")."""
    text = output.strip()
    if timed_out:
        return _Answer("deny", f"the hook timed out after {timeout:g}s", text)
    if exit_code is None:
        return _Answer("deny", f"the hook was killed: {_cap(text, 500)}", text)
    if exit_code == 2:
        return _Answer("deny", text or "denied by the hook (exit 2)", text)
    if exit_code != 0:
        why = f"the hook failed (exit {exit_code})"
        return _Answer("deny", f"{why}: {text}" if text else why, text)
    data = _json_answer(text)
    if data is None:
        return _Answer("continue", "", text)
    decision = data.get("decision", "continue")
    reason = data.get("reason", "")
    if not isinstance(reason, str):
        reason = json.dumps(reason)
    if decision not in ("continue", "deny", "stop"):
        why = f"the hook answered an unknown decision {decision!r} (continue, deny or stop)"
        return _Answer("deny", why, text)
    return _Answer(decision, reason or f"{decision} by the hook", reason)


class HookRunner:
    """Runs a recipe's hooks for one task (workspace, environment, recipe folder)."""

    def __init__(
        self,
        config: Hooks,
        *,
        workspace: Path,
        env: Mapping[str, str],
        recipe_dir: Path,
        task: str = "",
        files: HookFiles | None = None,
    ) -> None:
        self.workspace = workspace
        self.recipe_dir = recipe_dir
        self.task = task
        self.env = dict(env)
        self.files = HookFiles() if files is None else files
        self.hooks: list[CompiledHook] = []
        self._protected: list[Path] = []
        stages: tuple[tuple[Stage, list[Hook]], ...] = (
            ("before_tool", config.before_tool),
            ("after_tool", config.after_tool),
        )
        if not (config.before_tool or config.after_tool):
            self.home = recipe_dir
            return
        self.home = self.files.prepare(recipe_dir, skip=[workspace])
        for stage, hooks in stages:
            for i, hook in enumerate(hooks):
                self.hooks.append(self._compile(stage, i, hook))

    def _compile(self, stage: Stage, index: int, hook: Hook) -> CompiledHook:
        command, script = resolve_command(hook.command, self.home)
        compiled = CompiledHook(stage, index, hook, command, script)
        label = f"{compiled.label}: {hook.command!r}"
        if (
            script is not None
            and not hook.command.lstrip().startswith("/")
            and not is_inside(script, self.home)
        ):
            raise InvalidInput(
                f"{label}: hooks run from a private copy of the recipe's folder, made when the "
                "run starts: a relative command names a file inside that folder (no '..')"
            )
        if script is not None and not script.is_file():
            shown = (
                self.recipe_dir / script.relative_to(self.home)
                if is_inside(script, self.home)
                else script
            )
            raise InvalidInput(
                f"{label}: {shown} is not a file (a relative command is resolved against the "
                "recipe's folder)"
            )
        relative, absolute = named_files(command, self.home)
        ws = Path(os.path.realpath(self.workspace))
        for path in absolute:
            if is_inside(path, self.home):
                continue  # the first word, resolved in the private copy
            real = real_path(path)
            if is_inside(real, ws):
                raise InvalidInput(
                    f"{label}: {path} is a file of the workspace, which the agent can change; "
                    "a hook runs only files of the recipe's folder (relative paths) or from "
                    "outside the workspace"
                )
            self.files.fingerprints.setdefault(real, fingerprint(real))
            self._protected.append(real)
        for rel in relative:
            self._protected.append(real_path(self.recipe_dir / rel))
        if script is not None and is_inside(script, self.home):
            self._protected.append(real_path(self.recipe_dir / script.relative_to(self.home)))
        return compiled

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def _changed(self, hook: CompiledHook) -> str:
        """Why ``hook`` may not run (its files changed since the run started), or ``""``."""
        moved = self.files.changed()
        if moved:
            return (
                f"the private copy of the recipe's folder ({self.home}) changed since the run "
                f"started ({moved}); not run"
            )
        _, absolute = named_files(hook.command, self.home)
        for path in absolute:
            want = self.files.fingerprints.get(real_path(path))
            if want is not None and fingerprint(path) != want:
                return f"the hook script {path} changed since the run started; not run"
        return ""

    @property
    def scripts(self) -> list[Path]:
        """The real paths of the files the hooks name, in the recipe's folder and outside the
        workspace (protected from the agent like the recipe)."""
        return list(dict.fromkeys(self._protected))

    def matching(self, stage: Stage, tool_name: str) -> list[CompiledHook]:
        """The hooks of ``stage`` that apply to ``tool_name``, in recipe order."""
        return [h for h in self.hooks if h.stage == stage and h.matches(tool_name)]

    async def before_tool(self, *, tool_name: str, call_id: str, args: Any) -> HookVerdict:
        """Run the matching before_tool hooks; the first deny or stop ends the chain."""
        payload = self._payload("before_tool", tool_name, call_id, args)
        verdict = HookVerdict()
        for hook in self.matching("before_tool", tool_name):
            answer = await self._run(hook, payload, verdict)
            if answer.decision != "continue":
                verdict.decision, verdict.hook = answer.decision, hook
                verdict.reason = _cap(answer.reason, NOTE_CAP)
                break
        return verdict

    async def after_tool(
        self,
        *,
        tool_name: str,
        call_id: str,
        args: Any,
        output: str,
        error: str | None,
        exit_code: int | None,
    ) -> HookVerdict:
        """Run the matching after_tool hooks; their output becomes notes; stop ends the run."""
        result = {"ok": error is None, "output": output, "error": error, "exit_code": exit_code}
        payload = self._payload("after_tool", tool_name, call_id, args, result=result)
        verdict = HookVerdict()
        for hook in self.matching("after_tool", tool_name):
            answer = await self._run(hook, payload, verdict)
            if answer.decision == "stop":
                verdict.decision, verdict.hook = "stop", hook
                verdict.reason = _cap(answer.reason, NOTE_CAP)
                break
            if answer.decision == "deny":
                verdict.notes.append(f"[{hook.label} objected: {_cap(answer.reason, NOTE_CAP)}]")
            elif answer.text:
                verdict.notes.append(f"[{hook.label}]: {_cap(answer.text, NOTE_CAP)}")
        return verdict

    def _payload(
        self, stage: Stage, tool_name: str, call_id: str, args: Any, **extra: Any
    ) -> bytes:
        doc = {
            "v": 1,
            "event": stage,
            "task": self.task,
            "workspace": str(self.workspace),
            "tool_name": tool_name,
            "call_id": call_id,
            "args": args,
            **extra,
        }
        return json.dumps(doc, ensure_ascii=False, default=str).encode() + b"\n"

    async def _run(self, hook: CompiledHook, payload: bytes, verdict: HookVerdict) -> _Answer:
        timeout = hook.hook.timeout_seconds
        env = {**hook_env(self.env, self.workspace, self.home), "AGENTCI_HOOK_EVENT": hook.stage}
        changed = self._changed(hook)
        if changed:
            verdict.events.append(
                HookResult(
                    hook=hook.label,
                    command=hook.hook.command,
                    exit_code=None,
                    decision="deny",
                    output=changed,
                )
            )
            return _Answer("deny", changed, "")
        try:
            done = await run_process(
                hook.command,
                cwd=self.home,
                env=env,
                timeout=timeout,
                output_cap=OUTPUT_CAP,
                stdin=payload,
            )
            answer = _interpret(done.exit_code, done.timed_out, done.output, timeout)
            code, output = done.exit_code, done.output
        except OSError as err:  # bash missing, workspace gone: still a deny, never an allow
            answer = _Answer("deny", f"the hook could not start: {err}", "")
            code, output = None, str(err)
        verdict.events.append(
            HookResult(
                hook=hook.label,
                command=hook.hook.command,
                exit_code=code,
                decision=answer.decision,
                output=_cap(output, EVENT_CAP),
            )
        )
        return answer
