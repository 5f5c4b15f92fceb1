"""Fix runs on projects with thousands of tests: the whole ``agentci run`` (a scripted model
makes a one-line fix, verify runs the project's pytest) against the project's own two pytest
runs (with the bug, then fixed), in interleaved pairs.

* ``real_project`` — idna 3.20 from its sdist (6,441 tests, 1 skipped).
* ``many_tests`` — a generated project of 20,000 trivial tests in 20 modules, one of which the
  bug breaks: what agentci does per test case (reading the JUnit report, the verify events,
  junit.xml, result.json, report.html) at a size where anything quadratic would show.

Each side is timed as a whole process, wall and CPU. The CPU is the process tree's, read from
a cgroup made for the run (:mod:`bench.tree_cpu`): verify runs pytest in bubblewrap's PID
namespace, whose processes ``wait4`` never counts. Without a cgroup (not root) only wall time
is reported.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from bench.core import Bench, Metric, Section
from bench.sessions import GIT
from bench.tree_cpu import Timed, timed

#: the real project: idna's sdist ships its tests (6,441 with 1 skipped at 3.20)
PROJECT = "idna==3.20"
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
VERIFY = "python -m pytest -q -p no:cacheprovider tests"


@dataclass
class Project:
    """A git repository whose last commit is a one-line bug: ``path``'s ``good`` → ``bad``."""

    name: str
    root: Path
    path: str
    good: str
    bad: str


def _commit_bug(root: Path, path: str, good: str, bad: str) -> None:
    (root / ".gitignore").write_text(".agentci/\n__pycache__/\n")
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the project"]):
        subprocess.run(GIT + cmd, cwd=root, check=True, capture_output=True)
    text = (root / path).read_text()
    assert text.count(good) == 1, f"{root.name}: the line to break is not in {path}"
    (root / path).write_text(text.replace(good, bad))
    subprocess.run(GIT + ["commit", "-qam", "a one-line bug"], cwd=root, check=True)


def idna(b: Bench) -> Project:
    """idna 3.20's sdist, with ``len(label) <= 63`` broken to ``<= 62`` (18 tests fail)."""
    folder = b.folder("project")
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:",
                    "--no-deps", PROJECT, "-d", str(folder / "sdist")], check=True)  # fmt: skip
    sdist = next((folder / "sdist").glob("*.tar.gz"))
    with tarfile.open(sdist) as tar:
        tar.extractall(folder, filter="data")
    root = next(p for p in folder.iterdir() if p.is_dir() and p.name != "sdist")
    bug = ("idna/core.py", "    return len(label) <= 63\n", "    return len(label) <= 62\n")
    _commit_bug(root, *bug)
    return Project(PROJECT, root, *bug)


def generated(b: Bench, tests: int, modules: int = 20) -> Project:
    """``tests`` trivial tests in ``modules`` modules; the bug breaks one of them."""
    root = b.folder(f"many-{tests}")
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests").mkdir(exist_ok=True)
    per = tests // modules
    for m in range(modules):
        body = [f"def test_{m}_{i}():\n    assert {i} + {i} == {2 * i}\n" for i in range(per)]
        if m == 0:
            body[0] = "from calc import add\n\n\ndef test_0_0():\n    assert add(2, 3) == 5\n"
        (root / "tests" / f"test_m{m}.py").write_text("\n\n".join(body))
    (root / "conftest.py").write_text("")  # the rootdir on sys.path: tests import calc
    bug = ("calc.py", "    return a + b\n", "    return a - b\n")
    _commit_bug(root, *bug)
    return Project(f"{per * modules:,} generated tests", root, *bug)


def _recipe(b: Bench, project: Project) -> Path:
    folder = b.folder(f"recipe-{project.root.name}")
    replies = [{"calls": [{"name": "replace", "args": {"file_path": project.path,
                                                       "old_string": project.bad,
                                                       "new_string": project.good}}]},
               {"text": "Fixed the bug."}]  # fmt: skip
    (folder / "replies.yaml").write_text(yaml.safe_dump(replies))
    recipe = {
        "version": 1, "name": "fix-run", "model": {"name": "scripted:replies.yaml"},
        "prompt": "Make the tests pass.", "workspace": {"path": str(project.root)},
        "verify": {"command": VERIFY, "runner": "pytest", "timeout_seconds": 1800},
        "budget": {"max_turns": 5, "max_wall_seconds": 3600},
        "outputs": {"dir": str(folder / "out")},
    }  # fmt: skip
    (folder / "recipe.yaml").write_text(yaml.safe_dump(recipe, sort_keys=False))
    return folder / "recipe.yaml"


def _fresh_checkout(root: Path) -> None:
    """Remove the ``__pycache__`` folders a hand-run pytest left (a CI checkout has none)."""
    for folder in sorted(root.rglob("__pycache__"), reverse=True):
        shutil.rmtree(folder, ignore_errors=True)


def fix_run(b: Bench, project: Project, pairs: int, why: str) -> Section:
    """``pairs`` interleaved rounds: the whole ``agentci run``; then, on a fresh checkout (no
    ``__pycache__``), pytest with the bug, pytest fixed, and pytest with the bug again (its
    bytecode now written, as on a developer's machine); the workspace is reset after each."""
    recipe = _recipe(b, project)
    root = project.root
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    reset = GIT + ["checkout", "-q", "--", "."]
    walls: dict[str, list[float]] = {k: [] for k in ("ours", "fresh", "warm", "fail", "pass")}
    cpus: dict[str, list[float]] = {"ours": [], "fresh": [], "warm": []}
    summary = "?"

    def pytest_run(fixed: bool) -> Timed:
        text = (root / project.path).read_text()
        bad, good = (project.bad, project.good) if fixed else (project.good, project.bad)
        (root / project.path).write_text(text.replace(bad, good))
        return timed(PYTEST, env=env, cwd=root, timeout=3600)

    for _ in range(pairs):
        _fresh_checkout(root)
        ours = timed(b.agentci + ["run", str(recipe)], env=env, cwd=root, timeout=3600)
        if ours.proc.returncode != 0:
            raise SystemExit(
                f"{project.name}: agentci exit {ours.proc.returncode}\n{ours.proc.stderr[-3000:]}"
            )
        subprocess.run(reset, cwd=root, check=True)
        _fresh_checkout(root)
        fail, ok, fail_warm = pytest_run(False), pytest_run(True), pytest_run(False)
        subprocess.run(reset, cwd=root, check=True)
        codes = (fail.proc.returncode, ok.proc.returncode, fail_warm.proc.returncode)
        if codes[0] == 0 or codes[1] != 0 or codes[2] == 0:
            raise SystemExit(f"{project.name}: pytest exits {codes}")
        walls["ours"].append(ours.proc.seconds)
        walls["fresh"].append(fail.proc.seconds + ok.proc.seconds)
        walls["warm"].append(fail_warm.proc.seconds + ok.proc.seconds)
        walls["fail"].append(fail.proc.seconds)
        walls["pass"].append(ok.proc.seconds)
        if None not in (ours.cpu, fail.cpu, ok.cpu, fail_warm.cpu):
            cpus["ours"].append(ours.cpu)  # type: ignore[arg-type]
            cpus["fresh"].append(fail.cpu + ok.cpu)  # type: ignore[operator]
            cpus["warm"].append(fail_warm.cpu + ok.cpu)  # type: ignore[operator]
        summary = (ok.proc.stdout.strip().splitlines() or ["?"])[-1]
    target = ("<=", 1.2)
    metrics = [
        Metric("whole `agentci run` vs its two pytest runs on a fresh checkout", "s",
               walls["ours"], walls["fresh"], "pytest failing + passing", target),
        Metric("the same, pytest with its `__pycache__` from an earlier run", "s",
               walls["ours"], walls["warm"], "pytest failing + passing", None),
    ]  # fmt: skip
    if cpus["ours"]:
        metrics += [
            Metric("CPU (each process tree, from a cgroup), fresh checkout", "s", cpus["ours"],
                   cpus["fresh"], "pytest failing + passing", target),
            Metric("CPU, pytest with its `__pycache__`", "s", cpus["ours"], cpus["warm"],
                   "pytest failing + passing", None),
        ]  # fmt: skip
    med = sorted(walls["fail"])[len(walls["fail"]) // 2], sorted(walls["pass"])[pairs // 2]
    return Section(
        f"A fix run on a project with thousands of tests: {project.name}",
        [
            f"{' '.join(b.agentci)} run recipe.yaml  # verify: {VERIFY}; scripted model: one "
            "replace, then the answer",
            f"{' '.join(PYTEST)}  # with the bug, then fixed, then with the bug again",
        ],
        metrics,
        [
            f"The bug: `{project.bad.strip()}` for `{project.good.strip()}` in {project.path}. "
            f"pytest: {summary}. {pairs} pair(s), no warm-up pair: {why} pytest alone on a "
            f"fresh checkout (median): failing {med[0]:.1f} s, passing {med[1]:.1f} s.",
            "Each round starts from a fresh checkout (no `__pycache__`), as a CI job does: "
            "the first pytest run compiles the test modules (pytest's assertion rewrite) and "
            "writes their bytecode, the second reads it. agentci's verify never reads bytecode "
            "from the workspace; its later runs in a task start with what its baseline run "
            "compiled (docs/verify.md, Bytecode in the sandbox). The second row compares with "
            "pytest runs that both read bytecode an earlier run wrote.",
            "agentci runs pytest for the baseline and for the attempt; the failing-first "
            "selection (`verify.strategy: failing_first`, the default) runs in between only "
            "when the modules of the baseline's failing tests hold less than 80% of the suite "
            "(for idna they hold 6,368 of 6,441 tests: the attempt runs the full suite "
            "directly).",
            *([] if cpus["ours"] else ["No CPU row: no cgroup could be made (run as root)."]),
        ],
    )


def real_project(b: Bench) -> Section:
    """idna 3.20 (6,441 tests): ``min(--pairs, 3)`` pairs (one with ``--quick``)."""
    pairs = 1 if b.quick else min(b.pairs, 3)
    why = (
        "each pair runs pytest on 6,441 tests six times (three to four minutes on an idle "
        "2-core machine), so the scenario takes at most 3 pairs; the CPU row is the steady "
        "figure under load."
    )
    return fix_run(b, idna(b), pairs, why)


def many_tests(b: Bench) -> Section:
    """20,000 generated tests (200 with ``--quick``): ``min(--pairs, 3)`` pairs."""
    pairs = 1 if b.quick else min(b.pairs, 3)
    why = "each pair runs pytest on the whole suite five times and once on one module;"
    return fix_run(b, generated(b, b.size(20_000, 200)), pairs, why)
