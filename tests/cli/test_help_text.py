"""``agentci --help`` and ``agentci run --help`` tell what a pipeline needs to know: every exit
code (the table of agentci.outcome) and every output file (the table of docs/outputs.md)."""

from __future__ import annotations

import re
from pathlib import Path

from agentci.outcome import EXIT_CODES, SIGNAL_EXIT_CODES
from agentci.testing.cli import agentci

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _help(*args: str) -> str:
    done = agentci(*args, "--help")
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())


def test_the_main_help_lists_every_exit_code_with_its_status():
    text = _help()
    codes = text.split("Exit codes:", 1)[1].split("Options:", 1)[0]
    for status, code in EXIT_CODES.items():
        words = status.value.replace("_", " ")
        assert re.search(rf"(?<![\d/]){code}\b[^,]*\b{words}\b", codes), (code, words, codes)
    for code in SIGNAL_EXIT_CODES.values():
        assert re.search(rf"\b{code}\b[^,]* cancelled", codes), (code, codes)


def test_the_main_and_run_help_name_every_output_file_of_the_outputs_table():
    table = (DOCS / "outputs.md").read_text().split("| file | what |", 1)[1].split("\n\n", 1)[0]
    files = re.findall(r"^\| `([\w.-]+\.(?:jsonl|diff|xml|json|md|html))` \|", table, re.M)
    assert {"report.html", "sarif.json", "events.jsonl"} <= set(files)
    for command in ((), ("run",)):
        text = _help(*command)
        for name in files:
            assert name in text, (command, name)
