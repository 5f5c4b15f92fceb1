"""report.html: one self-contained page per run, built from the redacted outputs, everything in
it escaped; read back with html.parser, and rendered in headless Chromium when one is installed.

The run: a scripted model fixes ``add`` but breaks ``sub`` (verify with pytest: one test fixed,
one regressed, one still failing), a tool prints ``<script>`` and a canary secret, the patch
adds a line holding ``<script>``, and a ``curl`` call is denied by the policy.
"""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from browser import find_browser, render
from lean_pytest import NO_PLUGIN_AUTOLOAD, without_plugin_autoload

from agentci.testing.cli import Run, run_recipe

CANARY = "canary-5be0c1f9e2d7a4"
SCRIPT_TAG = "<script>alert('x')</script>"
PATH_ENV = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a + b\n"
BROKEN = (
    f"# {SCRIPT_TAG}\n"
    "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n\n\n"
    "def mul(a, b):\n    return a + b\n"
)
TESTS = (
    "from calc import add, mul, sub\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_sub():\n    assert sub(5, 3) == 2\n\n\n"
    "def test_mul():\n    assert mul(3, 4) == 12\n"
)


class Page(HTMLParser):
    """The tags, attributes and text of a page (text inside <style> left out)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.chunks: list[str] = []
        self._in_style = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if not self._in_style:
            self.chunks.append(data)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.chunks).split())


def _repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t.invalid"}  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "initial"]):
        subprocess.run(["git", *args], cwd=path, env=env, check=True)
    return path


def _shell(command: str) -> dict:
    return {"calls": [{"name": "run_shell_command", "args": {"command": command}}]}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    script = [
        {
            "text": "Let me look.",
            "calls": [
                {"name": "run_shell_command", "args": {"command": f'echo "{SCRIPT_TAG}" {CANARY}'}}
            ],
        },  # fmt: skip
        _shell("curl http://example.invalid/"),
        {"calls": [{"name": "write_file", "args": {"file_path": "calc.py", "content": BROKEN}}]},
        {"text": f"Fixed add. The key was {CANARY}."},
    ]
    root = tmp_path_factory.mktemp("report")
    repo = _repo(root / "repo", {"calc.py": CALC, "test_calc.py": TESTS})
    (root / "script.yaml").write_text(yaml.safe_dump(script, sort_keys=False))
    recipe = {
        "version": 1, "name": "case", "prompt": "Fix the tests.", "sandbox": "none",
        "model": {"name": "scripted:script.yaml",
                  "pricing": {"input_per_mtok": 0.30, "output_per_mtok": 2.50}},
        "verify": {"command": "python -m pytest -q -p no:cacheprovider", "runner": "pytest",
                   "attempts": 1},
        "policy": {"rules": [{"tool": "run_shell_command", "command": "echo", "decision": "allow"}]},
        "guards": {"max_changed_files": 5},
    }  # fmt: skip
    recipe["policy"] = without_plugin_autoload(recipe.get("policy"))  # tests/lean_pytest.py
    (root / "recipe.yaml").write_text(yaml.safe_dump(recipe, sort_keys=False))
    env = {**PATH_ENV, **NO_PLUGIN_AUTOLOAD, "AGENTCI_TEST_TOKEN": CANARY}
    return run_recipe(root / "recipe.yaml", root / "out", cwd=repo, env=env)


@pytest.fixture(scope="module")
def page(run: Run) -> Page:
    return Page((run.out / "report.html").read_text())


def test_the_run_writes_report_html(run: Run):
    assert run.code == 1, run.stderr
    assert run.result["status"] == "verify_failed"
    assert (run.out / "report.html").is_file()


def test_the_page_loads_nothing_and_runs_nothing(page: Page):
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed"}
    assert tags >= {"svg", "rect", "polyline", "style"}
    for _tag, attrs in page.tags:
        assert not (attrs.keys() & {"src", "srcset"})
        assert not any(k.startswith("on") for k in attrs)
        assert (attrs.get("href") or "#").startswith("#")
    csp = [a["content"] for t, a in page.tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none'")


def test_script_tags_from_tool_output_and_diff_are_shown_as_text(run: Run, page: Page):
    html = (run.out / "report.html").read_text()
    assert "<script" not in html
    assert page.text.count(SCRIPT_TAG) >= 3  # the call's args, its output, the diff's added line
    assert f"+# {SCRIPT_TAG}" in page.text


def test_the_canary_secret_is_masked(run: Run, page: Page):
    assert CANARY not in (run.out / "report.html").read_text()
    assert "***" in page.text


def test_the_outcome_and_verify_results_are_shown(page: Page):
    text = page.text
    assert "agentci: case" in text
    assert "verify_failed exit code 1" in text
    assert "Fixed (1) test_calc::test_add Regressed (1) test_calc::test_sub" in text
    assert "Still failing (1) test_calc::test_mul" in text
    assert "baseline failed 1" in text


def test_the_timeline_shows_turns_calls_and_decisions(page: Page):
    text = page.text
    assert "Turn 1" in text and "Turn 4" in text
    assert "run_shell_command denied" in text
    assert "curl http://example.invalid/" in text
    assert "write_file allowed" in text


def test_guards_and_the_chart_are_there(page: Page):
    text = page.text
    assert "max_changed_files held" in text
    bars = [a for t, a in page.tags if t == "rect" and a.get("class") == "in"]
    assert len(bars) == 4  # one per turn


def test_replay_renders_the_same_page_from_the_outputs(run: Run, tmp_path: Path):
    from agentci.testing.cli import agentci

    target = tmp_path / "again.html"
    done = agentci("replay", str(run.out / "events.jsonl"), "--format", "html", "-o", str(target))
    assert done.returncode == 0, done.stderr
    again, first = Page(target.read_text()), Page((run.out / "report.html").read_text())
    assert "Regressed (1)" in again.text
    assert f"+# {SCRIPT_TAG}" in again.text
    # the same page but for what only the live run knew: its duration
    assert (
        again.text.split("Tokens and cost per turn")[1]
        == first.text.split("Tokens and cost per turn")[1]
    )


BROWSER = find_browser()


@pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium on PATH (.ci/run installs the distribution's chromium package)",
)
def test_chromium_shows_the_report(run: Run, tmp_path: Path):
    assert BROWSER is not None
    shown = render(BROWSER, run.out / "report.html", tmp_path / "profile")
    assert shown.png.startswith(b"\x89PNG\r\n\x1a\n") and len(shown.png) > 10_000
    visible = shown.text
    assert "verify_failed" in visible
    assert "Tokens and cost per turn" in visible
    assert "Regressed (1)" in visible
    assert SCRIPT_TAG in visible  # shown as text, not run
    assert CANARY not in visible
    assert "Turn 4" in visible
