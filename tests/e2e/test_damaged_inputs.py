"""Every command against damaged input: a recipe, an events.jsonl, a result.json or a shard
folder cut short, with junk inserted, a byte replaced, emptied, turned into a folder or into a
link out of its folder. Whatever the damage, the command:

* prints no traceback (a damaged input is ``invalid_input`` or a warning, never a crash);
* tells one story: the exit code is result.json's and the last event's where they exist;
* writes nothing outside its output folder (a canary folder and the inputs stay as they were).

Property-based (hypothesis) with fixed seeds and a bounded number of examples per command; a
failure names the damage that caused it.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_scenario import make_case, write_call
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentci.testing.cli import agentci

EXAMPLES = settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

JUNK = [b"\x00", b"\xff\xfe", b"{", b"]", b'"', b"\n", b"*a", b"&a [*a]", b"\\ud800", b"\t:"]

DAMAGE = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.sampled_from(JUNK)),
    st.tuples(st.just("replace"), st.floats(0, 1), st.sampled_from(JUNK)),
    st.tuples(st.just("json"), st.integers(0, 50), st.sampled_from([None, [], {}, "x", -1, 1e308])),
    st.just(("empty",)),
    st.just(("folder",)),
    st.just(("link out",)),
)


def damage(path: Path, how: tuple[Any, ...], outside: Path) -> None:
    """Damage the file at ``path`` as ``how`` says (``outside``: a folder a link may point to)."""
    kind = how[0]
    data = path.read_bytes()
    if kind in ("empty", "folder", "link out"):
        path.unlink()
        if kind == "empty":
            path.write_bytes(b"")
        elif kind == "folder":
            path.mkdir()
        else:
            (outside / path.name).write_bytes(data)
            path.symlink_to(outside / path.name)
        return
    if kind == "json" and path.suffix not in (".json", ".jsonl", ".yaml"):
        kind, how = "truncate", ("truncate", (how[1] % 10) / 10)  # not a JSON file: cut it
    if kind == "json":
        if path.suffix == ".yaml":
            doc = yaml.safe_load(data)
            _replace_one(doc, how[1], how[2])
            path.write_text(yaml.safe_dump(doc))
        else:
            path.write_bytes(_json_damage(data, how[1], how[2], path.suffix == ".jsonl"))
        return
    at = int(len(data) * how[1])
    if kind == "truncate":
        path.write_bytes(data[:at])
    elif kind == "insert":
        path.write_bytes(data[:at] + how[2] + data[at:])
    else:
        path.write_bytes(data[:at] + how[2] + data[at + len(how[2]) :])


def _json_damage(data: bytes, pick: int, value: Any, jsonl: bool) -> bytes:
    """One value of the JSON document (of a JSONL file: its last line) replaced by ``value``."""
    lines = data.decode().splitlines()
    doc = json.loads(lines[-1] if jsonl else data)
    _replace_one(doc, pick, value)
    text = json.dumps(doc)
    return ("\n".join([*lines[:-1], text]) + "\n").encode() if jsonl else text.encode()


def _replace_one(doc: Any, pick: int, value: Any) -> None:
    """Replace the ``pick``-th value (counted through the document, wrapping) by ``value``."""
    places: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in items:
            places.append((node, key))
            if isinstance(child, dict | list):
                walk(child)

    walk(doc)
    if places:
        node, key = places[pick % len(places)]
        node[key] = value


def snapshot(root: Path, skip: set[Path]) -> dict[str, tuple[int, int, str]]:
    """Every path below ``root`` except ``skip``: (size, mtime, link target)."""
    seen: dict[str, tuple[int, int, str]] = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if Path(dirpath, d) not in skip]
        for name in dirs + files:
            p = Path(dirpath, name)
            if p in skip:
                continue
            st_ = p.lstat()
            link = os.readlink(p) if p.is_symlink() else ""
            seen[str(p.relative_to(root))] = (st_.st_size, st_.st_mtime_ns, link)
    return seen


def no_traceback(done: Any) -> None:
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode != 70, done.stderr[-3000:]


def one_story(out: Path, code: int) -> None:
    """The exit code is result.json's and the last event's, where they exist."""
    result = out / "result.json"
    if result.is_file():
        assert json.loads(result.read_text())["exit_code"] == code
    events = out / "events.jsonl"
    if events.is_file() and events.read_text().strip():
        assert json.loads(events.read_text().splitlines()[-1])["exit_code"] == code


def _case(root: Path):
    return make_case(root, [write_call("a.txt", "a\n"), {"text": "done"}], {"name": "fix"})


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A case (repository, script, recipe) that has not run yet."""
    root = tmp_path_factory.mktemp("pristine")
    _case(root)
    return root


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real one-task run's outputs (success, exit 0) and its case."""
    root = tmp_path_factory.mktemp("finished")
    run = _case(root).run()
    assert run.code == 0, run.stderr
    return root


@contextmanager
def sandbox_root() -> Iterator[Path]:
    """A fresh folder per example, with an ``outside`` folder holding a canary file."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "outside").mkdir()
        (root / "outside" / "canary.txt").write_text("canary\n")
        (root / "tmp").mkdir()
        yield root


@EXAMPLES
@given(how=DAMAGE)
def test_validate_and_run_a_damaged_recipe(pristine: Path, how: tuple[Any, ...]) -> None:
    with sandbox_root() as root:
        shutil.copytree(pristine, root / "case")
        recipe, repo, out = root / "case" / "recipe.yaml", root / "case" / "repo", root / "out"
        damage(recipe, how, root / "outside")
        before = snapshot(root, {out, repo, root / "tmp"})
        env = {"TMPDIR": str(root / "tmp")}
        checked = agentci("validate", str(recipe), cwd=repo, env=env)
        no_traceback(checked)
        assert checked.returncode in (0, 2)
        ran = agentci("run", str(recipe), "--out", str(out), cwd=repo, env=env)
        no_traceback(ran)
        assert (ran.returncode == 2) == (checked.returncode == 2), ran.stderr  # one verdict
        one_story(out, ran.returncode)
        assert snapshot(root, {out, repo, root / "tmp"}) == before


@EXAMPLES
@given(how=DAMAGE, name=st.sampled_from(["events.jsonl", "result.json"]),
       fmt=st.sampled_from(["console", "jsonl", "summary", "html"]))  # fmt: skip
def test_replay_damaged_outputs(finished: Path, how: tuple[Any, ...], name: str, fmt: str) -> None:
    with sandbox_root() as root:
        shutil.copytree(finished / "out", root / "out")
        damage(root / "out" / name, how, root / "outside")
        before = snapshot(root, set())
        done = agentci("replay", str(root / "out"), "--format", fmt, cwd=root / "tmp")
        no_traceback(done)
        assert done.returncode in (0, 2)
        assert snapshot(root, set()) == before


def _shard(finished: Path, root: Path, batch: bool) -> Path:
    """A downloaded shard: the run's folder, or a batch folder listing it."""
    if not batch:
        shutil.copytree(finished / "out", root / "shard")
        return root / "shard"
    shutil.copytree(finished / "out", root / "shard" / "fix" / "fix")
    doc = json.loads((root / "shard" / "fix" / "fix" / "result.json").read_text())
    listing = {**doc, "kind": "batch", "tasks": [{**doc["tasks"][0], "dir": "fix/fix"}]}
    (root / "shard" / "result.json").write_text(json.dumps(listing))
    return root / "shard"


@EXAMPLES
@given(how=DAMAGE, batch=st.booleans(),
       name=st.sampled_from(["result.json", "events.jsonl", "junit.xml", "listing"]))  # fmt: skip
def test_report_merge_of_a_damaged_shard(
    finished: Path, how: tuple[Any, ...], batch: bool, name: str
) -> None:
    with sandbox_root() as root:
        shard = _shard(finished, root, batch)
        target = shard / "result.json" if name == "listing" else shard / name
        if batch and name != "listing":
            target = shard / "fix" / "fix" / name
        damage(target, how, root / "outside")
        out = root / "merged"
        before = snapshot(root, {out})
        done = agentci("report", "merge", str(shard), "--out", str(out), cwd=root / "tmp")
        no_traceback(done)
        assert snapshot(root, {out}) == before
        if done.returncode == 2:
            assert not (out / "result.json").exists()
        else:
            one_story(out, done.returncode)
            copied = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
            assert "canary" not in copied
