"""The built-in ``agentci-fix-lint`` hook on files ruff finds nothing in ends without loading the
run's machinery (agentci.precommit.quick), and leaves what the whole run leaves: the same
exit code, lines and outputs, but for the times and the run id. Where it cannot say the same
(a project context file the run would load), the whole run decides."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentci.testing.repo import commit_repo

CLEAN = '"""A module ruff has nothing to say about."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n'
FILES = {"pkg/clean.py": CLEAN, "-dash.py": CLEAN, ".gitignore": ".agentci/\n"}
HOOK = ["pre-commit", "--recipe", "fix-lint", "--", "pkg/clean.py", "-dash.py"]

#: ``agentci ARGS`` as the console script runs it, then the modules it had loaded.
MODULES_AFTER = """\
import json, os, sys
programs = []
def started(event, args):
    if event == "subprocess.Popen":
        programs.append(os.path.basename(args[0]))
sys.addaudithook(started)
sys.argv = ["agentci", *sys.argv[1:]]
from agentci.cli import main
try:
    main()
except SystemExit as end:
    code = end.code
print(json.dumps({"code": code, "modules": sorted(sys.modules), "programs": programs}))
"""

#: What deciding "clean" never loads.
HEAVY = [
    "pydantic",
    "agentci.events.types",
    "agentci.recipe.schema",
    "agentci.run.launch",
    "agentci.loop.session",
    "jinja2",
    "google.genai",
    "yaml",  # the built-in recipe comes parsed (agentci.precommit.builtin_recipe)
    "asyncio",  # ruff runs without an event loop (agentci.childproc.run_blocking)
    "agentci.change.privgit",  # the commit is asked for, no snapshot taken
    "agentci.workspace_io",  # the model's file readers: no model here
]


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "GEMINI_API_KEY": "", "GOOGLE_API_KEY": "", **extra}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # ruff
    for name in ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "OTEL_EXPORTER_OTLP_ENDPOINT"):
        env.pop(name, None)
    return env


def _hook(repo: Path, out: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", MODULES_AFTER, *HOOK[:3], "--out", out, *HOOK[3:]],
        cwd=repo,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def _steady(text: str) -> str:
    """``text`` without what differs from run to run: times, durations, the run id."""
    text = re.sub(r'"(ts|started_at)": ?"[^"]*"', r'"\1":"T"', text)
    text = re.sub(r'"duration_ms": ?\d+', '"duration_ms":0', text)
    text = re.sub(r'"run_id": ?"\w+"', '"run_id":"R"', text)
    text = re.sub(r'(time|id)="[^"]*"', r'\1="X"', text)
    return re.sub(r"cost n/a, [\d.]+ s\.", "cost n/a, S s.", text)


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, str, Path]]:
    """The hook on clean files, on the clean path and as a whole run (AGENTCI_PRECOMMIT_QUICK=0),
    in one repository: (what it loaded and its code, its stderr, its output folder)."""
    repo = commit_repo(tmp_path_factory.mktemp("quick") / "project", FILES)
    runs = {}
    for name, switch in (("quick", "1"), ("run", "0")):
        done = _hook(repo, f".agentci/{name}", AGENTCI_PRECOMMIT_QUICK=switch)
        assert done.returncode == 0, done.stderr
        runs[name] = (
            json.loads(done.stdout.splitlines()[-1]),
            done.stderr,
            repo / ".agentci" / name,
        )
    return runs


def test_clean_files_exit_0_without_loading_pydantic_the_models_or_the_run(both) -> None:
    seen, _, _ = both["quick"]
    assert seen["code"] == 0
    assert [m for m in HEAVY if m in seen["modules"]] == []


def test_the_whole_run_is_what_loads_them(both) -> None:
    seen, _, _ = both["run"]
    assert seen["code"] == 0
    assert [m for m in ("pydantic", "agentci.run.launch") if m in seen["modules"]] == [
        "pydantic",
        "agentci.run.launch",
    ]


@pytest.mark.parametrize(
    "name",
    ["events.jsonl", "result.json", "junit.xml", "summary.md", "patch.diff", "history.jsonl"],
)
def test_the_clean_path_writes_the_outputs_the_run_writes(both, name: str) -> None:
    quick, run = both["quick"][2] / name, both["run"][2] / name
    assert _steady(quick.read_text()) == _steady(run.read_text())


def test_the_clean_path_writes_the_same_files_in_its_folder(both) -> None:
    assert sorted(p.name for p in both["quick"][2].iterdir()) == sorted(
        p.name for p in both["run"][2].iterdir()
    )


def test_the_clean_path_prints_the_lines_the_run_prints(both) -> None:
    quick, run = both["quick"][1], both["run"][1]
    assert quick.replace(".agentci/quick/", ".agentci/run/") == run
    assert "verify (baseline) passed" in quick


def test_the_clean_path_starts_bubblewrap_once_for_ruff_without_a_probe(both) -> None:
    seen, _, _ = both["quick"]
    assert seen["programs"].count("bwrap") == 1


def test_a_bubblewrap_that_does_not_start_leaves_the_decision_to_the_run(tmp_path: Path) -> None:
    repo = commit_repo(tmp_path / "project", FILES)
    broken = tmp_path / "bin"
    broken.mkdir()
    (broken / "bwrap").write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n"
    )
    (broken / "bwrap").chmod(0o755)
    done = _hook(repo, ".agentci/out", PATH=f"{broken}{os.pathsep}{_env()['PATH']}")
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    events = [json.loads(line) for line in (repo / ".agentci/out/events.jsonl").open()]
    warned = [e["kind"] for e in events if e["type"] == "warning"]
    # the run decided: its probe found bubblewrap unusable and it said so (sandbox: auto)
    assert ("agentci.run.launch" in seen["modules"], warned) == (True, ["sandbox_unavailable"])


def test_a_dash_name_reaches_ruff_as_a_file(both) -> None:
    events = (both["quick"][2] / "events.jsonl").read_text().splitlines()
    verify = json.loads(events[1])
    assert verify["command"].endswith("pkg/clean.py ./-dash.py")


def test_a_project_context_file_leaves_the_decision_to_the_run(tmp_path: Path) -> None:
    repo = commit_repo(tmp_path / "project", {**FILES, "pkg/AGENTS.md": "Be brief.\n"})
    done = _hook(repo, ".agentci/out")
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["code"] == 0, done.stderr
    assert "agentci.run.launch" in seen["modules"]
    result = json.loads((repo / ".agentci/out/result.json").read_text())
    assert [f["path"] for f in result["tasks"][0]["context_files"]] == ["pkg/AGENTS.md"]


def test_a_file_ruff_complains_about_goes_to_the_run(tmp_path: Path) -> None:
    repo = commit_repo(tmp_path / "project", {**FILES, "bad.py": "import os\n"})
    done = subprocess.run(
        [sys.executable, "-c", MODULES_AFTER, *HOOK[:4], "bad.py"],
        cwd=repo,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["code"] == 2  # the model is needed and there is no key
    assert "agentci.run.launch" in seen["modules"]
    assert "SKIP=agentci-fix-lint git commit" in done.stderr


def test_a_signal_while_ruff_runs_ends_the_hook_cancelled_with_outputs(tmp_path: Path) -> None:
    repo = commit_repo(tmp_path / "project", FILES)
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "ruff").write_text("#!/bin/sh\ntouch ruff-started\nexec sleep 60\n")
    (stub / "ruff").chmod(0o755)
    env = _env()
    env["PATH"] = f"{stub}{os.pathsep}{env['PATH']}"
    hook = subprocess.Popen(
        [sys.executable, "-m", "agentci", *HOOK],
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not (repo / "ruff-started").exists() and hook.poll() is None:
            time.sleep(0.05)
        hook.send_signal(signal.SIGTERM)
        _, err = hook.communicate(timeout=120)
    finally:
        hook.kill()
    assert hook.returncode == 143, err
    result = json.loads((repo / ".agentci/pre-commit-out/result.json").read_text())
    assert (result["status"], result["exit_code"]) == ("cancelled", 143)
