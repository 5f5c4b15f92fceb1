"""Run action.yml's steps the way the GitHub runner runs a composite action, offline.

``run:`` steps are written to a file and run with ``bash --noprofile --norc -eo pipefail``
(the runner's ``shell: bash``) in a workspace folder, with ``GITHUB_OUTPUT``,
``GITHUB_STEP_SUMMARY``, ``GITHUB_ENV``, ``GITHUB_PATH`` and ``RUNNER_TEMP`` as real files and
folders. ``${{ … }}`` expressions are evaluated against ``inputs`` (action.yml's defaults
plus the test's), ``steps.<id>.outputs``/``outcome``, ``github``, ``runner`` and
``strategy``. The ``uses:`` steps are stood in for: ``actions/setup-python`` answers
``python-path`` (what it does with ``update-environment: false``), ``actions/cache`` and
``actions/upload-artifact`` record what they were given, ``actions/download-artifact`` copies
the test's folder for the artifact ``name`` (``artifacts``) to ``path`` (a name it does not
have fails the step, as the real action does).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
TOKEN = re.compile(r"\s*('(?:[^']|'')*'|&&|\|\||==|!=|!|\(|\)|[A-Za-z_][\w.-]*(?:\(\))?)")


@dataclass
class StepRun:
    """What one step did."""

    name: str
    outcome: str  # success, failure or skipped
    outputs: dict[str, str] = field(default_factory=dict)
    with_: dict[str, str] = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""


@dataclass
class ActionRun:
    """The whole composite action: its steps, its outputs and its exit status."""

    steps: list[StepRun]
    outputs: dict[str, str]
    failed: bool
    exit_code: int
    summary: str
    github_env: str
    github_path: str

    def step(self, name_prefix: str) -> StepRun:
        """The step whose name starts with ``name_prefix``."""
        return next(s for s in self.steps if s.name.startswith(name_prefix))

    @property
    def log(self) -> str:
        """Every step's stdout and stderr, for assertion messages."""
        return "\n".join(f"## {s.name} [{s.outcome}]\n{s.stdout}{s.stderr}" for s in self.steps)


def parse_output_file(text: str) -> dict[str, str]:
    """Read a GITHUB_OUTPUT file: ``name=value`` lines and ``name<<DELIM`` blocks."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            body: list[str] = []
            i += 1
            while lines[i] != delim:
                body.append(lines[i])
                i += 1
            out[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        i += 1
    return out


class Expressions:
    """A small evaluator for the expressions action.yml uses (no functions but status ones)."""

    def __init__(self, contexts: dict[str, Any], job_failed: bool) -> None:
        self.contexts = contexts
        self.job_failed = job_failed

    def value(self, ref: str) -> Any:
        if ref in ("always()", "success()", "failure()", "cancelled()"):
            return {
                "always()": True,
                "success()": not self.job_failed,
                "failure()": self.job_failed,
                "cancelled()": False,
            }[ref]
        if ref in ("true", "false"):
            return ref == "true"
        node: Any = self.contexts
        for part in ref.split("."):
            node = node.get(part, "") if isinstance(node, dict) else ""
        return node

    def evaluate(self, text: str) -> Any:
        tokens = [t for t in TOKEN.findall(text) if t]
        assert "".join(tokens) == re.sub(r"\s+", "", text), f"cannot parse {text!r}"
        pos = 0

        def peek() -> str | None:
            return tokens[pos] if pos < len(tokens) else None

        def take() -> str:
            nonlocal pos
            pos += 1
            return tokens[pos - 1]

        def primary() -> Any:
            tok = take()
            if tok == "!":
                return not truthy(primary())
            if tok == "(":
                val = disjunction()
                assert take() == ")"
                return val
            if tok.startswith("'"):
                return tok[1:-1].replace("''", "'")
            return self.value(tok)

        def comparison() -> Any:
            left = primary()
            while peek() in ("==", "!="):
                op, right = take(), primary()
                same = str(left).lower() == str(right).lower()
                left = same if op == "==" else not same
            return left

        def conjunction() -> Any:
            left = comparison()
            while peek() == "&&":
                take()
                right = comparison()
                left = right if truthy(left) else left
            return left

        def disjunction() -> Any:
            left = conjunction()
            while peek() == "||":
                take()
                right = conjunction()
                left = left if truthy(left) else right
            return left

        result = disjunction()
        assert pos == len(tokens), f"trailing tokens in {text!r}"
        return result

    def substitute(self, text: Any) -> str:
        def one(m: re.Match[str]) -> str:
            val = self.evaluate(m.group(1))
            if isinstance(val, bool):
                return "true" if val else "false"
            return str(val)

        if isinstance(text, bool):  # YAML booleans reach actions as "true"/"false"
            return "true" if text else "false"
        return EXPR.sub(one, str(text))


def truthy(value: Any) -> bool:
    return value not in (False, "", 0, None)


def run_action(
    workspace: Path,
    runner_temp: Path,
    inputs: dict[str, str],
    *,
    path: str,
    python: str,
    job: str = "fix",
    strategy: tuple[int, int] = (0, 1),
    extra_env: dict[str, str] | None = None,
    stop_after: str | None = None,
    artifacts: dict[str, Path] | None = None,
) -> ActionRun:
    """Run the steps of action.yml in ``workspace`` (all, or up to the step whose id is
    ``stop_after``); ``path`` is the job's PATH, ``python`` what setup-python provides."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    defaults = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    unknown = set(inputs) - set(defaults)
    assert not unknown, f"action.yml has no inputs {unknown}"
    files = runner_temp / "github-files"
    files.mkdir(exist_ok=True)
    summary, github_env, github_path = (files / n for n in ("summary.md", "env", "path"))
    for f in (summary, github_env, github_path):
        f.touch()
    steps_ctx: dict[str, dict[str, Any]] = {}
    contexts: dict[str, Any] = {
        "inputs": {**defaults, **inputs},
        "github": {
            "action_path": str(ROOT),
            "job": job,
            "workspace": str(workspace),
        },
        "runner": {"temp": str(runner_temp), "os": "Linux"},
        "strategy": {"job-index": str(strategy[0]), "job-total": str(strategy[1])},
        "steps": steps_ctx,
    }
    base_env = {
        "PATH": path,
        "HOME": os.environ.get("HOME", "/root"),
        "LANG": "C.UTF-8",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_JOB": job,
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_ENV": str(github_env),
        "GITHUB_PATH": str(github_path),
        "RUNNER_TEMP": str(runner_temp),
        "RUNNER_OS": "Linux",
        **(extra_env or {}),
    }
    runs: list[StepRun] = []
    failed = False
    for n, step in enumerate(action["runs"]["steps"]):
        ev = Expressions(contexts, failed)
        name = step.get("name") or step.get("uses") or f"step {n}"
        cond = step.get("if", "success()")
        cond = EXPR.sub(lambda m: m.group(1), cond)
        if not truthy(ev.evaluate(cond)):
            run = StepRun(name, "skipped")
        elif "uses" in step:
            run = _uses(step, name, ev, python, artifacts or {})
        else:
            run = _bash(step, name, ev, base_env, workspace, files / f"output{n}")
        runs.append(run)
        if run.outcome == "failure":
            failed = True
        if "id" in step:
            steps_ctx[step["id"]] = {"outputs": run.outputs, "outcome": run.outcome}
            if step["id"] == stop_after:
                break
    ev = Expressions(contexts, failed)
    outputs = {k: ev.substitute(v["value"]) for k, v in action["outputs"].items()}
    last = runs[-1]
    return ActionRun(
        steps=runs,
        outputs=outputs,
        failed=failed,
        exit_code=int(last.stderr.rsplit("exit ", 1)[-1]) if last.outcome == "failure" else 0,
        summary=summary.read_text(),
        github_env=github_env.read_text(),
        github_path=github_path.read_text(),
    )


def _uses(
    step: dict[str, Any], name: str, ev: Expressions, python: str, artifacts: dict[str, Path]
) -> StepRun:
    with_ = {k: ev.substitute(v) for k, v in (step.get("with") or {}).items()}
    uses = step["uses"]
    if uses == "actions/setup-python@v5":
        assert with_.get("update-environment") == "false", "setup-python would change the job"
        return StepRun(name, "success", outputs={"python-path": python}, with_=with_)
    if uses in ("actions/cache@v4", "actions/upload-artifact@v4"):
        return StepRun(name, "success", with_=with_)
    if uses == "actions/download-artifact@v4":
        found = artifacts.get(with_["name"])
        if found is None:
            return StepRun(name, "failure", with_=with_, stderr="Artifact not found\nexit 1")
        shutil.copytree(found, with_["path"], symlinks=True, dirs_exist_ok=True)
        return StepRun(name, "success", with_=with_)
    raise AssertionError(f"the harness does not know {uses}")


def _bash(
    step: dict[str, Any],
    name: str,
    ev: Expressions,
    base_env: dict[str, str],
    workspace: Path,
    output: Path,
) -> StepRun:
    assert step.get("shell") == "bash", f"{name}: every run step declares shell: bash"
    output.write_text("")
    env = {**base_env, "GITHUB_OUTPUT": str(output)}
    env.update({k: ev.substitute(v) for k, v in (step.get("env") or {}).items()})
    script = output.with_suffix(".sh")
    script.write_text(ev.substitute(step["run"]))
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    outcome = "success" if done.returncode == 0 else "failure"
    stderr = done.stderr + (f"\nexit {done.returncode}" if done.returncode else "")
    return StepRun(
        name,
        outcome,
        outputs=parse_output_file(output.read_text()),
        stdout=done.stdout,
        stderr=stderr,
    )


def install_agentci(python: str, runner_temp: Path) -> Path:
    """Install agentci with action.yml's own steps (as on a runner whose setup-python gave
    ``python``); returns the virtualenv's bin folder. Fails when the steps fail or touch the
    job's environment."""
    runner_temp.mkdir(parents=True, exist_ok=True)
    workspace = runner_temp / "workspace"
    workspace.mkdir(exist_ok=True)
    run = run_action(
        workspace,
        runner_temp,
        {"recipe": "unused.yaml"},
        path=os.environ["PATH"],
        python=python,
        stop_after="install",
    )
    assert not run.failed, run.log
    assert run.github_env == "" and run.github_path == "", "the install changed the job"
    return Path(run.step("Install agentci").outputs["bin"])


# Modules an agent could write into the workspace, named like what a host-side Python imports.
HOSTILE_MODULES = (
    "json.py",
    "secrets.py",
    "pathlib.py",
    "click/__init__.py",
    "agentci/__init__.py",
)

_HOSTILE = """\
# Planted in the workspace: records that a Python on the host imported it, then stands aside
# for the real module so that whatever imported it goes on as usual.
import os as _os
import sys as _sys

if _os.readlink("/proc/self/ns/pid") == {pidns!r}:  # the host, not a sandboxed command
    with open(_os.path.join({markers!r}, "%s-%d" % (__name__, _os.getpid())), "w") as _fh:
        _fh.write(repr(_sys.argv))
_here = _os.path.dirname(_os.path.dirname(_os.path.realpath(__file__))) if {package!r} else (
    _os.path.dirname(_os.path.realpath(__file__)))
_saved = list(_sys.path)
_sys.path[:] = [p for p in _sys.path if _os.path.realpath(p or ".") != _here]
del _sys.modules[__name__]
try:
    import importlib as _importlib

    _sys.modules[__name__] = _importlib.import_module(__name__)
finally:
    _sys.path[:] = _saved
"""


def hostile_modules(markers: Path) -> dict[str, str]:
    """:data:`HOSTILE_MODULES` and their text: each one, when a Python outside the sandbox
    imports it, leaves a file in ``markers`` (outside the workspace) named after it."""
    markers.mkdir(parents=True, exist_ok=True)
    pidns = os.readlink("/proc/self/ns/pid")
    return {
        name: _HOSTILE.format(
            pidns=pidns, markers=str(markers), package=name.endswith("__init__.py")
        )
        for name in HOSTILE_MODULES
    }


def seed_hostile_modules(workspace: Path, markers: Path) -> None:
    """Write :func:`hostile_modules` into ``workspace``."""
    for name, text in hostile_modules(markers).items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=install_agentci.__doc__)
    parser.add_argument("--python", required=True, help="the base interpreter")
    parser.add_argument("--runner-temp", required=True, type=Path)
    ns = parser.parse_args()
    print(install_agentci(ns.python, ns.runner_temp.resolve()))
