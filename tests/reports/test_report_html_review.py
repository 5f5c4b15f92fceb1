"""report.html as a reviewer reads it: what happened comes first — the outcome, the model's
final message (rendered markdown) and the diff — then the checks, then the timeline folded by
turn. The numbers a reviewer must not miss are in the header: denied calls, and a cost that no
one paid (a scripted model's) marked simulated.

The run: verify is pytest with two attempts and ``forbid_test_edits`` guards the tests. The
scripted model first weakens the test (the guard reverts it, which uses attempt 1 without a
verify run), then tries ``curl`` (denied), fixes the code, and ends with a markdown message
holding raw HTML, a link and an image. Verify attempt 2 passes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from browser import find_browser, render
from lean_pytest import NO_PLUGIN_AUTOLOAD, without_plugin_autoload
from test_report_html import PATH_ENV, Page, _repo, _shell

from agentci.testing.cli import Run, run_recipe

CALC = "def add(a, b):\n    return a - b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
WEAKENED = "def test_add():\n    assert True\n"
MESSAGE = (
    "**Fixed** `add`: it subtracted.\n\n"
    "- `calc.py`: `a - b` became `a + b`\n"
    "- the test is unchanged\n\n"
    "<b>raw html</b> [the docs](http://example.invalid/docs) "
    "![chart](http://example.invalid/chart.png)\n"
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    script = [
        {"calls": [{"name": "write_file", "args": {"file_path": "test_calc.py", "content": WEAKENED}}]},
        {"text": "The test passes now."},
        _shell("curl http://example.invalid/"),
        {"calls": [{"name": "write_file",
                    "args": {"file_path": "calc.py", "content": CALC.replace("-", "+")}}]},
        {"text": MESSAGE},
    ]  # fmt: skip
    root = tmp_path_factory.mktemp("review")
    repo = _repo(root / "repo", {"calc.py": CALC, "test_calc.py": TESTS})
    (root / "script.yaml").write_text(yaml.safe_dump(script, sort_keys=False))
    recipe = {
        "version": 1, "name": "review", "prompt": "Fix the tests.", "sandbox": "none",
        "model": {"name": "scripted:script.yaml",
                  "pricing": {"input_per_mtok": 0.30, "output_per_mtok": 2.50}},
        "verify": {"command": "python -m pytest -q -p no:cacheprovider", "runner": "pytest",
                   "attempts": 2},
        "guards": {"forbid_test_edits": ["test_*.py"]},
    }  # fmt: skip
    recipe["policy"] = without_plugin_autoload(recipe.get("policy"))  # tests/lean_pytest.py
    (root / "recipe.yaml").write_text(yaml.safe_dump(recipe, sort_keys=False))
    return run_recipe(
        root / "recipe.yaml", root / "out", cwd=repo, env={**PATH_ENV, **NO_PLUGIN_AUTOLOAD}
    )


@pytest.fixture(scope="module")
def html(run: Run) -> str:
    assert run.code == 0, run.stderr
    return (run.out / "report.html").read_text()


def test_outcome_final_message_and_diff_come_before_the_checks_and_the_timeline(html: str):
    text = Page(html).text
    order = ["success exit code 0", "Final message", "Fixed add", "Diff", "+ return a + b",
             "Verify run result", "Guards guard result", "Tokens and cost per turn",
             "Timeline Before the first turn", "Turn 1"]  # fmt: skip
    places = [text.find(words) for words in order]
    assert -1 not in places, dict(zip(order, places, strict=True))
    assert places == sorted(places)


def test_the_final_message_is_rendered_markdown_that_loads_and_links_nothing(html: str):
    message = html.split('id="final-message-1">', 1)[1].split("</div>", 1)[0]
    assert "<strong>Fixed</strong> <code>add</code>: it subtracted." in message
    assert "<li><code>calc.py</code>: <code>a - b</code> became <code>a + b</code></li>" in message
    assert "&lt;b&gt;raw html&lt;/b&gt;" in message
    assert "[the docs](http://example.invalid/docs)" in message
    assert "<a " not in message and "<img" not in message


def test_the_header_counts_denied_calls_and_marks_the_cost_simulated(html: str):
    facts = Page(html.split('id="run-facts">', 1)[1].split("</p>", 1)[0]).text
    assert re.fullmatch(
        r"model scripted:script\.yaml · 5 turns · 3 tool calls \( 1 denied \) · [\d,]+ tokens · "
        r"cost \$0\.\d{4} simulated · [\d.]+ s · 1 changed file: calc\.py",
        facts,
    ), facts


def test_the_attempt_the_guard_used_is_in_the_verify_table(html: str):
    text = Page(html).text
    assert (
        "Verify: baseline failed → attempt 1 not run (guard forbid_test_edits violated) → "
        "attempt 2 passed · Tests: 1 fixed · Guards: forbid_test_edits violated"
    ) in text
    assert (
        "attempt 1 not run — guard forbid_test_edits violated: the change to test_calc.py was "
        "reverted and the model was asked again"
    ) in text
    assert "attempt 2 passed 0 1 total, 1 passed" in text
    assert "forbid_test_edits violated" in text.split("reverted (not in the patch)")[1]
    assert "broken" not in text


def test_the_timeline_is_folded_by_turn(html: str):
    page = Page(html)
    folded = [attrs for tag, attrs in page.tags if tag == "details" and "turn" in (attrs.get("class") or "")]  # fmt: skip
    assert len(folded) == 6  # before the first turn, then turns 1 to 5
    assert not any("open" in attrs for attrs in folded)
    assert "Turn 3 · " in page.text and "run_shell_command denied" in page.text


BROWSER = find_browser()


@pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium on PATH (.ci/run installs the distribution's chromium package)",
)
def test_at_1400_px_what_happened_is_seen_without_scrolling(run: Run, html: str, tmp_path: Path):
    assert BROWSER is not None
    probe = (
        "JSON.stringify({height: innerHeight, width: innerWidth, bottoms: "
        "['run-status', 'run-facts', 'checks-1', 'final-message-1', 'diff-1']"
        ".map(id => document.getElementById(id).getBoundingClientRect().bottom)})"
    )
    shown = render(BROWSER, run.out / "report.html", tmp_path / "profile", width=1400, probe=probe)
    (run.out.parent / "report-1400.png").write_bytes(shown.png)  # to look at
    seen = shown.probed
    assert seen["width"] == 1400
    assert all(0 < bottom <= seen["height"] for bottom in seen["bottoms"]), seen
    visible = shown.text
    assert "The test passes now." not in visible  # the folded timeline keeps its texts closed
    assert "Fixed add: it subtracted." in visible
