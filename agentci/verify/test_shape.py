"""What a Python test file says about its tests, read as data: parsed with :mod:`ast`, never
imported or run (the file is the agent's, see docs/policy.md).

:func:`shape_of` gives, for one file, each test (a module-level ``test*`` function, or a
``test*`` method of a ``Test*`` class or of a class deriving from a ``TestCase``) with

* ``asserts`` — its ``assert`` statements (``assert True`` and other constants do not count),
  ``self.assert*`` / ``self.fail*`` calls and ``pytest.raises`` / ``pytest.warns`` uses;
* ``markers`` — the skip and xfail markers that apply to it: decorators
  (``pytest.mark.skip``, ``skipif``, ``xfail``, ``unittest.skip``, ``skipIf``, ``skipUnless``,
  ``expectedFailure``), its class's and its module's ``pytestmark``, and calls in its body
  (``pytest.skip()``, ``pytest.xfail()``, ``self.skipTest()``, ``raise SkipTest``);
* ``cases`` — how many ``@pytest.mark.parametrize`` cases it has (the product over its
  decorators; None when one of them is not a literal list);
* ``empty`` — its body (after a docstring) is only ``pass``, ``...`` or a bare ``return``;

and the file's pytest hooks (every module-level name ``pytest_*`` however it is bound: a
``def``, an assignment, an import; pytest finds hooks by attribute name) and module-level
collection settings (``collect_ignore``, ``pytest_plugins``), which matter in a ``conftest.py``;
``shadowed`` — the test names defined more than once at module or class level (Python keeps the
last, so the earlier ones never run); ``functions`` — the assertions of every function of the
file that is not a test (helpers, fixtures, methods), by qualified name.

An ``assert`` whose test is always true (a true constant, a non-empty tuple, an ``or`` with a
constant-true operand, ``x == x`` on the same expression) is not an assertion.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

#: The last name of a decorator or ``pytestmark`` entry that skips or expects failure.
SKIP_MARKS = frozenset({"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure"})
#: Calls in a test body that skip it or mark it as expected to fail.
SKIP_CALLS = frozenset({"skip", "xfail", "skipTest", "importorskip"})
#: Module-level names of a conftest.py that change collection.
COLLECTION_NAMES = frozenset({"collect_ignore", "collect_ignore_glob", "pytest_plugins"})


@dataclass(frozen=True)
class TestShape:
    """One test function, as :func:`shape_of` reads it."""

    __test__ = False  # not a pytest test class

    name: str  # "test_x" or "TestCls::test_x"
    asserts: int
    markers: frozenset[str]
    cases: int | None
    empty: bool


@dataclass
class FileShape:
    """One file's tests, hooks and collection settings (text of each setting's value)."""

    tests: dict[str, TestShape] = field(default_factory=dict)
    shadowed: set[str] = field(default_factory=set)  # test names defined more than once
    functions: dict[str, int] = field(default_factory=dict)  # non-test function → asserts
    hooks: dict[str, str] = field(default_factory=dict)  # hook name → its source
    settings: dict[str, str] = field(default_factory=dict)  # collect_ignore … → value source


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a name or attribute chain (calls are looked through), else ""."""
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return ""


def _marks_in(node: ast.AST) -> set[str]:
    """The skip/xfail marks named by a decorator or a ``pytestmark`` value (lists looked into)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return {m for elt in node.elts for m in _marks_in(elt)}
    name = _dotted(node)
    last = name.rsplit(".", 1)[-1]
    return {name} if last in SKIP_MARKS else set()


def _case_count(decorator: ast.AST) -> int | None | bool:
    """Cases of a ``parametrize`` decorator; False when it is not one; None when unknown."""
    if not (isinstance(decorator, ast.Call) and _dotted(decorator).endswith("parametrize")):
        return False
    values = decorator.args[1] if len(decorator.args) > 1 else None
    for kw in decorator.keywords:
        if kw.arg == "argvalues":
            values = kw.value
    if isinstance(values, (ast.List, ast.Tuple, ast.Set)):
        return len(values.elts)
    return None


def always_true(test: ast.expr) -> bool:
    """The assert test can never fail: a true constant, a non-empty tuple or list, an ``or``
    with such an operand, ``not`` of a false constant, ``x == x`` (``is``, ``<=``, ``>=``)."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, (ast.Tuple, ast.List, ast.Set)):
        return bool(test.elts)
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.Or):
            return any(always_true(v) for v in test.values)
        return all(always_true(v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Constant) and not test.operand.value
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        same = ast.dump(test.left) == ast.dump(test.comparators[0])
        return same and isinstance(test.ops[0], (ast.Eq, ast.Is, ast.LtE, ast.GtE))
    return False


def _is_assert(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return not always_true(node.test)
    if isinstance(node, ast.Call):
        name = _dotted(node.func)
        if name.startswith("self.") and name[5:].startswith(("assert", "fail")):
            return True
        return name.rsplit(".", 1)[-1] in ("raises", "warns") and "pytest" in name
    return False


def _body_nodes(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """Every node of the function's body (not its decorators or defaults)."""
    for stmt in func.body:
        yield from ast.walk(stmt)


def _skips_in_body(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    found = set()
    for node in _body_nodes(func):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name.rsplit(".", 1)[-1] in SKIP_CALLS and ("pytest" in name or "self" in name):
                found.add(f"{name}()")
        elif (
            isinstance(node, ast.Raise)
            and node.exc is not None
            and _dotted(node.exc).endswith("SkipTest")
        ):
            found.add(f"raise {_dotted(node.exc)}")
    return found


def _empty(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = list(func.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring (or a lone `...`, which counts as empty too)
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Return) and (
            stmt.value is None or isinstance(stmt.value, ast.Constant)
        ):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        return False
    return True


def _pytestmark(body: list[ast.stmt]) -> set[str]:
    marks: set[str] = set()
    for stmt in body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets = [stmt.target]
        value = getattr(stmt, "value", None)
        if value is not None and any(_dotted(t) == "pytestmark" for t in targets):
            marks |= {f"pytestmark = {m}" for m in _marks_in(value)}
    return marks


def _test(
    func: ast.FunctionDef | ast.AsyncFunctionDef, name: str, inherited: set[str]
) -> TestShape:
    marks = set(inherited) | _skips_in_body(func)
    cases: int | None = 1
    for deco in func.decorator_list:
        marks |= _marks_in(deco)
        count = _case_count(deco)
        if count is not False:
            cases = None if count is None or cases is None else cases * int(count)
    asserts = sum(1 for node in _body_nodes(func) if _is_assert(node))
    return TestShape(name, asserts, frozenset(marks), cases, _empty(func))


def _bound_names(stmt: ast.stmt) -> set[str]:
    """The module-level names a statement binds (``def``, ``class``, assignment, import, ``for``,
    ``with`` … ; not the names inside a function or class body)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    names = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)  # under an if/try at module level
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _function_asserts(tree: ast.Module, tests: dict[str, TestShape]) -> dict[str, int]:
    """Assertions of every function that is not a test, by qualified name (``Cls.meth``)."""
    counts: dict[str, int] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{stmt.name}"
                if name.replace(".", "::") not in tests:
                    counts[name] = sum(1 for n in _body_nodes(stmt) if _is_assert(n))
                visit(stmt.body, f"{name}.")
            elif isinstance(stmt, ast.ClassDef):
                visit(stmt.body, f"{prefix}{stmt.name}.")

    visit(tree.body, "")
    return counts


def _repeated(names: list[str]) -> set[str]:
    seen: set[str] = set()
    return {n for n in names if n in seen or seen.add(n)}  # type: ignore[func-returns-value]


def _is_test_class(cls: ast.ClassDef) -> bool:
    return cls.name.startswith("Test") or any(
        _dotted(base).endswith("TestCase") for base in cls.bases
    )


def shape_of(source: str | bytes) -> FileShape | None:
    """The shape of one Python file; None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    shape = FileShape()
    module_marks = _pytestmark(tree.body)
    defined: list[str] = []
    for stmt in tree.body:
        for bound in sorted(_bound_names(stmt)):
            if bound.startswith("pytest_") and bound not in COLLECTION_NAMES:
                text = ast.unparse(stmt)
                old = shape.hooks.get(bound)
                shape.hooks[bound] = f"{old}\n{text}" if old is not None else text
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if stmt.name.startswith("test"):
                defined.append(stmt.name)
                shape.tests[stmt.name] = _test(stmt, stmt.name, module_marks)
        elif isinstance(stmt, ast.ClassDef) and _is_test_class(stmt):
            defined.append(stmt.name)
            marks = module_marks | _pytestmark(stmt.body)
            marks |= {m for deco in stmt.decorator_list for m in _marks_in(deco)}
            methods: list[str] = []
            for item in stmt.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    item.name.startswith("test")
                ):
                    methods.append(item.name)
                    name = f"{stmt.name}::{item.name}"
                    shape.tests[name] = _test(item, name, marks)
            shape.shadowed |= {f"{stmt.name}::{m}" for m in _repeated(methods)}
        elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if _dotted(target) in COLLECTION_NAMES and stmt.value is not None:
                    key = _dotted(target)
                    text = ast.unparse(stmt.value)
                    shape.settings[key] = (
                        f"{shape.settings[key]}; {text}" if key in (shape.settings) else text
                    )
    shape.shadowed |= _repeated(defined)
    shape.functions = _function_asserts(tree, shape.tests)
    return shape
