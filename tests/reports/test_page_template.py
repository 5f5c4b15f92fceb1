"""report.html's template is compiled to Python when agentci is built (agentci/reports/
page_template.py): the modules shipped are the ones jinja2 makes from the sources, a run renders
from them, and modules from another jinja2 or other sources are never used."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jinja2
import pytest

from agentci.reports import page_template as pt

REGENERATE = "stale: run `python -m agentci.reference` and commit the result"


def _stamp() -> dict:
    return json.loads((pt.COMPILED / pt.STAMP).read_text())


def test_the_compiled_modules_are_made_from_the_sources_as_they_are():
    assert _stamp()["sources"] == pt.source_hashes(), REGENERATE


def test_the_compiled_modules_are_what_this_jinja2_makes_of_the_sources():
    if _stamp()["jinja2"] != jinja2.__version__:  # a run here compiles the sources instead
        pytest.skip(f"compiled by jinja2 {_stamp()['jinja2']}, this is {jinja2.__version__}")
    shipped = {p.name: p.read_text() for p in pt.COMPILED.iterdir() if p.is_file()}
    assert shipped == pt.compiled_files(), REGENERATE


def test_a_run_renders_the_page_from_the_compiled_modules_when_they_fit_its_jinja2():
    fits = _stamp()["jinja2"] == jinja2.__version__
    loader = pt.page_template().environment.loader
    assert isinstance(loader, jinja2.ModuleLoader if fits else jinja2.FileSystemLoader)


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "compiled"
    shutil.copytree(pt.COMPILED, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_modules_compiled_by_another_jinja2_are_not_used(tmp_path: Path):
    folder = _copy(tmp_path)
    assert pt.compiled_current(folder)
    stamp = json.loads((folder / pt.STAMP).read_text())
    stamp["jinja2"] = "2.11.3"
    (folder / pt.STAMP).write_text(json.dumps(stamp))
    assert not pt.compiled_current(folder)


def test_modules_compiled_from_other_sources_are_not_used(tmp_path: Path):
    folder = _copy(tmp_path)
    stamp = json.loads((folder / pt.STAMP).read_text())
    stamp["sources"][pt.PAGE] = "0" * 64  # the page's source was edited since
    (folder / pt.STAMP).write_text(json.dumps(stamp))
    assert not pt.compiled_current(folder)
    (folder / pt.STAMP).unlink()
    assert not pt.compiled_current(folder)
