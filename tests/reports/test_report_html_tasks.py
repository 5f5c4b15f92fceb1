"""report.html of a recipe with several tasks: one section each, with its own timeline and its
own patch (tasks/<name>/patch.diff), live and replayed."""

from __future__ import annotations

import os
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from agentci.testing.cli import Run, agentci, run_recipe


class Sections(HTMLParser):
    """The text of each <section class="task">, in order."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.sections: list[list[str]] = []
        self._depth = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section" and ("class", "task") in attrs:
            self.sections.append([])
            self._depth = 1
        elif tag == "section" and self._depth:
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "section" and self._depth:
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth:
            self.sections[-1].append(data)

    def texts(self) -> list[str]:
        return [" ".join(" ".join(parts).split()) for parts in self.sections]


def _write(name: str, text: str) -> list[dict]:
    return [
        {"calls": [{"name": "write_file", "args": {"file_path": name, "content": text}}]},
        {"text": f"wrote {name}"},
    ]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("tasks")
    repo = root / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("# project\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t.invalid"}  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "initial"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    (root / "alpha.yaml").write_text(yaml.safe_dump(_write("alpha.txt", "from alpha\n")))
    (root / "beta.yaml").write_text(yaml.safe_dump(_write("beta.txt", "from beta\n")))
    recipe = {
        "version": 1, "name": "two", "sandbox": "none", "prompt": "unused",
        "model": {"name": "scripted:alpha.yaml"},
        "tasks": [
            {"name": "alpha", "prompt": "Write alpha."},
            {"name": "beta", "prompt": "Write beta.", "model": {"name": "scripted:beta.yaml"}},
        ],
    }  # fmt: skip
    (root / "recipe.yaml").write_text(yaml.safe_dump(recipe, sort_keys=False))
    return run_recipe(root / "recipe.yaml", root / "out", cwd=repo)


def test_each_task_has_its_section_with_its_own_diff(run: Run):
    assert run.code == 0, run.stderr
    alpha, beta = Sections((run.out / "report.html").read_text()).texts()
    assert alpha.startswith("Task alpha: success (exit 0)")
    assert "+from alpha" in alpha and "beta.txt" not in alpha
    assert beta.startswith("Task beta: success (exit 0)")
    assert "+from beta" in beta and "alpha.txt" not in beta


def test_the_replay_finds_each_task_s_patch(run: Run, tmp_path: Path):
    page = tmp_path / "replayed.html"
    done = agentci("replay", str(run.out), "--format", "html", "-o", str(page))
    assert done.returncode == 0, done.stderr
    alpha, beta = Sections(page.read_text()).texts()
    assert "+from alpha" in alpha and "+from beta" in beta
