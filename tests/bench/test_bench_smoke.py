"""``python -m bench --quick``: the benchmark suite still runs and writes RESULTS.md in its
shape (a smoke run with tiny sizes, without Gemini CLI; no figure is judged)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def smoke_command() -> list[str]:
    """The smoke run bench/README.md shows (its line ``python -m bench --quick ...``)."""
    readme = (ROOT / "bench" / "README.md").read_text()
    line = re.search(r"^python -m bench --quick .*?(?=\s+#)", readme, re.M)
    assert line, "bench/README.md shows no smoke run"
    return line.group(0).split()


def test_quick_run_writes_results_with_skipped_gemini_column(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    cmd = smoke_command()
    assert cmd[:3] == ["python", "-m", "bench"]
    done = subprocess.run(
        [sys.executable, *cmd[1:], "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith("# Benchmark results (`python -m bench`)\n")
    assert re.search(r"^- \w+, \d+ cores \(", text, re.M)  # the machine
    assert re.search(r"^- load average \(1 / 5 / 15 min\) before: [\d.]+ / [\d.]+ / [\d.]+; "
                     r"after: [\d.]+ / [\d.]+ / [\d.]+$", text, re.M)  # fmt: skip
    assert "- Gemini CLI column skipped (--no-gemini).\n" in text
    titles = re.findall(r"^## (.+)$", text, re.M)
    assert titles == [
        "Against the issue's targets",
        "Start-up: `--version` and `validate`",
        "grep and glob on a generated tree of 300 files (+1,000 ignored)",
    ]
    rows = re.findall(r"^\| (`--version`|`agentci validate`|grep_search .+?|glob .+?) \| (.+) \|$",
                      text, re.M)  # fmt: skip
    names = [name for name, _ in rows]
    assert names == [
        "`--version`", "`agentci validate`",
        "grep_search `needle_marker_7f3a`", r"grep_search `def handle_\w+_event\(`",
        "glob `**/*.py`",
    ]  # fmt: skip
    cells = {name: rest.split(" | ") for name, rest in rows}
    # without Gemini CLI its column says so; rg and git ls-files still give a ratio
    assert cells["`--version`"][1:4] == ["skipped", "Gemini CLI `--version`", "skipped"]
    assert re.fullmatch(r"\*\*[\d.]+\*\* \([\d.]+–[\d.]+\)", cells["glob `**/*.py`"][3])
    assert cells["glob `**/*.py`"][2] == "`git ls-files`"
    assert text.count("Commands:\n\n```sh\n") == 2
    assert "git ls-files --cached --others --exclude-standard\n" in text
