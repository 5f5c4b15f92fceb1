"""Run a GitHub workflow's jobs the way the hosted runner does, offline.

Every ``run:`` step is written to a file and run with ``bash --noprofile --norc -eo pipefail``
(the runner's default shell) in the job's checkout, with ``GITHUB_OUTPUT``, ``GITHUB_ENV``,
``GITHUB_PATH`` and ``GITHUB_STEP_SUMMARY`` as real files (``GITHUB_ENV``/``GITHUB_PATH`` reach
the later steps). ``${{ }}`` expressions and ``if:`` conditions are evaluated against a context
(``github``, ``secrets``, ``matrix``, ``strategy``, ``needs``, ``steps``, ``env``). GitHub itself
is a real bare repository (``GITHUB_SERVER_URL=file://…``) and the stub ``gh`` of gh_stub.py.

``uses:`` steps are stood in for: ``actions/checkout`` clones the bare repository (every branch
with ``fetch-depth: 0``, the ``ref`` given), ``actions/setup-python`` does nothing (the job's
PATH has the project's Python), ``actions/upload-artifact``/``download-artifact`` copy folders
through an artifact store, ``actions/cache`` restores and saves through a cache store as GitHub's
does (below), ``OWNER/agentci@…`` runs action.yml's own steps with
:func:`action_harness.run_action`, and other actions are recorded.

The cache store follows GitHub's rules: ``actions/cache`` and ``actions/cache/restore`` restore
the entry (folders) whose key is ``key``, else the newest entry whose key starts with one of
``restore-keys`` (in order), and set ``cache-hit`` (true only for the exact key);
``actions/cache`` saves ``path`` under ``key`` after the job's last step **only when the job
succeeded** and the key was not hit, ``actions/cache/save`` saves when its step runs; an entry,
once saved, is never replaced (a second save of a key does nothing). ``github.run_id`` /
``GITHUB_RUN_ID`` is :attr:`GitHub.run_id` (one workflow run: set it for the next one),
``github.run_attempt`` is 1, and the ``vars`` context is :attr:`GitHub.vars`.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from action_harness import EXPR, Expressions, parse_output_file, run_action, truthy
from gh_stub import install_gh_stub

REPO = "owner/repo"
SECRET_KEY = "AIzaWorkflowHarnessCanary0000000000000"

_PYTHON_SHIM = """\
#!/bin/sh
# The job's Python; `-m pip install` is recorded, not run (the test's virtualenv already has
# the project's tools and agentci).
if [ "$1" = -m ] && [ "$2" = pip ] && [ "$3" = install ]; then
  echo "pip $*" >> "{log}"
  exit 0
fi
exec "{python}" "$@"
"""


@dataclass
class StepResult:
    name: str
    outcome: str
    outputs: dict[str, str] = field(default_factory=dict)
    with_: dict[str, str] = field(default_factory=dict)
    log: str = ""


@dataclass
class JobResult:
    job: str
    steps: list[StepResult]
    outputs: dict[str, str]
    failed: bool
    summary: str
    workspace: Path

    def step(self, prefix: str) -> StepResult:
        return next(s for s in self.steps if s.name.startswith(prefix))

    @property
    def log(self) -> str:
        return "\n".join(f"## {s.name} [{s.outcome}]\n{s.log}" for s in self.steps)


class GitHub:
    """One repository on a stand-in GitHub: the bare remote, the artifact store, gh, the job's
    programs (python, agentci, gh) and the event that triggered the workflow."""

    def __init__(self, base: Path, bin_dir: Path, files: dict[str, str]) -> None:
        self.base = base
        self.server = base / "server"
        self.remote = self.server / "owner" / "repo.git"
        self.remote.mkdir(parents=True)
        _git(self.remote, "init", "-q", "--bare", "-b", "main")
        seed = base / "seed"
        seed.mkdir()
        _git(seed, "init", "-q", "-b", "main")
        for name, text in files.items():
            (seed / name).parent.mkdir(parents=True, exist_ok=True)
            (seed / name).write_text(text)
        _git(seed, "add", "-A")
        _git(seed, "-c", "user.name=dev", "-c", "user.email=dev@example.com",
             "commit", "-qm", "project")  # fmt: skip
        _git(seed, "push", "-q", str(self.remote), "main", "main:feature")
        self.sha = _git(seed, "rev-parse", "HEAD").strip()
        self.artifacts = base / "artifacts"
        self.artifacts.mkdir()
        self.gh_dir = base / "gh"
        self.bin = bin_dir / "job-bin"
        self.bin.mkdir(parents=True)
        self.pip_log = base / "pip.log"
        shim = _PYTHON_SHIM.format(log=self.pip_log, python=sys.executable)
        for name in ("python", "python3"):
            (self.bin / name).write_text(shim)
            (self.bin / name).chmod(0o755)
        _wrapper(self.bin / "agentci", str(Path(sys.executable).parent / "agentci"))
        install_gh_stub(self.bin, self.gh_dir)
        self.path = f"{self.bin}:/usr/local/bin:/usr/bin:/bin"
        self.extra_env: dict[str, str] = {}  # the runner's own environment, e.g. a base URL
        self.event_name = "workflow_dispatch"
        self.event: dict[str, Any] = {"repository": {"default_branch": "main"}}
        self.jobs = 0
        self.run_id = 1001  # the workflow run the jobs belong to
        self.vars: dict[str, str] = {}  # the repository's configuration variables
        self.caches = base / "caches"  # actions/cache: one folder per key, in save order
        self.caches.mkdir()
        self._post: list[tuple[str, list[Path]]] = []  # the running job's actions/cache saves

    def github_context(self, job: str, workspace: Path) -> dict[str, Any]:
        pr = self.event.get("pull_request") or {}
        return {
            "event_name": self.event_name,
            "event": self.event,
            "repository": REPO,
            "token": "ghs_WorkflowHarnessToken",
            "server_url": f"file://{self.server}",
            "sha": self.sha,
            "ref_name": "main",
            "head_ref": (pr.get("head") or {}).get("ref", ""),
            "job": job,
            "workspace": str(workspace),
            "run_id": str(self.run_id),
            "run_attempt": "1",
        }

    def run_job(
        self,
        workflow: dict[str, Any],
        job_id: str,
        *,
        matrix: dict[str, Any] | None = None,
        strategy: tuple[int, int] = (0, 1),
        needs: dict[str, dict[str, str]] | None = None,
    ) -> JobResult:
        """Run job ``job_id`` of ``workflow`` (one matrix leg when ``matrix`` is given)."""
        self.jobs += 1
        folder = self.base / f"job{self.jobs}-{job_id}"
        workspace, temp, files = folder / "work", folder / "temp", folder / "files"
        for f in (workspace, temp, files):
            f.mkdir(parents=True)
        _agentci_venv(temp)
        summary, github_env, github_path = (files / n for n in ("summary.md", "env", "path"))
        for f in (summary, github_env, github_path):
            f.touch()
        job = workflow["jobs"][job_id]
        steps_ctx: dict[str, dict[str, Any]] = {}
        event_file = files / "event.json"
        event_file.write_text(__import__("json").dumps(self.event))
        ctx: dict[str, Any] = {
            "github": {
                **self.github_context(job_id, workspace),
                "workflow": workflow.get("name", ""),
            },  # fmt: skip
            "secrets": {"GEMINI_API_KEY": SECRET_KEY},
            "matrix": matrix or {},
            "strategy": {"job-index": str(strategy[0]), "job-total": str(strategy[1])},
            "needs": {k: {"outputs": v, "result": "success"} for k, v in (needs or {}).items()},
            "steps": steps_ctx,
            "runner": {"temp": str(temp), "os": "Linux"},
            "vars": dict(self.vars),
            "env": {},
        }
        env: dict[str, str] = {
            "PATH": self.path,
            "HOME": os.environ.get("HOME", "/root"),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_JOB": job_id,
            "GITHUB_WORKFLOW": str(workflow.get("name", "")),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_EVENT_NAME": self.event_name,
            "GITHUB_EVENT_PATH": str(event_file),
            "GITHUB_SERVER_URL": f"file://{self.server}",
            "GITHUB_SHA": self.sha,
            "GITHUB_REF_NAME": "main",
            "GITHUB_RUN_ID": str(self.run_id),
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_ENV": str(github_env),
            "GITHUB_PATH": str(github_path),
            "RUNNER_TEMP": str(temp),
            "RUNNER_OS": "Linux",
            **self.extra_env,
        }
        for level in (workflow.get("env") or {}, job.get("env") or {}):
            for k, v in level.items():
                env[k] = Expressions(ctx, False).substitute(v)
                ctx["env"][k] = env[k]
        results: list[StepResult] = []
        failed = False
        self._post: list[tuple[str, list[Path]]] = []  # actions/cache: saved if the job succeeds
        if "if" in job and not truthy(Expressions(ctx, False).evaluate(_cond(job["if"]))):
            return JobResult(job_id, [], {}, False, "", workspace)
        for n, step in enumerate(job["steps"]):
            ev = Expressions(ctx, failed)
            name = step.get("name") or step.get("uses") or step["run"].splitlines()[0]
            if not truthy(ev.evaluate(_cond(step.get("if", "success()")))):
                result = StepResult(name, "skipped")
            else:
                step_env = {
                    **env,
                    **{k: ev.substitute(v) for k, v in (step.get("env") or {}).items()},
                }
                path_add = [p for p in github_path.read_text().splitlines() if p]
                if path_add:
                    step_env["PATH"] = ":".join([*reversed(path_add), step_env["PATH"]])
                if "uses" in step:
                    result = self._uses(step, name, ev, step_env, workspace, temp, strategy)
                else:
                    result = _bash(step, name, ev, step_env, workspace, files / f"out{n}")
                env.update(parse_output_file(github_env.read_text()))
            results.append(result)
            failed = failed or result.outcome == "failure"
            if "id" in step:
                steps_ctx[step["id"]] = {"outputs": result.outputs, "outcome": result.outcome}
        if not failed:  # actions/cache's post step: post-if success()
            for key, paths in self._post:
                self._save_cache(key, paths)
        ev = Expressions(ctx, failed)
        outputs = {k: ev.substitute(v) for k, v in (job.get("outputs") or {}).items()}
        return JobResult(job_id, results, outputs, failed, summary.read_text(), workspace)

    def _uses(
        self,
        step: dict[str, Any],
        name: str,
        ev: Expressions,
        env: dict[str, str],
        workspace: Path,
        temp: Path,
        strategy: tuple[int, int],
    ) -> StepResult:
        uses = step["uses"]
        with_ = {k: ev.substitute(v) for k, v in (step.get("with") or {}).items()}
        action = uses.split("@")[0]
        if action == "actions/checkout":
            args = ["clone", "-q", "--no-local", str(self.remote), str(workspace)]
            if with_.get("ref"):
                args[1:1] = ["-b", with_["ref"]]
            _git(self.base, *args)
            if with_.get("fetch-depth") != "0":
                _git(workspace, "remote", "set-branches", "origin", "main")
            return StepResult(name, "success", with_=with_)
        if action == "actions/setup-python":
            return StepResult(name, "success", with_=with_)
        if action == "actions/upload-artifact":
            src = workspace / with_["path"]
            if src.exists():
                shutil.copytree(src, self.artifacts / with_["name"], dirs_exist_ok=True)
            return StepResult(name, "success", with_=with_)
        if action == "actions/download-artifact":
            target = workspace / with_.get("path", ".")
            for art in sorted(self.artifacts.iterdir()):
                if fnmatch.fnmatch(art.name, with_.get("pattern", "*")):
                    shutil.copytree(art, target / art.name)
            return StepResult(name, "success", with_=with_)
        if action in ("actions/cache", "actions/cache/restore", "actions/cache/save"):
            paths = [Path(p.strip()) for p in with_["path"].splitlines() if p.strip()]
            if action == "actions/cache/save":
                self._save_cache(with_["key"], paths)
                return StepResult(name, "success", with_=with_)
            restore = [k.strip() for k in with_.get("restore-keys", "").splitlines() if k.strip()]
            hit = self._restore_cache(with_["key"], restore, paths)
            if action == "actions/cache" and hit != with_["key"]:
                self._post.append((with_["key"], paths))
            outputs = {"cache-hit": str(hit == with_["key"]).lower(),
                       "cache-matched-key": hit or ""}  # fmt: skip
            return StepResult(name, "success", outputs=outputs, with_=with_)
        if action.endswith("/agentci"):
            run = run_action(
                workspace,
                temp,
                with_,
                path=env["PATH"],
                python=sys.executable,
                job=env["GITHUB_JOB"],
                strategy=strategy,
                extra_env={k: v for k, v in env.items() if k not in ("PATH",)},
                artifacts={a.name: a for a in self.artifacts.iterdir()},  # resume-from
            )
            for s in run.steps:  # the action's own uploads
                if s.name == "Upload the outputs" and s.outcome == "success":
                    src = workspace / s.with_["path"]
                    if src.exists():
                        shutil.copytree(src, self.artifacts / s.with_["name"], dirs_exist_ok=True)
            outcome = "failure" if run.failed else "success"
            return StepResult(name, outcome, outputs=run.outputs, with_=with_, log=run.log)
        return StepResult(name, "success", with_=with_)  # recorded only

    def _restore_cache(self, key: str, restore_keys: list[str], paths: list[Path]) -> str | None:
        """Copy the matching entry's files back to ``paths``; its key, or None (a miss)."""
        entries = sorted(self.caches.iterdir(), key=lambda e: int(e.name.split("-", 1)[0]))
        keys = {(e / "key").read_text(): e for e in entries}
        found = keys.get(key)
        for prefix in restore_keys if found is None else []:
            matching = [e for k, e in keys.items() if k.startswith(prefix)]
            if matching:
                found = matching[-1]  # the newest
                break
        if found is None:
            return None
        for n, path in enumerate(paths):
            if (found / str(n)).exists():
                shutil.copytree(found / str(n), path, dirs_exist_ok=True)
        return (found / "key").read_text()

    def _save_cache(self, key: str, paths: list[Path]) -> None:
        """Save ``paths`` under ``key`` unless an entry has that key already."""
        entries = list(self.caches.iterdir())
        if any((e / "key").read_text() == key for e in entries):
            return
        entry = self.caches / f"{len(entries)}-entry"
        entry.mkdir()
        for n, path in enumerate(paths):
            if path.is_dir():
                shutil.copytree(path, entry / str(n))
        (entry / "key").write_text(key)


def _cond(text: Any) -> str:
    return EXPR.sub(lambda m: m.group(1), str(text))


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"git {args}: {done.stderr}"
    return done.stdout


def _wrapper(path: Path, target: str) -> None:
    path.write_text(f'#!/bin/sh\nexec "{target}" "$@"\n')
    path.chmod(0o755)


def _agentci_venv(temp: Path) -> None:
    """agentci's virtualenv as the action's install step leaves it (the test's agentci)."""
    from test_action import _source_id

    venv = temp / "agentci-venv"
    (venv / "bin").mkdir(parents=True)
    _wrapper(venv / "bin" / "python", sys.executable)
    _wrapper(venv / "bin" / "agentci", str(Path(sys.executable).parent / "agentci"))
    (venv / ".agentci-source").write_text(_source_id() + "\n")


def _bash(
    step: dict[str, Any],
    name: str,
    ev: Expressions,
    env: dict[str, str],
    workspace: Path,
    output: Path,
) -> StepResult:
    assert step.get("shell", "bash") == "bash", f"{name}: the runner's default shell is bash"
    output.write_text("")
    script = output.with_suffix(".sh")
    script.write_text(ev.substitute(step["run"]))
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=workspace / step.get("working-directory", "."),
        env={**env, "GITHUB_OUTPUT": str(output)},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    outcome = "success" if done.returncode == 0 else "failure"
    log = done.stdout + done.stderr + (f"\nexit {done.returncode}" if done.returncode else "")
    return StepResult(name, outcome, outputs=parse_output_file(output.read_text()), log=log)


def load(path: Path) -> dict[str, Any]:
    """A workflow file (``on:`` is read as the string, not YAML 1.1's True)."""
    data = yaml.safe_load(path.read_text())
    if True in data:
        data["on"] = data.pop(True)
    return data
