"""A big ignored tree with agentci's default settings: a ``node_modules/`` of more ignored files
than agentci used to fingerprint (100,000; a JavaScript project's easily holds 200,000-500,000).

Every one of them is fingerprinted now (docs/verify.md, "The verdict is about the patch"), so a
task whose fix is in a tracked file ends ``success`` (it used to end ``verify_failed``: "could
not judge the patch alone"), while a fix the agent hides in an ignored file deep in the tree
(the same size, its mtime put back) still fails and an ignored file it deletes is still
reported. Each test builds its own tree of empty files (about a second of file creation).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentci.testing.case import Case, shell_call, write_call, write_case
from agentci.testing.cli import Run, agentci

pytestmark = pytest.mark.timeout(600)

#: Ignored files in the tree: more than the old default limit (100,000).
FILES = 100_500
DEEP = "node_modules/@s05/p05000/lib/deep"
CALC = f"import sys\n\nsys.path.insert(0, {DEEP!r})\nfrom zdep import K\n\n\ndef add(a, b):\n"
BROKEN = CALC + "    return a + b + K\n"
FIXED = CALC + "    return a + b\n"
CHECK = "python3 -c 'from calc import add; assert add(2, 3) == 5'"
#: The agent's hidden fix: the ignored module rewritten with the same size, its mtime put back.
HIDE = (
    "python3 -c \"import os; p = '" + DEEP + "/zdep.py'; st = os.stat(p); "
    "open(p, 'w').write('K = 0\\n'); os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))\""
)
GONE = "node_modules/@s09/p09999/f3.js"


def make_tree(node_modules: Path, files: int) -> None:
    """``files`` empty files, 10 a folder (``@sNN/pNNNNN/fK.js``), and ``zdep.py`` deeper."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for d in range(-(-files // 10)):
        folder = f"{node_modules}/@s{d // 1000:02d}/p{d:05d}"
        os.makedirs(folder)
        for k in range(min(10, files - d * 10)):
            os.close(os.open(f"{folder}/f{k}.js", flags, 0o644))
    deep = node_modules.parent / DEEP
    deep.mkdir(parents=True)
    (deep / "zdep.py").write_text("K = 1\n")


def big_case(tmp_path: Path, script: list, monkeypatch: pytest.MonkeyPatch) -> Case:
    monkeypatch.delenv("AGENTCI_IGNORED_SCAN_LIMIT", raising=False)  # the default limit
    recipe = {"policy": {"mode": "yolo"}, "verify": {"command": CHECK, "attempts": 1}}
    files = {".gitignore": "node_modules/\n", "calc.py": BROKEN}
    case = write_case(tmp_path, [*script, {"text": "done"}], recipe, files=files)
    make_tree(case.repo / "node_modules", FILES)
    return case


def run(case: Case) -> Run:
    done = agentci("run", str(case.recipe), "--out", str(case.out), cwd=case.repo, timeout=500)
    return Run(done.returncode, done.stdout, done.stderr, case.out)


def test_a_fix_in_a_tracked_file_succeeds_beside_a_big_ignored_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_ = run(big_case(tmp_path, [write_call("calc.py", FIXED)], monkeypatch))
    assert (run_.code, run_.result["status"]) == (0, "success"), run_.stderr[-800:]
    assert "ignored_scan_truncated" not in [getattr(e, "kind", "") for e in run_.events]
    assert run_.result["ignored_files_written"] == []


def test_a_fix_hidden_deep_in_the_big_ignored_tree_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = [shell_call(f"{HIDE}; echo '# touched' >> calc.py")]
    run_ = run(big_case(tmp_path, script, monkeypatch))
    assert (run_.code, run_.result["status"]) == (1, "verify_failed"), run_.stderr[-800:]
    assert run_.result["tasks"][0]["reason"] == (
        "verify could not judge the patch alone: 1 ignored file(s) the agent changed could not "
        f"be set aside while it ran: {DEEP}/zdep.py (there at the baseline, too large to keep "
        "a copy)"
    )
    assert run_.result["ignored_files_written"] == [f"{DEEP}/zdep.py"]


def test_an_ignored_file_deleted_in_the_big_tree_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = [shell_call(f"rm {GONE}"), write_call("calc.py", FIXED)]
    run_ = run(big_case(tmp_path, script, monkeypatch))
    assert (run_.code, run_.result["status"]) == (0, "success"), run_.stderr[-800:]
    assert run_.result["ignored_files_deleted"] == [GONE]
