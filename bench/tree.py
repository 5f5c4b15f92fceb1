"""Scenarios on one generated large tree (30,000 files; 300 with ``--quick``): search,
snapshots, copy isolation and the cost of an extra task, each against the plain tool that does
the same walk (``rg``, ``git ls-files``, ``git add -A``, ``cp -a``) or against one task."""

from __future__ import annotations

import asyncio
import os
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
    """The committed large tree (built once per bench run): bench_grep's files, 1,000 ignored."""
    root = b.tmp / "tree"
    if not (root / ".git").exists():
        root.mkdir()
        make_tree(root, b.size(30_000, 300))
        for cmd in (["add", "-A"], ["commit", "-q", "-m", "tree"]):
            subprocess.run(GIT + cmd, cwd=root, check=True, capture_output=True, timeout=600)
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


def _git_add_all(root: Path, scratch: Path) -> float:
    """One ``git add -A`` into a copy of the repository's index (the user's index untouched)."""
    index = scratch / "index"
    shutil.copyfile(root / ".git" / "index", index)
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    return _timed(lambda: subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True))


def copy_isolation(root: Path):  # type: ignore[no-untyped-def]
    """``workspace.isolation: copy`` of ``root``, prepared as a run prepares it."""
    return prepare_workspace(Workspace(path=str(root), isolation="copy"), base_dir=root)


def snapshots(b: Bench) -> Section:
    """The baseline and the end of a task (snapshot, change, patch) vs one ``git add -A``;
    copy isolation vs ``cp -a``. 20 files are edited and one added before the end."""
    root = tree(b)
    scratch = b.folder("snap-scratch")
    base_ms, end_ms, add_ms, copy_ms, cp_ms = [], [], [], [], []
    edited = sorted((root / "src").rglob("mod*.py"))[:20]
    for i in range(b.pairs + 1):
        t_base, base = _call(capture_baseline, root)
        for path in edited:
            path.write_text(path.read_text() + f"# edit {i}\n")
        (root / "new_file.py").write_text("NEW = 1\n")
        t_end = _timed(lambda b0: patch_text(b0, change_of(b0, take(b0))), base)
        t_add = _git_add_all(root, scratch)
        base.cleanup()
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, check=True)
        (root / "new_file.py").unlink()
        t_copy, prepared = _call(copy_isolation, root)
        prepared.cleanup()
        dest = scratch / "cp"
        t_cp = _timed(subprocess.run, ["cp", "-a", str(root), str(dest)])
        shutil.rmtree(dest)
        if i:
            base_ms.append(t_base)
            end_ms.append(t_end)
            add_ms.append(t_add)
            copy_ms.append(t_copy)
            cp_ms.append(t_cp)
    return Section(
        f"Task end and copy isolation on the tree of {_files(b)}",
        ["GIT_INDEX_FILE=copy-of-.git/index git add -A", "cp -a TREE DEST"],
        [
            Metric("baseline (capture_baseline)", "ms", base_ms, add_ms, "one `git add -A`"),
            Metric(
                "task end (snapshot + change + patch)",
                "ms",
                end_ms,
                add_ms,
                "one `git add -A`",
                ("<=", 1.1),
            ),
            Metric("copy isolation (prepare_workspace)", "ms", copy_ms, cp_ms, "`cp -a`"),
        ],  # fmt: skip
        [
            "agentci's functions are called in process; 20 files edited and one added before "
            "the task end; `git add -A` is timed on that edited tree."
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
        extra, single = [], []
        for i in range(b.pairs + 1):
            times = []
            for recipe in (one, two):
                proc = run(b.agentci + ["run", str(recipe)], env=env, cwd=repo, timeout=600)
                if proc.returncode != 0:
                    raise SystemExit(f"extra task: exit {proc.returncode}\n{proc.stderr[-2000:]}")
                times.append(proc.seconds * 1000)
            if i:
                single.append(times[0])
                extra.append(times[1] - times[0])
        target = ("<=", 0.05) if repo != small else None
        section.metrics.append(
            Metric(f"extra task, {label}", "ms", extra, single, "a one-task run", target))  # fmt: skip
    return section
