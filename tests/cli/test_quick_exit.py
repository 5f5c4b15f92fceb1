"""``agentci run`` ends without tearing the interpreter down (agentci.cli.console), and still
does everything a normal exit does: the exit handlers run, stdout is flushed whole, and the
exit code is the run's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tool_harness import init_repo

from agentci.run_locks import OUT, lock_file
from agentci.testing.fake_gemini import FakeGemini

#: More than a pipe holds: what is still buffered when the run ends must come out.
ANSWER = "".join(f"line {i}: the answer goes on\n" for i in range(12_000))


def test_a_run_leaves_with_its_answer_whole_its_locks_removed_and_its_exit_code(tmp_path: Path):
    ws = init_repo(tmp_path / "ws", {"a.py": "x = 1\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    with FakeGemini([{"text": ANSWER}]) as fake:
        done = subprocess.run(
            [sys.executable, "-m", "agentci", "run", "--prompt", "Explain a.py", "-q"],
            cwd=ws,
            env={**os.environ, **fake.env(), "TMPDIR": str(tmp)},
            capture_output=True,
            text=True,
            timeout=120,
        )
    result = json.loads((ws / ".agentci/out/result.json").read_text())
    assert (done.returncode, result["exit_code"], result["status"]) == (0, 0, "no_changes")
    assert done.stdout == ANSWER  # print() of the answer, then the exit: nothing cut
    out_lock = lock_file(OUT, (ws / ".agentci/out").resolve())
    assert not out_lock.exists()  # the out folder's lock: removed by an exit handler


def test_main_returns_to_an_embedding_program(tmp_path: Path):
    """Only the ``agentci`` program leaves early: a program that calls main() goes on after it."""
    ws = init_repo(tmp_path / "ws", {"a.py": "x = 1\n"})
    driver = (
        "import sys\nfrom agentci.cli import main\nsys.argv = ['agentci', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit as end:\n    print('after main', end.code)\n"
    )
    with FakeGemini([{"text": "It sets x."}]) as fake:
        done = subprocess.run(
            [sys.executable, "-c", driver, "run", "--prompt", "Explain a.py", "-q"],
            cwd=ws,
            env={**os.environ, **fake.env()},
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "It sets x.\nafter main 0\n"
