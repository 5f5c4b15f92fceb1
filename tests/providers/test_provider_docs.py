"""Every OpenAI-compatible model snippet of docs/providers.md works as a user would run it.

The YAML blocks whose ``model`` is served by the ``openai`` provider become recipes (the snippet's
``model`` on a minimal recipe): ``agentci validate`` accepts each as written, and ``agentci run``
runs each against fake_openai with only the snippet's scheme, host and port replaced (its path
kept), the key in the variable the snippet names: the server must get the path, the model name
and the key as the snippet wrote them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import yaml
from markdown_it import MarkdownIt

from agentci.testing.cli import agentci, run_recipe
from agentci.testing.fake_openai import FakeOpenAI

DOC = Path(__file__).parents[2] / "docs" / "providers.md"
KEY = "doc-snippet-key-6b1e"


def _is_openai(model: Any) -> bool:
    return isinstance(model, dict) and (
        model.get("provider") == "openai" or str(model.get("name", "")).startswith("openai:")
    )


def snippets() -> list[Any]:
    """``pytest.param(model, id="docs/providers.md:LINE")`` for each OpenAI model snippet."""
    found = []
    for token in MarkdownIt().parse(DOC.read_text()):
        if token.type != "fence" or token.info.strip() not in ("yaml", "yml"):
            continue
        data = yaml.safe_load(token.content)
        if isinstance(data, dict) and _is_openai(data.get("model")):
            line = token.map[0] + 1 if token.map else 0
            found.append(pytest.param(data["model"], id=f"docs/providers.md:{line}"))
    return found


SNIPPETS = snippets()


def test_the_page_has_a_snippet_for_each_kind_of_server() -> None:
    urls = [str(p.values[0].get("base_url", "")) for p in SNIPPETS]
    for host in ("openai.azure.com", "localhost:8000", "localhost:11434", "localhost:1234",
                 "openrouter.ai"):  # fmt: skip
        assert any(host in u for u in urls), host
    assert any(not u for u in urls)  # OpenAI itself


def write_recipe(tmp_path: Path, model: dict[str, Any]) -> Path:
    (tmp_path / "ws").mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path / "ws", check=True)
    recipe = {"version": 1, "name": "doc-snippet", "prompt": "Say hello.", "sandbox": "none",
              "allow_no_changes": True, "workspace": {"path": "ws"}, "model": model}  # fmt: skip
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe))
    return path


@pytest.mark.parametrize("model", SNIPPETS)
def test_validate_accepts_the_snippet_as_written(model: dict[str, Any], tmp_path: Path) -> None:
    done = agentci("validate", str(write_recipe(tmp_path, model)), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("model", SNIPPETS)
def test_the_snippet_sends_its_path_model_and_key(model: dict[str, Any], tmp_path: Path) -> None:
    key_var = model.get("api_key_env", "OPENAI_API_KEY")
    needs_key = "api_key_env" in model or "base_url" not in model
    written = urlsplit(model.get("base_url", "https://api.openai.com/v1"))
    with FakeOpenAI([{"text": "Hello."}]) as fake:
        here = urlsplit(fake.base_url)
        env = {"OPENAI_API_KEY": "", key_var: KEY if needs_key else ""}
        local = dict(model)
        if "base_url" in model:
            local["base_url"] = urlunsplit((here.scheme, here.netloc, written.path, "", ""))
        else:  # OpenAI's own endpoint: the user's OPENAI_BASE_URL moves it
            env["OPENAI_BASE_URL"] = f"{fake.base_url}{written.path}"
        run = run_recipe(write_recipe(tmp_path, local), tmp_path / "out", cwd=tmp_path, env=env)
        (sent,) = fake.generate_requests
    assert run.code == 0, run.stderr
    assert sent.path == written.path.rstrip("/") + "/chat/completions"
    assert sent.body["model"] == model["name"].removeprefix("openai:")
    if needs_key:
        assert sent.headers["authorization"] == f"Bearer {KEY}"
