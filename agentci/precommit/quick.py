"""The hook's clean path: ``agentci pre-commit --recipe fix-lint`` on files the linter finds
nothing in, decided without loading the agent machinery (pydantic, the recipe and event
models, the SDK, the loop).

A hook runs on every commit, and on almost every one the linter has nothing to say. So before
the recipe is loaded, :func:`clean_exit` runs the built-in recipe's verify command on the files
exactly as a run's baseline verify would — in the same sandbox (:func:`make_sandbox` with the
protected paths of :class:`~agentci.policy.paths.Protected`), with the same allowlisted
environment, limits and timeout — and when it passes, writes the outputs of the run that would
have followed (:mod:`agentci.precommit.clean_outputs`) and prints its lines: exit 0.

It loads no YAML parser, no event loop (the linter runs under
:func:`~agentci.childproc.run_blocking`) and no snapshot code, and asks for ``rg --version`` and
the commit checked out in threads while the linter runs.

Anything this path does not reproduce exactly makes it step aside (None) before any output is
touched, and the whole run follows, which runs the linter again: another recipe than the
built-in one, ``-p`` or ``--files-param`` or ``-v``, a terminal (the live console), GitHub
Actions, ``GITHUB_STEP_SUMMARY``, OpenTelemetry, both API key variables set (the run's note),
a folder without ``.git``, a rendered command or prompt the run refuses (the run's own
:func:`~agentci.recipe.text_check.text_problem`: a staged name that is not UTF-8), project
context files (AGENTS.md, GEMINI.md, CLAUDE.md) where the run would load them (the run's own
:func:`~agentci.context.named_folders.context_folders`), credentials in the repository's git
config (the run's warning), no working bubblewrap (not probed first: a bubblewrap that does not
start fails the linter's run), a linter that does not pass or prints more than ``All checks
passed!``, a time-out, a signal (the run then starts cancelled and writes a cancelled run's
outputs), an output folder the run would refuse, a recipe file other than the one agentci was
built with (:mod:`agentci.precommit.builtin_recipe`), a first ``rg`` whose ``--version`` fails,
a linter's run that left bytecode for the store (the run's verify fills it). A signal that comes
while the outputs are written, or an output that cannot be written (a full disk), makes it
step aside too, after emptying the output folder again (:func:`write_clean_run`).
``AGENTCI_PRECOMMIT_QUICK=0`` turns the path off.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentci.change.repo_dirs import head_commit
from agentci.childproc import ProcessResult, run_blocking
from agentci.context.named_folders import context_folders
from agentci.errors import InvalidInput
from agentci.hostprog import add_workspace
from agentci.policy.env import child_env, hide_initial_environ, make_undumpable
from agentci.policy.gitconfig import credential_warnings
from agentci.policy.paths import Protected
from agentci.policy.pyc_cache import remove_view
from agentci.policy.pyc_view import pyc_view, settle_if_nothing_learned
from agentci.policy.runtime import choose_program, forget_workspace_imports
from agentci.policy.sandbox import make_sandbox
from agentci.precommit.builtin_recipe import parsed
from agentci.precommit.clean_outputs import (
    KEY_VARS,
    CleanRun,
    render_prompt,
    utc_now,
    write_clean_run,
)
from agentci.precommit.names import as_argument, normalise
from agentci.recipe.text_check import text_problem
from agentci.run import early
from agentci.run_locks import lock_workspace
from agentci.tempdirs import make_temp_dir
from agentci.tools.rg_find import rg_candidates, rg_version
from agentci.verify.run_env import verify_env

#: The one recipe this path knows (docs/pre-commit.md): what its verify prints when it passes.
RECIPE = "fix-lint"
PASSED = "All checks passed!"
#: The project context files a run loads (recipe/schema.py, ContextFiles.files).
CONTEXT_FILES = ("AGENTS.md", "GEMINI.md", "CLAUDE.md")
#: The verify run's output cap (agentci.verify.run.OUTPUT_CAP).
OUTPUT_CAP = 64_000


def recipe_file() -> Path:
    """The built-in recipe's file."""
    return Path(__file__).with_name("recipes") / f"{RECIPE}.yaml"  # as hook.recipe_path


def clean_exit(
    recipe: str,
    files: list[str],
    *,
    files_param: str,
    params: list[str],
    out_dir: Path,
    verbose: bool,
    quiet: bool,
    timeout: float | None,
) -> int | None:
    """0 when the files are clean (the outputs written, the lines printed); None when the
    run must decide (see the module docstring). Nothing written stays behind unless the answer
    is 0."""
    if not _may_try(recipe, files_param, params, verbose, quiet):
        return None
    names = normalise(files)
    if not names:
        return 0  # as the run: no files, nothing to do, no outputs
    found = _run_linter(names, timeout)
    if found is None:
        return None
    return write_clean_run(found, out_dir, quiet=quiet)


def _may_try(recipe: str, files_param: str, params: list[str], verbose: bool, quiet: bool) -> bool:
    env = os.environ
    if recipe != RECIPE or files_param != "files" or params or verbose:
        return False
    if env.get("AGENTCI_PRECOMMIT_QUICK", "1") == "0":
        return False
    if env.get("GITHUB_ACTIONS") == "true" or env.get("GITHUB_STEP_SUMMARY"):
        return False
    if env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        return False
    if all(env.get(k) for k in KEY_VARS):  # the run prints which one it sends
        return False
    return quiet or not _is_terminal()


def _is_terminal() -> bool:
    """As agentci.events.sinks: a terminal gets the live console, which this path has not."""
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _run_linter(files: list[str], timeout: float | None) -> CleanRun | None:
    """The baseline verify of the built-in recipe on ``files``; None unless it passed."""
    started, started_at = time.monotonic(), utc_now()
    make_undumpable()  # as the run, before any child: /proc/<agentci>/environ stays closed
    hide_initial_environ()
    ws = Path(os.path.realpath(os.getcwd()))
    if not os.path.lexists(ws / ".git"):
        return None
    path = recipe_file()
    data = path.read_bytes()
    recipe = parsed(data)
    if recipe is None:
        return None  # not the recipe agentci was built with: the run reads it
    verify = recipe["verify"]
    quoted = shlex.join(as_argument(f) for f in files)
    command = verify["command"].replace("{{ files }}", quoted)
    if "{{" in command or "{%" in command:
        return None
    prompt = render_prompt(recipe["prompt"], command, PASSED, quoted)
    if text_problem(command) or text_problem(prompt):
        return None  # the run refuses it (template error): a name that is not UTF-8
    if _context_files(ws, prompt):
        return None
    add_workspace(ws)  # before any program is looked up: none comes from the workspace
    try:
        lock_workspace(ws)
    except InvalidInput:
        return None
    if credential_warnings(ws):
        return None  # the run warns about them
    rg = next(rg_candidates(), None)  # its version is asked while ruff runs
    if rg is None:
        return None
    choose_program(rg)
    forget_workspace_imports(ws)
    protected = Protected(ws, recipe_path=path)
    try:
        box, fell_back = make_sandbox(  # not probed: a bwrap that fails fails ruff's run
            "auto", workspace=ws, network=False, readonly=protected.sandbox_readonly(), probe=False
        )
    except InvalidInput:
        return None
    if box is None or fell_back:
        return None
    limit = float(verify.get("timeout_seconds", 60))
    if timeout is not None:
        limit = min(limit, timeout)
    tmp = make_temp_dir("verify")
    try:
        env = verify_env(child_env(()), None, None)
        run_box, view = pyc_view(box.but(writable=[tmp]), env, command)
        try:  # as agentci.verify.run.run_verify: the bytecode store learns from the run
            ran = _run_cancellable(command, ws, env, limit, run_box, rg)
            if (
                ran is not None
                and view is not None
                and run_box is not None
                and not settle_if_nothing_learned(view, run_box, command, env.get("PATH"))
            ):
                return None  # bytecode to store: the run's verify fills the store
        finally:
            if view is not None:
                remove_view(view)
    finally:
        box.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    verified_at = utc_now()
    if ran is None:
        return None
    result, version, base_commit = ran
    if version is None:  # find_rg would try the next candidate: the run decides
        return None
    if result.timed_out or result.exit_code != 0:
        return None
    if result.output.strip() != PASSED or early.pending() is not None:
        return None
    return CleanRun(
        recipe=recipe,
        recipe_bytes=data,
        files=files,
        command=command,
        prompt=prompt,
        output=result.output.strip(),
        workspace=ws,
        duration_ms=result.duration_ms,
        started=started,
        started_at=started_at,
        verified_at=verified_at,
        search_engine=version,
        base_commit=base_commit,
    )


def _run_cancellable(
    command: str,
    ws: Path,
    env: dict[str, str],
    limit: float,
    box: Any,
    rg: str,
) -> tuple[ProcessResult, str | None, str | None] | None:
    """The linter's run, cut short by SIGINT / SIGTERM (remembered for the run, which then
    starts cancelled: agentci.run.early); None when a signal cut it. While it runs, two
    questions only the outputs need are asked in threads: ``rg --version`` and the commit
    checked out. Returns (the run's result, rg's version, the commit)."""
    version = _in_thread(lambda: rg_version(rg))
    commit = _in_thread(lambda: head_commit(ws))
    came: list[str] = []

    def on_signal(signum: int, _frame: object) -> None:
        name = signal.Signals(signum).name
        early.note(name)
        came.append(name)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    try:
        result = run_blocking(
            command,
            cwd=ws,
            env=env,
            timeout=limit,
            output_cap=OUTPUT_CAP,
            sandbox=box,
            stop=lambda: bool(came),
        )
    finally:
        early.install(remember=True)
    if result is None:
        return None  # the threads are left to end on their own: the run starts cancelled
    return result, version(), commit()


def _in_thread(ask: Callable[[], str | None]) -> Callable[[], str | None]:
    """Start ``ask`` in a thread; the function returned waits for its answer (or raises what
    it raised)."""
    answer: list[str | None] = [None]
    failed: list[BaseException] = []

    def work() -> None:
        try:
            answer[0] = ask()
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()

    def wait() -> str | None:
        thread.join()
        if failed:
            raise failed[0]
        return answer[0]

    return wait


def _context_files(ws: Path, prompt: str) -> bool:
    """Whether a project context file lies where the run would look for one: the run's own
    folders for ``prompt`` (:func:`~agentci.context.named_folders.context_folders`: the root,
    and every folder on the way to each path-like word of the prompt)."""
    folders = context_folders(ws, prompt)
    return any(os.path.lexists(ws / d / name) for d in folders for name in CONTEXT_FILES)
