"""Recipe hooks: the recipe author's commands at the stages of the loop (docs/hooks.md).

A hook is the recipe author's: it runs outside the policy and the sandbox, with the same
allowlisted environment as the tools (never agentci's secrets), with a wall timeout — and
never from anything the agent can write: it runs in a **private copy of the recipe's folder**
made before the first model call (:mod:`agentci.hooks.private`), outside the workspace, which
is its working directory and where its relative words resolve, so neither its script nor a
module beside it (Python 3.10 included) nor a planted git repository is the agent's; git in a
hook is pinned to the workspace's real repository (:mod:`agentci.hooks.env`). A file the
command names by absolute path inside the workspace is refused; one outside it is
fingerprinted (SHA-256) when the run starts, and if it or the copy changed since, the hook does
not run (a deciding hook's answer is then a deny/stop, an observing one's a warning). It reads
one JSON document on stdin and answers with its exit code and optionally a JSON line on
stdout, read per stage by :mod:`agentci.hooks.answer`. Each hook process leads its own process
group and dies with agentci (:func:`agentci.process.run_process`, ``die_with_parent``).

:class:`HookRunner` compiles and runs the hooks; what each stage does with the answers is in
:mod:`agentci.hooks.tool_stages` (``before_tool``, ``after_tool``) and
:mod:`agentci.hooks.loop_stages` (``session_start``, ``before_model``, ``after_agent``,
``pre_compress``, ``session_end``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentci.errors import InvalidInput
from agentci.events.hook_events import HookResult
from agentci.hooks.answer import EVENT_CAP, OUTPUT_CAP, Answer, cap, interpret, not_run
from agentci.hooks.commands import fingerprint, is_inside, named_files, real_path, resolve_command
from agentci.hooks.env import hook_env
from agentci.hooks.private import HookFiles
from agentci.hooks.verdict import CompiledHook as CompiledHook
from agentci.hooks.verdict import HookVerdict as HookVerdict
from agentci.process import run_process
from agentci.recipe.hook_config import STAGES, Hook, Hooks, StageHook


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
        self.max_continuations = config.max_continuations
        self.started = False  # session_start ran: session_end will run when the task ends
        self.results: list[HookResult] = []  # every hook run of the task (reports.hook_facts)
        if not config.any:
            self.home = recipe_dir
            return
        self.home = self.files.prepare(recipe_dir, skip=[workspace])
        for stage in STAGES:
            for i, hook in enumerate(getattr(config, stage)):
                self.hooks.append(self._compile(stage, i, hook))

    def _compile(self, stage: str, index: int, hook: Hook | StageHook) -> CompiledHook:
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

    def matching(self, stage: str, tool_name: str | None = None) -> list[CompiledHook]:
        """The hooks of ``stage`` that apply (to ``tool_name`` for tool stages), in order."""
        return [h for h in self.hooks if h.stage == stage and h.matches(tool_name)]

    def payload(self, stage: str, **fields: Any) -> bytes:
        """The JSON document a hook of ``stage`` reads on stdin (docs/hooks.md)."""
        doc = {
            "v": 1,
            "event": stage,
            "task": self.task,
            "workspace": str(self.workspace),
            **fields,
        }
        return json.dumps(doc, ensure_ascii=False, default=str).encode() + b"\n"

    async def run(
        self,
        hook: CompiledHook,
        payload: bytes,
        verdict: HookVerdict,
        timeout_cap: float | None = None,
    ) -> Answer:
        """Run one hook with ``payload`` on stdin; its answer, read for its stage. The
        ``hook_result`` event goes into ``verdict.events``, an observing hook's failure into
        ``verdict.failures``. ``timeout_cap`` shortens the hook's ``timeout_seconds``."""
        timeout = hook.hook.timeout_seconds
        if timeout_cap is not None:
            timeout = min(timeout, timeout_cap)
        env = {**hook_env(self.env, self.workspace, self.home), "AGENTCI_HOOK_EVENT": hook.stage}
        changed = self._changed(hook)
        if changed:
            answer, code, output = not_run(hook.stage, changed), None, changed
        else:
            try:
                done = await run_process(
                    hook.command,
                    cwd=self.home,
                    env=env,
                    timeout=timeout,
                    output_cap=OUTPUT_CAP,
                    stdin=payload,
                    die_with_parent=True,
                )
                answer = interpret(hook.stage, done.exit_code, done.timed_out, done.output, timeout)
                code, output = done.exit_code, done.output
            except OSError as err:  # bash missing, workspace gone: never an allow
                why = f"the hook could not start: {err}"
                answer, code, output = not_run(hook.stage, why), None, why
        if answer.failed and answer.decision == "continue":
            verdict.failures.append(f"{hook.rule}: {answer.reason}")
        event = HookResult(
            hook=hook.label,
            command=hook.hook.command,
            exit_code=code,
            decision=answer.decision,
            output=cap(output, EVENT_CAP),
            stage=hook.stage,
            reason=cap(answer.reason, EVENT_CAP),
            args=answer.args,
        )
        verdict.events.append(event)
        self.results.append(event)  # the same object: a later change (a rewrite) shows here
        return answer

    def stopped(self, hook: CompiledHook, verdict: HookVerdict, reason: str) -> None:
        """``hook`` was stopped while it ran (a signal cancelled it: :func:`run_process` killed
        its process group): its ``hook_result``, no exit code, ``reason`` saying why."""
        event = HookResult(
            hook=hook.label,
            command=hook.hook.command,
            exit_code=None,
            stage=hook.stage,
            reason=cap(reason, EVENT_CAP),
        )
        verdict.events.append(event)
        self.results.append(event)
