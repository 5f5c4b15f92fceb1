"""The ``weakened_tests`` guard: a change that makes tests pass by weakening them fails the task.

``guards.weakened_tests`` is ``on`` (a finding fails the task ``verify_failed``, reason
``weakened_tests: …``), ``report`` (findings listed, the task not failed) or ``off``. Unset, it
is ``on`` when verify reports per-test results (``runner: pytest`` or ``junit:``), else ``off``
(:func:`mode_of`). What counts as a finding (each a :class:`Finding`):

=====================  =====================================================================
kind                   found when
=====================  =====================================================================
``disappeared``        a test of the baseline verify is not in the final verify (deleted,
                       renamed, deselected, no longer collected, or no readable report)
``skipped``            a test that passed or failed at the baseline is skipped or xfail now
``marker_added``       a skip/xfail marker or call was added to a test that was there before
                       (decorator, ``pytestmark``, ``pytest.skip()``, ``self.skipTest()``…)
``cases_removed``      a ``@pytest.mark.parametrize`` lost cases
``asserts_removed``    a test, or any other function of a test file (a helper, a fixture),
                       has fewer ``assert`` / ``self.assert*`` / ``pytest.raises`` than
                       before (AST count; an assert that cannot fail — ``assert True``,
                       ``x or True``, ``x == x`` — does not count)
``shadowed``           a test name is defined twice at module or class level of a test file
                       (Python keeps the last definition: the first never runs)
``emptied``            a test's body became ``pass``, ``...`` or ``return``
``removed``            a test function is gone from its file (only when verify has no
                       per-test results; otherwise ``disappeared`` says it)
``collection_hook``    a module-level ``pytest_*`` name (a hook, however it is bound: ``def``,
                       assignment, import) was added or changed, or a conftest's
                       ``collect_ignore`` / ``pytest_plugins``
``conftest``           a ``conftest.py`` (any folder) was added or changed: its fixtures and
                       hooks run around every test below it; a recipe whose task is to edit
                       one sets ``guards.weakened_tests: report`` (or ``off``)
``collection_config``  ``addopts`` gained ``-k``/``-m``/``--deselect``/``--ignore``/``-p``/a
                       path, or ``testpaths``/``norecursedirs``/``python_*`` changed, in
                       pytest.ini, pyproject.toml, setup.cfg or tox.ini
``hidden_file``        verify passes only with files the agent made that the ignore rules hide
                       (so they are not in the patch; :mod:`agentci.verify.set_aside`)
=====================  =====================================================================

The before side is read from the baseline tree in agentci's private git dir, the after side
through :mod:`agentci.workspace_io`; Python files are parsed (:mod:`.test_shape`), never
imported.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from agentci import workspace_io
from agentci.change.privgit import GitFailed
from agentci.change.snapshot import Baseline
from agentci.recipe.guards_config import Guards
from agentci.recipe.verify_config import Verify
from agentci.verify.pytest_config import CONFIG_FILES, collection_settings, weakening_changes
from agentci.verify.run import VerifyRun
from agentci.verify.test_shape import FileShape, shape_of

MAX_FILE_BYTES = 2 << 20  # a test or config file larger than this is not read
SHOWN = 20  # findings named in a reason or a prompt


@dataclass(frozen=True)
class Finding:
    """One way the change weakened the tests: ``test`` is a test id or a file path."""

    kind: str
    test: str
    detail: str

    def line(self) -> str:
        """``test: detail``, for prompts, summaries and reasons."""
        return f"{self.test}: {self.detail}"

    def as_dict(self) -> dict[str, str]:
        """For result.json (``extra.weakened_tests.findings``)."""
        return {"kind": self.kind, "test": self.test, "detail": self.detail}


def mode_of(guards: Guards, verify: Verify | None) -> str:
    """``on``, ``report`` or ``off``: the recipe's, else ``on`` with per-test results."""
    if guards.weakened_tests is not None:
        return guards.weakened_tests
    per_test = verify is not None and (verify.runner == "pytest" or verify.junit is not None)
    return "on" if per_test else "off"


def result_findings(base: VerifyRun | None, final: VerifyRun) -> list[Finding]:
    """Tests of the baseline run that the final run no longer ran, or now skips. A final run
    without a readable report ran none of them as far as anyone can tell: all disappeared."""
    if base is None or not base.junit_found:
        return []
    gone = "not run any more" if final.junit_found else "no result any more (no readable report)"
    found = []
    for tid, old in sorted(base.tests.items()):
        if old.outcome == "error" and "::" not in tid:
            continue  # a module that did not import at the baseline: not a test
        new = final.tests.get(tid)
        if new is None:
            found.append(Finding("disappeared", tid, f"{gone} (baseline: {old.outcome})"))
        elif old.outcome != "skipped" and new.outcome == "skipped":
            why = f": {new.message}" if new.message else ""
            found.append(Finding("skipped", tid, f"skipped now (baseline: {old.outcome}){why}"))
    return found


def _before(b: Baseline, rel: str) -> bytes | None:
    full = f"{b.prefix}/{rel}" if b.prefix else rel
    try:
        data = b.git.out(["cat-file", "blob", f"{b.tree}:{full}"])
    except GitFailed:
        return None
    return data if len(data) <= MAX_FILE_BYTES else None


def _after(b: Baseline, rel: str) -> bytes | None:
    try:
        return workspace_io.read_bytes(b.workspace, rel, MAX_FILE_BYTES)
    except (workspace_io.UnsafePath, OSError):
        return None


def is_test_file(rel: str) -> bool:
    """``test_*.py``, ``*_test.py``, or a ``.py`` file in a ``test``/``tests``/``testing`` folder."""
    name = posixpath.basename(rel)
    if not name.endswith(".py"):
        return False
    folders = rel.split("/")[:-1]
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or any(f in ("test", "tests", "testing") for f in folders)
    )


def _test_findings(rel: str, old: FileShape, new: FileShape, results: bool) -> list[Finding]:
    found = []
    for name, before in old.tests.items():
        tid = f"{rel}::{name}"
        after = new.tests.get(name)
        if after is None:
            if not results:
                found.append(Finding("removed", tid, "test function removed"))
            continue
        added = sorted(after.markers - before.markers)
        if added:
            found.append(Finding("marker_added", tid, f"skip/xfail added: {', '.join(added)}"))
        if before.cases is not None and after.cases is not None and after.cases < before.cases:
            found.append(Finding("cases_removed", tid,
                                 f"parametrize cases {before.cases} → {after.cases}"))  # fmt: skip
        if after.empty and not before.empty:
            found.append(Finding("emptied", tid, "body replaced by pass/return"))
        elif after.asserts < before.asserts:
            found.append(Finding("asserts_removed", tid,
                                 f"assertions {before.asserts} → {after.asserts}"))  # fmt: skip
    return found


def _helper_findings(rel: str, old: FileShape, new: FileShape) -> list[Finding]:
    found = []
    for name, before in sorted(old.functions.items()):
        after = new.functions.get(name)
        if after is not None and after < before:
            found.append(Finding("asserts_removed", f"{rel}::{name}",
                                 f"assertions {before} → {after}"))  # fmt: skip
    return found


def _hook_findings(rel: str, old: FileShape, new: FileShape) -> list[Finding]:
    found = []
    for name, source in sorted(new.hooks.items()):
        if old.hooks.get(name) != source:
            what = "changed" if name in old.hooks else "added"
            found.append(Finding("collection_hook", rel, f"pytest hook {name} {what}"))
    for key, value in sorted(new.settings.items()):
        if old.settings.get(key) != value:
            found.append(Finding("collection_hook", rel, f"{key} set to {value}"))
    return found


def change_findings(b: Baseline, files: list[str], *, results: bool) -> list[Finding]:
    """What the changed ``files`` (workspace-relative) did to the tests and their collection;
    ``results``: verify reports per-test results (removed tests are found there)."""
    found: list[Finding] = []
    for rel in files:
        name = posixpath.basename(rel)
        if name.endswith(".py"):
            old_text, new_text = _before(b, rel), _after(b, rel)
            old = shape_of(old_text) if old_text is not None else FileShape()
            new = shape_of(new_text) if new_text is not None else FileShape()
            if old is None or new is None:
                continue  # not Python any more (or not yet): verify says what that does
            if name == "conftest.py" and old_text != new_text:
                what = "added" if old_text is None else "removed" if new_text is None else "changed"
                found.append(Finding("conftest", rel, f"conftest.py {what}"))
            if is_test_file(rel):
                found += _test_findings(rel, old, new, results)
                found += _helper_findings(rel, old, new)
                for tname in sorted(new.shadowed - old.shadowed):
                    found.append(Finding("shadowed", f"{rel}::{tname}",
                                         "defined more than once: only the last one runs"))  # fmt: skip
            found += _hook_findings(rel, old, new)
        elif name in CONFIG_FILES:
            before = _decode(_before(b, rel))
            after = _decode(_after(b, rel))
            for sentence in weakening_changes(
                collection_settings(name, before), collection_settings(name, after)
            ):
                found.append(Finding("collection_config", rel, sentence))
    return found


def _decode(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8", errors="replace")


def hidden_findings(files: list[str]) -> list[Finding]:
    """The hidden files without which verify fails (see :mod:`agentci.verify.set_aside`)."""
    return [
        Finding("hidden_file", rel, "verify passes only with this file, which the ignore rules "
                "hide from the patch (agentci set it aside for the verdict)")
        for rel in files
    ]  # fmt: skip


def listing(findings: list[Finding], limit: int = SHOWN) -> str:
    """The findings as ``- test: detail`` lines, the rest counted."""
    lines = [f"- {f.line()}" for f in findings[:limit]]
    if len(findings) > limit:
        lines.append(f"- … and {len(findings) - limit} more")
    return "\n".join(lines)


def reason(findings: list[Finding]) -> str:
    """The task's reason when the guard fails it."""
    shown = "; ".join(f.line() for f in findings[:5])
    more = f"; … and {len(findings) - 5} more" if len(findings) > 5 else ""
    return f"weakened_tests: {len(findings)} finding(s): {shown}{more}"


def feedback(findings: list[Finding], attempt: int, attempts: int) -> str:
    """What the model is told, once, while it has attempts left."""
    return "\n".join([
        f"Your change weakens the tests (attempt {attempt} of {attempts}); agentci does not "
        "accept a result reached that way:",
        listing(findings),
        "Undo these: make the code pass the tests as they were, without deleting, skipping, "
        "emptying or deselecting tests, removing assertions or changing how pytest collects "
        "them, and without files the repository ignores. Then finish.",
    ])  # fmt: skip
