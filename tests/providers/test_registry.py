"""The provider registry: which provider serves a model name, each provider's defaults, and
the recipe's ``model.provider`` key."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from agentci.providers import registry
from agentci.providers.base import ProviderInfo
from agentci.providers.registry import UnknownModel, defaults_for, route
from agentci.recipe.model_config import ModelConfig
from agentci.testing.cli import agentci


def test_every_registry_line_names_a_module_whose_provider_has_that_name():
    for name, module in registry.PROVIDERS.items():
        entry = importlib.import_module(module).PROVIDER
        assert isinstance(entry, ProviderInfo) and entry.name == name


@pytest.mark.parametrize(
    ("name", "provider", "own_name"),
    [
        ("gemini-2.5-flash", "gemini", "gemini-2.5-flash"),
        ("models/gemini-2.5-pro", "gemini", "models/gemini-2.5-pro"),
        ("gemma-3-27b-it", "gemini", "gemma-3-27b-it"),
        ("gemini:my-tuned-model", "gemini", "my-tuned-model"),
        ("replay:cassettes/demo.jsonl", "replay", "cassettes/demo.jsonl"),
        ("scripted:replies.yaml", "scripted", "replies.yaml"),
    ],
)
def test_a_name_is_routed_by_its_prefix_or_as_a_gemini_name(name, provider, own_name):
    entry, bare = route(name)
    assert (entry.name, bare) == (provider, own_name)


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("repaly:demo.jsonl", "replay:demo.jsonl"),
        ("gemni-2.5-flash", "gemini-2.5-flash"),
        ("llama-3-8b", None),
    ],
)
def test_an_unknown_name_is_refused_with_a_suggestion(name, suggestion):
    with pytest.raises(UnknownModel) as caught:
        route(name)
    assert caught.value.suggestion == suggestion
    assert str(caught.value).startswith(f"{name!r} is not a model agentci can serve")
    if suggestion:
        assert f"(did you mean {suggestion!r}?)" in str(caught.value)


def test_each_provider_brings_its_defaults():
    flash = defaults_for("gemini-2.5-flash-001")
    assert (flash.price.input, flash.price.output) == (0.30, 2.50)  # type: ignore[union-attr]
    assert (flash.context_window, flash.max_output_tokens) == (1_048_576, 65_536)
    assert flash.thinks_by_default and not defaults_for("gemini-2.0-flash").thinks_by_default
    assert defaults_for("gemma-3-4b").context_window == 131_072
    assert defaults_for("replay:x.jsonl").free and defaults_for("scripted:x.yaml").free
    assert defaults_for("gemini-2.5-flash").free is False


def test_model_provider_reads_the_name_and_fallbacks_with_its_prefix():
    model = ModelConfig(provider="replay", name="demo.jsonl", fallback=["other.jsonl"])
    assert model.name == "replay:demo.jsonl"
    assert model.fallback_names() == ["replay:other.jsonl"]
    again = ModelConfig.model_validate(model.model_dump())
    assert (again.name, again.fallback_names()) == (model.name, model.fallback_names())


def _recipe(tmp_path: Path, model: str) -> Path:
    (tmp_path / "demo.jsonl").write_text(
        '{"chunks": [{"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]},'
        ' "finishReason": "STOP"}]}]}\n'
    )
    recipe = tmp_path / "r.yaml"
    recipe.write_text(f"version: 1\nname: t\nmodel: {model}\nprompt: p\n")
    return recipe


def test_validate_accepts_model_provider_with_the_providers_own_name(tmp_path: Path):
    done = agentci("validate", str(_recipe(tmp_path, "{provider: replay, name: demo.jsonl}")))
    assert done.returncode == 0, done.stderr


def test_validate_names_a_misspelt_provider(tmp_path: Path):
    recipe = _recipe(tmp_path, "{provider: repaly, name: demo.jsonl}")
    done = agentci("validate", str(recipe))
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"agentci: {recipe}:3: model.provider: no provider is named 'repaly' "
        "(did you mean 'replay'?)"
    )


def test_validate_suggests_the_model_an_unknown_name_is_close_to(tmp_path: Path):
    recipe = _recipe(tmp_path, "{name: gemni-2.5-flash}")
    done = agentci("validate", str(recipe))
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].startswith(
        f"agentci: {recipe}:3: model.name: 'gemni-2.5-flash' is not a model agentci can serve "
        "(did you mean 'gemini-2.5-flash'?)"
    )


def test_run_refuses_an_unknown_model_before_any_model_call(tmp_path: Path):
    from agentci.testing.case import write_case
    from agentci.testing.fake_gemini import FakeGemini

    with FakeGemini([{"text": "never asked"}]) as fake:
        case = write_case(tmp_path, None, {"sandbox": "none", "model": {"name": "gpt-4o"}})
        run = case.run(env=fake.env())
        asked = len(fake.generate_requests)
    assert (run.code, run.result["status"], asked) == (2, "invalid_input", 0)
    assert "'gpt-4o' is not a model agentci can serve" in run.result["reason"]


def test_the_model_section_of_docs_providers_md_validates_as_written(tmp_path: Path):
    import re

    docs = Path(__file__).resolve().parents[2] / "docs" / "providers.md"
    blocks = re.findall(r"```yaml\n(.*?)```", docs.read_text(), flags=re.S)
    # the routing example; the OpenAI ones run in test_provider_docs.py
    (snippet,) = [b for b in blocks if "provider: replay" in b]
    _recipe(tmp_path, "{}")
    (tmp_path / "session.jsonl").write_text((tmp_path / "demo.jsonl").read_text())
    recipe = tmp_path / "docs.yaml"
    recipe.write_text(f"version: 1\nname: t\nprompt: p\n{snippet}")
    done = agentci("validate", str(recipe))
    assert done.returncode == 0, done.stderr


def test_gemini_reads_its_key_from_the_variable_api_key_env_names_and_masks_it(tmp_path: Path):
    """``model.api_key_env`` works for Gemini as for openai: that variable alone is read, and
    its value is masked though the name looks harmless."""
    from agentci.testing.case import write_case
    from agentci.testing.fake_gemini import FakeGemini

    model = {"name": "gemini-2.5-flash", "api_key_env": "TEAM_GEM"}
    with FakeGemini([{"text": "Hello. The key was team-secret-value."}]) as fake:
        case = write_case(tmp_path, None, {"sandbox": "none", "model": model})
        env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "TEAM_GEM": "team-secret-value",
               "GEMINI_API_KEY": "", "GOOGLE_API_KEY": ""}  # fmt: skip
        run = case.run(env=env)
        summary = run.result["summary"]  # the next run moves these outputs aside
        missing = case.run(env={**env, "TEAM_GEM": ""})
        (sent,) = fake.generate_requests
    assert (run.code, sent.headers["x-goog-api-key"]) == (1, "team-secret-value")
    assert summary == "Hello. The key was ***."
    assert (missing.code, missing.result["status"]) == (2, "invalid_input")
    assert "set TEAM_GEM (model.api_key_env names it)" in missing.result["reason"]
