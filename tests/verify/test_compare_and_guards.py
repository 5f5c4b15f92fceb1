"""Baseline vs attempt, the flaky merge, and guards on real git workspaces (with revert)."""

from __future__ import annotations

from pathlib import Path

from agentci.change.patch import capture_baseline, changed_files, current_change, diff_since
from agentci.recipe.guards_config import Guards
from agentci.verify.compare import compare, merge_rerun
from agentci.verify.guards import check_guards, enforce_path_guards
from agentci.verify.run import TestOutcome, VerifyRun


def _run(passed: bool, **outcomes: str) -> VerifyRun:
    tests = {k: TestOutcome(k, v, f"{k} {v}") for k, v in outcomes.items()}  # type: ignore[arg-type]
    return VerifyRun("t", 0 if passed else 1, passed, "", 1, tests=tests, junit_found=True)


def test_compare_sorts_every_test_into_one_category():
    base = _run(False, a="failed", b="failed", c="passed", d="passed", gone="failed", s="skipped")
    now = _run(False, a="passed", b="error", c="passed", d="failed", new="failed", s="failed")
    changes = compare(base, now)
    assert changes.fixed == ["a"]
    assert changes.still_failing == ["b"]
    assert changes.regressed == ["d", "s"]
    assert changes.added == ["new"] and changes.added_failing == ["new"]
    assert changes.removed == ["gone"]
    assert changes.category("c") == "unchanged"


def test_without_a_baseline_every_test_is_added():
    changes = compare(None, _run(True, a="passed"))
    assert changes.added == ["a"] and not changes.fixed


def test_a_regression_that_passes_on_rerun_is_flaky_and_the_run_passes():
    first = _run(False, a="passed", flaky="failed")
    merged, flaky = merge_rerun(first, _run(True, a="passed", flaky="passed"), ["flaky"])
    assert flaky == ["flaky"] and merged.passed
    assert merged.tests["flaky"].outcome == "passed" and "flaky" in merged.tests["flaky"].message


def test_a_regression_that_fails_again_stays_and_other_failures_keep_the_run_failed():
    first = _run(False, real="failed", other="failed")
    merged, flaky = merge_rerun(first, _run(False, real="failed", other="passed"), ["real"])
    assert flaky == [] and not merged.passed
    merged, flaky = merge_rerun(
        _run(False, x="failed", y="failed"), _run(False, x="passed", y="failed"), ["x"]
    )
    assert flaky == ["x"] and not merged.passed  # y (not a suspect) still fails


def _edit(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("x = 2\n")
    (repo / "tests" / "test_app.py").write_text("def test_x():\n    assert True\n")
    (repo / "tests" / "test_new.py").write_text("def test_new():\n    pass\n")
    (repo / "docs.md").unlink()


def test_guards_report_each_violation(repo_factory):
    repo = repo_factory({"src/app.py": "x = 1\n", "tests/test_app.py": "t = 1\n", "docs.md": "d\n"})
    baseline = capture_baseline(repo)
    _edit(repo)
    guards = Guards(
        allowed_paths=["src/**", "tests/**"], forbid_test_edits=["tests/**"],
        max_changed_files=2, max_changed_lines=100,
    )  # fmt: skip
    results = {g.name: g for g in check_guards(guards, current_change(baseline))}
    assert results["allowed_paths"].paths == ["docs.md"]
    assert results["forbid_test_edits"].paths == ["tests/test_app.py", "tests/test_new.py"]
    assert not results["max_changed_files"].passed
    assert results["max_changed_files"].message == "4 files changed, at most 2 allowed"
    assert results["max_changed_lines"].passed
    assert not check_guards(Guards(max_changed_lines=3), current_change(baseline))[0].passed


def test_path_guards_revert_offending_files_so_the_patch_never_has_them(repo_factory):
    repo = repo_factory({"src/app.py": "x = 1\n", "tests/test_app.py": "t = 1\n", "docs.md": "d\n"})
    baseline = capture_baseline(repo)
    _edit(repo)
    guards = Guards(
        allowed_paths=["src/**", "tests/**"], forbid_test_edits=["tests/**"], max_changed_files=2
    )
    results = {g.name: g for g in enforce_path_guards(guards, baseline)}
    assert results["forbid_test_edits"].reverted == ["tests/test_app.py", "tests/test_new.py"]
    assert results["allowed_paths"].reverted == ["docs.md"]
    assert results["max_changed_files"].passed  # measured after the revert: 1 file left
    assert (repo / "tests" / "test_app.py").read_text() == "t = 1\n"
    assert not (repo / "tests" / "test_new.py").exists()
    assert (repo / "docs.md").read_text() == "d\n"
    assert changed_files(baseline) == ["src/app.py"]
    assert "tests/" not in diff_since(baseline)
    assert all(g.passed for g in check_guards(guards, current_change(baseline)))


def test_guards_in_a_subfolder_workspace_of_a_repo(repo_factory):
    repo = repo_factory({"pkg/src/a.py": "a = 1\n", "pkg/tests/t.py": "t = 1\n"})
    baseline = capture_baseline(repo / "pkg")
    (repo / "pkg" / "tests" / "t.py").write_text("t = 2\n")
    results = enforce_path_guards(Guards(forbid_test_edits=["tests/**"]), baseline)
    assert results[0].reverted == ["tests/t.py"]
    assert (repo / "pkg" / "tests" / "t.py").read_text() == "t = 1\n"
