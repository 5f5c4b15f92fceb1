"""The README's main job: the offline demo, end to end, through the real command."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import junitparser
import pytest

from agentci.events import types as ev
from agentci.testing.cli import Run, agentci, run_recipe

ROOT = Path(__file__).parents[2]

DEMO = ROOT / "examples" / "fix-failing-test"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Run:
    out = tmp_path_factory.mktemp("demo") / "out"
    return run_recipe(DEMO / "recipe.yaml", out, cwd=ROOT)


def test_the_demo_succeeds(demo: Run):
    assert demo.code == 0, demo.stderr
    assert demo.result["status"] == "success"
    assert demo.result["exit_code"] == 0
    assert demo.result["changed_files"] == ["shop/pricing.py"]


def test_the_patch_applies_to_a_fresh_copy_and_makes_its_tests_pass(demo: Run, tmp_path: Path):
    copy = tmp_path / "project"
    shutil.copytree(DEMO / "project", copy)
    patch = demo.out / "patch.diff"
    check = subprocess.run(
        ["git", "apply", "--check", str(patch)], cwd=copy, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr
    subprocess.run(["git", "apply", str(patch)], cwd=copy, check=True)
    tests = subprocess.run(
        [sys.executable, "-B", "-m", "unittest"],
        cwd=copy,
        capture_output=True,
        text=True,
    )
    assert tests.returncode == 0, tests.stderr


def test_the_demo_leaves_the_original_project_untouched(demo: Run):
    assert "percent / 100, 2)" in (DEMO / "project" / "shop" / "pricing.py").read_text()
    assert not (DEMO / "project" / ".git").exists()


def test_events_are_numbered_and_end_with_run_finished(demo: Run):
    events = demo.events
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert isinstance(events[0], ev.RunStarted)
    assert isinstance(events[-1], ev.RunFinished)
    assert (events[-1].status, events[-1].exit_code) == ("success", 0)
    assert len({e.run_id for e in events}) == 1


@pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="needs bubblewrap: without it shell runs are denied"
)
def test_the_events_tell_the_session(demo: Run):
    calls = [e.name for e in demo.events if isinstance(e, ev.ToolCallRequest)]
    assert calls == [
        "list_directory", "read_file", "read_file", "run_shell_command", "replace", "run_shell_command",
    ]  # fmt: skip
    decisions = [e.decision for e in demo.events if isinstance(e, ev.ToolCallDecision)]
    assert decisions == ["allow"] * 6
    shells = [
        e
        for e in demo.events
        if isinstance(e, ev.ToolCallResponse) and e.name == "run_shell_command"
    ]
    assert [e.exit_code for e in shells] == [1, 0]


def test_junit_parses_and_reports_the_task(demo: Run):
    xml = junitparser.JUnitXml.fromfile(str(demo.out / "junit.xml"))
    suites = list(xml) if isinstance(xml, junitparser.JUnitXml) else [xml]
    assert [s.name for s in suites] == ["fix-failing-test"]
    cases = {case.name: case for case in suites[0]}
    assert cases["agent"].is_passed
    tree = ElementTree.parse(demo.out / "junit.xml")
    assert [c.get("name") for c in tree.iter("testcase")] == ["agent", "guard:forbid_test_edits"]


def test_verify_ran_before_and_after_the_agent(demo: Run):
    runs = [e for e in demo.events if isinstance(e, ev.VerifyResult)]
    assert [(e.phase, e.passed, e.exit_code) for e in runs] == [
        ("baseline", False, 1),
        ("attempt", True, 0),
    ]


def test_the_console_shows_a_short_summary(demo: Run):
    assert "agentci: success (exit 0)" in demo.stderr
    assert "→ replace" in demo.stderr


def test_summary_md_names_the_outcome(demo: Run):
    summary = (demo.out / "summary.md").read_text()
    assert "**Run succeeded** (status `success`, exit code 0)" in summary
    assert "- `shop/pricing.py`" in summary


def test_the_replay_of_the_events_is_the_console_output(demo: Run):
    for ci in ("true", ""):  # the console view is the same whether CI is set or not
        done = agentci("replay", str(demo.out / "events.jsonl"), env={"CI": ci})
        assert done.returncode == 0, done.stderr
        assert done.stdout == _console_view(demo.stderr)


def test_the_summary_replay_is_summary_md(demo: Run):
    done = agentci("replay", str(demo.out), "--format", "summary")
    assert done.stdout == (demo.out / "summary.md").read_text()


def test_the_verbose_replay_is_the_verbose_console_output(tmp_path: Path):
    run = run_recipe(DEMO / "recipe.yaml", tmp_path / "out", "-v", cwd=ROOT)
    assert "  turn 1" in run.stderr.splitlines()  # -v shows what the plain console does not
    done = agentci("replay", str(run.out), "-v")
    assert done.stdout == _console_view(run.stderr)


def _console_view(stderr: str) -> str:
    """The run's stderr without its last line, which says where the outputs are (the events
    do not hold it)."""
    *view, last = stderr.splitlines(keepends=True)
    assert last.startswith("agentci: outputs in ")
    return "".join(view)


def test_the_readmes_apply_command_fixes_the_demo_project_in_the_checkout(
    demo: Run, tmp_path: Path
):
    readme = (ROOT / "README.md").read_text()
    start = readme.index("```bash\n", readme.index("<!-- apply-command -->")) + len("```bash\n")
    command = readme[start : readme.index("```", start)].strip()
    checkout = tmp_path / "agentci"
    shutil.copytree(DEMO / "project", checkout / "examples/fix-failing-test/project")
    (checkout / ".agentci/out").mkdir(parents=True)
    shutil.copy(demo.out / "patch.diff", checkout / ".agentci/out/patch.diff")
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    done = subprocess.run(["bash", "-c", command], cwd=checkout, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    tests = subprocess.run(
        [sys.executable, "-B", "-m", "unittest"],
        cwd=checkout / "examples/fix-failing-test/project",
        capture_output=True,
        text=True,
    )
    assert tests.returncode == 0, tests.stderr
