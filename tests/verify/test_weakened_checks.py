"""The weakened_tests checks on their own: a test file's shape (parsed, never imported) and
pytest's collection settings, before vs. after."""

from __future__ import annotations

import pytest

from agentci.errors import RecipeError
from agentci.recipe.load import parse_recipe
from agentci.verify.pytest_config import collection_settings, weakening_changes
from agentci.verify.test_shape import shape_of

TESTS = '''
import pytest
import unittest

pytestmark = pytest.mark.xfail


@pytest.mark.parametrize("a", [1, 2, 3])
@pytest.mark.skip(reason="later")
def test_param(a):
    assert a
    assert True


def test_empty():
    """Nothing to see."""
    pass


class TestCase(unittest.TestCase):
    def test_method(self):
        self.assertEqual(1, 1)
        with pytest.raises(ValueError):
            int("x")
        self.skipTest("not today")


def pytest_collection_modifyitems(items):
    items.clear()


collect_ignore = ["tests/slow"]
'''


def test_a_file_s_tests_asserts_markers_cases_hooks_and_settings():
    shape = shape_of(TESTS)
    assert shape is not None
    param, empty, method = (
        shape.tests[n] for n in ("test_param", "test_empty", "TestCase::test_method")
    )
    assert (param.asserts, param.cases, param.empty) == (
        1,
        3,
        False,
    )  # `assert True` is no assertion
    assert param.markers == {"pytest.mark.skip", "pytestmark = pytest.mark.xfail"}
    assert empty.empty and empty.asserts == 0
    assert method.asserts == 2 and "self.skipTest()" in method.markers
    assert set(shape.hooks) == {"pytest_collection_modifyitems"}
    assert shape.settings == {"collect_ignore": "['tests/slow']"}


@pytest.mark.parametrize(
    "test",
    ["x == 5 or True", "True", "(x, 'message')", "x == 5 or 1", "f(x) == f(x)", "not None",
     "x is x or y"],
)  # fmt: skip
def test_an_assert_that_cannot_fail_is_no_assertion(test):
    shape = shape_of(f"def test_x():\n    x = 5\n    assert {test}\n")
    assert shape is not None and shape.tests["test_x"].asserts == 0


@pytest.mark.parametrize("test", ["x == 5 or y == 5", "f(x) == f(y)", "x", "x and True"])
def test_an_assert_that_can_fail_counts(test):
    shape = shape_of(f"def test_x():\n    x = 5\n    assert {test}\n")
    assert shape is not None and shape.tests["test_x"].asserts == 1


def test_pytest_names_bound_any_way_are_hooks():
    source = (
        "from plugin import pytest_runtest_call\n"
        "import pytest_other\n"
        "def _done(item):\n    return True\n"
        "pytest_pyfunc_call = _done\n"
        "if True:\n    pytest_collection_modifyitems: object = _done\n"
        "pytest_plugins = ['x']\n"
    )
    shape = shape_of(source)
    assert shape is not None
    assert set(shape.hooks) == {
        "pytest_runtest_call", "pytest_other", "pytest_pyfunc_call",
        "pytest_collection_modifyitems",
    }  # fmt: skip
    assert shape.settings == {"pytest_plugins": "['x']"}


def test_a_test_name_defined_twice_is_shadowed():
    source = (
        "def test_a():\n    assert 0\n"
        "class TestB:\n    def test_c(self):\n        assert 0\n"
        "    def test_c(self):\n        assert 1\n"
        "def test_d():\n    assert 1\n"
        "def test_a():\n    assert 1\n"
    )
    shape = shape_of(source)
    assert shape is not None and shape.shadowed == {"test_a", "TestB::test_c"}


def test_every_function_that_is_not_a_test_has_its_assertions_counted():
    source = (
        "import pytest\n"
        "def check(got, want):\n    assert got == want\n    assert got\n"
        "@pytest.fixture\ndef thing():\n    assert 1 == 1\n    yield 1\n"
        "class Helper:\n    def same(self, a):\n        self.assertEqual(a, 1)\n"
        "def test_x():\n    check(1, 1)\n"
    )
    shape = shape_of(source)
    assert shape is not None
    assert shape.functions == {"check": 2, "thing": 0, "Helper.same": 1}


def test_a_file_that_does_not_parse_has_no_shape():
    assert shape_of("def test_x(:\n") is None


@pytest.mark.parametrize(
    ("before", "after", "found"),
    [
        ("-q", "-q -v -ra --tb=short --strict-markers", []),
        ("-q", "-q -k 'not slow'", ["addopts gained -k not slow"]),
        ("-q", "-q -m fast -p myplugin", ["addopts gained -m fast -p myplugin"]),
        ("-q", "-q tests/unit", ["addopts gained tests/unit"]),
        ("-q --ignore tests/slow", "-q", []),  # widening the run is fine
    ],
)
def test_addopts_that_narrow_the_run_are_findings(before, after, found):
    assert weakening_changes({"addopts": before}, {"addopts": after}) == found


def test_each_config_file_is_read_from_its_own_section():
    ini = "[pytest]\naddopts = -q\ntestpaths = tests\n"
    assert collection_settings("pytest.ini", ini) == {"addopts": "-q", "testpaths": "tests"}
    assert collection_settings("tox.ini", "[tox]\nenvlist = py3\n") == {}
    cfg = "[tool:pytest]\nnorecursedirs = build\n"
    assert collection_settings("setup.cfg", cfg) == {"norecursedirs": "build"}
    toml = '[tool.pytest.ini_options]\ntestpaths = ["tests", "more"]\nxfail_strict = true\n'
    assert collection_settings("pyproject.toml", toml) == {
        "testpaths": "tests more", "xfail_strict": "True",
    }  # fmt: skip
    assert collection_settings("pyproject.toml", "not [toml") == {}


def test_xfail_strict_turned_off_is_a_finding():
    assert weakening_changes({"xfail_strict": "true"}, {"xfail_strict": "false"}) == [
        "xfail_strict turned off"
    ]


@pytest.mark.parametrize(("written", "mode"), [("on", "on"), ("off", "off"), ("report", "report")])
def test_a_bare_yaml_on_or_off_is_the_mode_it_says(written, mode):
    # YAML 1.1 reads a bare `on` as true: the recipe still means the mode
    text = f"version: 1\nname: t\nmodel: {{name: scripted}}\nprompt: p\nguards:\n  weakened_tests: {written}\n"
    assert parse_recipe(text).guards.weakened_tests == mode


def test_an_unknown_mode_is_a_recipe_error_with_its_line():
    text = "version: 1\nname: t\nmodel: {name: scripted}\nprompt: p\nguards:\n  weakened_tests: strict\n"
    with pytest.raises(RecipeError, match=r":6: guards.weakened_tests: Input should be"):
        parse_recipe(text, file="r.yaml")
