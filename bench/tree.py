"""Scenarios on one generated large tree (30,000 files; 300 with ``--quick``): search,
snapshots, copy isolation and the cost of an extra task, each against the plain tool that does
the same walk (``rg``, ``git ls-files``, ``git add -A``, ``cp -a``) or against one task."""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import subprocess
import time
from pathlib import Path

import yaml

from agentci.change.change import change_of, patch_text
from agentci.change.patch import capture_baseline
from agentci.change.snapshot import take
from agentci.recipe.schema import Workspace
from agentci.tools.base import ToolContext
from agentci.tools.search import Glob
from agentci.workspace import prepare_workspace
from bench.bench_grep import PATTERNS, find_rg, make_tree, rg_call, tool_call
from bench.bench_vs_gemini_cli import run
from bench.core import Bench, Metric, Section
from bench.sessions import GIT, commit_repo


def tree(b: Bench) -> Path:
    """The committed large tree: bench_grep's files, 1,000 ignored. Built once per bench run,
    or once for every run that passes the same ``--tree DIR`` (a finished tree leaves a marker
    naming its size there; a folder without it is built anew)."""
    files = b.size(30_000, 300)
    root = (b.tree_dir or b.tmp / "tree") / f"tree-{files}"
    marker = root.parent / f".bench-tree-{files}-done"
    if not marker.exists():
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        make_tree(root, files)
        for cmd in (["add", "-A"], ["commit", "-q", "-m", "tree"]):
            subprocess.run(GIT + cmd, cwd=root, check=True, capture_output=True, timeout=600)
        marker.touch()
    return root.resolve()


def _files(b: Bench) -> str:
    return f"{b.size(30_000, 300):,} files (+1,000 ignored)"


def _timed(fn, *args):  # type: ignore[no-untyped-def]
    """Milliseconds of ``fn(*args)`` (its result is dropped; see :func:`_call`)."""
    return _call(fn, *args)[0]


def _call(fn, *args):  # type: ignore[no-untyped-def]
    """``(milliseconds, fn(*args))``."""
    start = time.perf_counter()
    result = fn(*args)
    return (time.perf_counter() - start) * 1000, result


def _cpu_ms() -> float:
    """CPU milliseconds (user + system) of this process and the children it waited for."""
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return (me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime) * 1000


def _measured(fn, *args):  # type: ignore[no-untyped-def]
    """``(wall ms, CPU ms, fn(*args))``: CPU as :func:`_cpu_ms` counts it, which a machine
    loaded by others changes far less than the wall time."""
    cpu = _cpu_ms()
    wall, result = _call(fn, *args)
    return wall, _cpu_ms() - cpu, result


def _git_ls_files(root: Path) -> None:
    subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                   cwd=root, stdout=subprocess.PIPE, check=True)  # fmt: skip


def search(b: Bench) -> Section:
    """grep_search and glob through agentci's tools (in process) vs ``rg -n`` and
    ``git ls-files`` run as processes, interleaved."""
    root = tree(b)
    rg = find_rg()
    ctx = ToolContext(workspace=root)
    section = Section(
        f"grep and glob on a generated tree of {_files(b)}",
        [f"{rg} -n PATTERN", "git ls-files --cached --others --exclude-standard"],
    )
    for pattern in PATTERNS:
        ours, other = [], []
        for i in range(b.pairs + 1):
            t = asyncio.run(tool_call(ctx, pattern))[0] * 1000
            r = rg_call(rg, root, pattern) * 1000
            if i:
                ours.append(t)
                other.append(r)
        section.metrics.append(Metric(f"grep_search `{pattern}`", "ms", ours, other, "`rg -n`"))
    ours, other = [], []
    glob = Glob()
    for i in range(b.pairs + 1):
        t = _timed(lambda: asyncio.run(glob.run(Glob.Args(pattern="**/*.py"), ctx)))
        g = _timed(lambda: _git_ls_files(root))
        if i:
            ours.append(t)
            other.append(g)
    section.metrics.append(Metric("glob `**/*.py`", "ms", ours, other, "`git ls-files`"))
    section.notes.append("agentci's tools are called in process (no process start); "
                         "rg and git are whole processes.")  # fmt: skip
    return section


def _git_add_all(root: Path, scratch: Path) -> tuple[float, float]:
    """(wall ms, CPU ms) of one ``git add -A`` into a copy of the repository's index (the
    user's index untouched)."""
    index = scratch / "index"
    shutil.copyfile(root / ".git" / "index", index)
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    wall, cpu, _ = _measured(
        lambda: subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
    )
    return wall, cpu


def copy_isolation(root: Path):  # type: ignore[no-untyped-def]
    """``workspace.isolation: copy`` of ``root``, prepared as a run prepares it."""
    return prepare_workspace(Workspace(path=str(root), isolation="copy"), base_dir=root)


#: Pairs of copy isolation vs ``cp -a`` at most: one copy of 30,000 files takes tens of
#: seconds of file creation on a loaded machine (the disk, not agentci, sets the pace).
COPY_PAIRS = 3


def snapshots(b: Bench) -> Section:
    """The baseline and the end of a task (snapshot, change, patch) vs one ``git add -A``;
    copy isolation vs ``cp -a``. 20 files are edited and one added before the end. Each in
    wall time and in CPU time (this process and the git processes it waited for)."""
    root = tree(b)
    scratch = b.folder("snap-scratch")
    figures: dict[str, list[float]] = {}

    def keep(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    edited = sorted((root / "src").rglob("mod*.py"))[:20]
    for i in range(b.pairs + 1):
        t_base, c_base, base = _measured(capture_baseline, root)
        for path in edited:
            path.write_text(path.read_text() + f"# edit {i}\n")
        (root / "new_file.py").write_text("NEW = 1\n")
        t_end, c_end, _ = _measured(lambda b0: patch_text(b0, change_of(b0, take(b0))), base)
        t_add, c_add = _git_add_all(root, scratch)
        base.cleanup()
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, check=True)
        (root / "new_file.py").unlink()
        if i:
            for name, value in (("base", t_base), ("base cpu", c_base), ("end", t_end),
                                ("end cpu", c_end), ("add", t_add), ("add cpu", c_add)):  # fmt: skip
                keep(name, value)
    pairs = min(b.pairs, COPY_PAIRS)
    for _ in range(pairs):  # no warm-up pair: the tree was just read by the pairs above
        t_copy, c_copy, prepared = _measured(copy_isolation, root)
        prepared.cleanup()
        dest = scratch / "cp"
        t_cp, c_cp, _ = _measured(subprocess.run, ["cp", "-a", str(root), str(dest)])
        shutil.rmtree(dest)
        for name, value in (("copy", t_copy), ("copy cpu", c_copy), ("cp", t_cp),
                            ("cp cpu", c_cp)):  # fmt: skip
            keep(name, value)
    add = "one `git add -A`"
    return Section(
        f"Task end and copy isolation on the tree of {_files(b)}",
        ["GIT_INDEX_FILE=copy-of-.git/index git add -A", "cp -a TREE DEST"],
        [
            Metric("baseline (capture_baseline)", "ms", figures["base"], figures["add"], add),
            Metric("baseline, CPU", "ms", figures["base cpu"], figures["add cpu"], add),
            Metric(
                "task end (snapshot + change + patch)",
                "ms",
                figures["end"],
                figures["add"],
                add,
                ("<=", 1.1),
            ),
            Metric("task end, CPU", "ms", figures["end cpu"], figures["add cpu"], add, ("<=", 1.1)),
            Metric(
                "copy isolation (prepare_workspace)",
                "ms",
                figures["copy"],
                figures["cp"],
                "`cp -a`",
            ),
            Metric("copy isolation, CPU", "ms", figures["copy cpu"], figures["cp cpu"], "`cp -a`"),
        ],  # fmt: skip
        [
            "agentci's functions are called in process; 20 files edited and one added before "
            "the task end; `git add -A` is timed on that edited tree. CPU: user + system of "
            "this process and the processes it waited for.",
            f"Copy isolation: {pairs} pairs, no warm-up (creating 30,000 files takes tens of "
            "seconds on a loaded disk; the copy itself, not agentci's git, is most of it).",
        ],  # fmt: skip
    )


def _recipe(path: Path, repo: Path, tasks: int) -> Path:
    (path.parent / "replies.yaml").write_text("- text: Nothing to change.\n")
    recipe = {
        "version": 1, "name": "extra-task", "model": {"name": "scripted:replies.yaml"},
        "workspace": {"path": str(repo)}, "allow_no_changes": True,
        "outputs": {"dir": str(path.parent / f"out-{tasks}")},
        "tasks": [{"name": f"t{i}", "prompt": "Look, change nothing."} for i in range(tasks)],
    }  # fmt: skip
    path.write_text(yaml.safe_dump(recipe, sort_keys=False))
    return path


def extra_task(b: Bench) -> Section:
    """``agentci run`` of a recipe with two tasks vs one (scripted model, no network), on a
    small repository and on the large tree: the extra task's cost over a one-task run."""
    section = Section(
        "The extra task: a recipe of 2 tasks vs 1 (scripted model)",
        [f"{' '.join(b.agentci)} run one-task.yaml", f"{' '.join(b.agentci)} run two-tasks.yaml"],
    )
    small = commit_repo(b.folder("extra-small") / "repo", {"a.py": "A = 1\n"})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE"))}
    for label, repo in (("small repository (1 file)", small), (f"tree of {_files(b)}", tree(b))):
        folder = b.folder(f"extra-{len(section.metrics)}")
        (folder / "one").mkdir()
        (folder / "two").mkdir()
        one = _recipe(folder / "one" / "recipe.yaml", repo, 1)
        two = _recipe(folder / "two" / "recipe.yaml", repo, 2)
        extra, single, extra_cpu, single_cpu = [], [], [], []
        for i in range(b.pairs + 1):
            times, cpus = [], []
            for recipe in (one, two):
                proc = run(b.agentci + ["run", str(recipe)], env=env, cwd=repo, timeout=600)
                if proc.returncode != 0:
                    raise SystemExit(f"extra task: exit {proc.returncode}\n{proc.stderr[-2000:]}")
                times.append(proc.seconds * 1000)
                cpus.append(proc.cpu * 1000)
            if i:
                single.append(times[0])
                extra.append(times[1] - times[0])
                single_cpu.append(cpus[0])
                extra_cpu.append(cpus[1] - cpus[0])
        target = ("<=", 0.05) if repo != small else None
        section.metrics += [
            Metric(f"extra task, {label}", "ms", extra, single, "a one-task run", target),
            Metric(f"extra task, {label}, CPU", "ms", extra_cpu, single_cpu, "a one-task run",
                   target),
        ]  # fmt: skip
    section.notes.append("CPU: user + system of the agentci process and every process it "
                         "waited for (git, the output writer).")  # fmt: skip
    return section
