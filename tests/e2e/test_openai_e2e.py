"""The OpenAI-compatible provider end to end: the real ``agentci`` command and the real ``openai``
package against fake_openai, and the same scripted session against fake_gemini."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_scenario import assert_agree

from agentci.events import types as ev
from agentci.testing.cli import Run, run_recipe
from agentci.testing.fake_gemini import FakeGemini
from agentci.testing.fake_openai import FakeOpenAI

ROOT = Path(__file__).parents[2]
DEMO = ROOT / "examples" / "fix-failing-test"
#: The demo's session (examples/fix-failing-test/cassette.jsonl) as a fake-server script.
SESSION = json.loads((Path(__file__).parent / "demo_session.json").read_text())["turns"]
PRICE = {"input_per_mtok": 0.30, "output_per_mtok": 2.50}
FAST = {"attempts": 3, "initial_delay_seconds": 0.01, "max_delay_seconds": 0.05}


def demo_recipe(tmp: Path, model: dict[str, Any]) -> Path:
    """The demo's recipe with another model (its workspace stays the demo project)."""
    recipe = yaml.safe_load((DEMO / "recipe.yaml").read_text())
    recipe["model"] = model
    path = tmp / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe))
    return path


def run_demo(tmp: Path, fake: FakeGemini | FakeOpenAI, model: str) -> Run:
    recipe = demo_recipe(tmp, {"name": model, "pricing": PRICE, "retry": FAST})
    workspace = tmp / "examples" / "fix-failing-test"
    shutil.copytree(DEMO / "project", workspace / "project")  # the recipe's workspace.path
    return run_recipe(recipe, tmp / "out", cwd=tmp, env=fake.env())


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """The demo session through each fake, with each provider."""
    runs = {}
    with FakeOpenAI(SESSION) as fake:
        runs["openai"] = run_demo(tmp_path_factory.mktemp("openai"), fake, "openai:gpt-4o-mini")
    with FakeGemini(SESSION) as fake:
        runs["gemini"] = run_demo(tmp_path_factory.mktemp("gemini"), fake, "gemini-2.5-flash")
    return runs


def test_the_demo_succeeds_through_the_openai_compatible_server(both: dict[str, Run]) -> None:
    run = both["openai"]
    assert_agree(run, "success", 0)
    assert run.result["changed_files"] == ["shop/pricing.py"]
    assert run.result["usage"]["model_calls"] == 6
    assert run.result["usage"]["estimated_calls"] == 0
    verify = [(e.phase, e.passed) for e in run.events if isinstance(e, ev.VerifyResult)]
    assert verify == [("baseline", False), ("attempt", True)]


def test_the_patch_applies_to_a_fresh_copy_and_its_tests_pass(
    both: dict[str, Run], tmp_path: Path
) -> None:
    copy = tmp_path / "project"
    shutil.copytree(DEMO / "project", copy)
    subprocess.run(["git", "apply", str(both["openai"].out / "patch.diff")], cwd=copy, check=True)
    tests = subprocess.run([sys.executable, "-B", "-m", "unittest"], cwd=copy,
                           capture_output=True, text=True)  # fmt: skip
    assert tests.returncode == 0, tests.stderr


def test_both_fakes_give_the_same_patch_statuses_and_tool_calls(both: dict[str, Run]) -> None:
    openai, gemini = both["openai"], both["gemini"]
    assert openai.patch == gemini.patch and openai.patch
    for key in ("status", "exit_code", "changed_files", "turns", "tool_calls"):
        assert openai.result[key] == gemini.result[key], key

    def story(run: Run) -> list[tuple[str, str]]:
        kinds = (ev.ToolCallRequest, ev.ToolCallDecision, ev.VerifyResult, ev.TaskFinished)
        return [(e.type, getattr(e, "name", "") or getattr(e, "status", "")) for e in run.events
                if isinstance(e, kinds)]  # fmt: skip

    assert story(openai) == story(gemini)


def test_the_reasoning_is_thinking_and_not_the_answer(both: dict[str, Run]) -> None:
    run = both["openai"]
    thoughts = [e.text for e in run.events if isinstance(e, ev.Thought)]
    assert any("apply_discount multiplies by percent" in t for t in thoughts)
    assert "multiplies by percent" not in run.result["summary"]
    assert run.result["summary"].startswith("All four tests pass now.")


RECIPE = """\
version: 1
name: live
model: {name: "openai:local-model", retry: {attempts: 4, initial_delay_seconds: 0.01,
        max_delay_seconds: 0.05}}
prompt: Say hello.
sandbox: none
workspace: {path: ws}
"""


def small_run(tmp_path: Path, turns: list[Any], env_extra: dict[str, str] | None = None,
              recipe: str = RECIPE, args: tuple[str, ...] = ()) -> tuple[Run, FakeOpenAI]:  # fmt: skip
    (tmp_path / "ws").mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path / "ws", check=True)
    path = tmp_path / "r.yaml"
    path.write_text(recipe)
    with FakeOpenAI(turns) as fake:
        env = {**fake.env(), **(env_extra or {})}
        run = run_recipe(path, tmp_path / "out", *args, cwd=tmp_path, env=env)
    return run, fake


WRITE = {"name": "write_file", "args": {"file_path": "hello.txt", "content": "hello\n"}}


def test_a_rejected_key_ends_provider_error_without_retrying(tmp_path: Path) -> None:
    run, fake = small_run(tmp_path, [{"error": {"code": 401}}, {"text": "never"}])
    assert_agree(run, "provider_error", 6)
    assert len(fake.generate_requests) == 1
    assert "HTTP 401" in run.result["reason"] and "OPENAI_API_KEY" in run.result["reason"]


def test_rate_limits_server_errors_and_cut_streams_are_retried(tmp_path: Path) -> None:
    turns = [{"error": {"code": 429, "retry_after": 0.01}}, {"error": {"code": 503}},
             {"function_calls": [WRITE], "cut_after": 3}, {"function_calls": [WRITE]},
             {"text": "Wrote it."}]  # fmt: skip
    run, fake = small_run(tmp_path, turns)
    assert_agree(run, "success", 0)
    retries = [e for e in run.events if isinstance(e, ev.Retry)]
    assert [r.attempt for r in retries] == [2, 3, 4]
    assert retries[0].delay_seconds == 0.01
    assert "RemoteProtocolError" in retries[2].reason  # the cut stream, named
    assert run.result["changed_files"] == ["hello.txt"]
    assert len(fake.generate_requests) == 5


def test_a_server_without_usage_or_ids_still_runs_and_says_the_usage_is_estimated(
    tmp_path: Path,
) -> None:
    turns = [{"function_calls": [WRITE], "no_usage": True, "no_ids": True},
             {"text": "Wrote it.", "no_usage": True}]  # fmt: skip
    run, fake = small_run(tmp_path, turns)
    assert_agree(run, "success", 0)
    usage = [e for e in run.events if isinstance(e, ev.Usage)]
    assert [u.estimated for u in usage] == [True, True] and usage[0].prompt_tokens > 0
    assert run.result["usage"]["estimated_calls"] == 2
    tool_msg = fake.generate_requests[1].body["messages"][-1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_agentci_1_0"


def test_a_server_that_stays_down_is_provider_unavailable(tmp_path: Path) -> None:
    run, fake = small_run(tmp_path, [{"error": {"code": 503}}] * 4)
    assert_agree(run, "provider_unavailable", 75)
    assert len(fake.generate_requests) == 4


PROVIDER_RECIPE = """\
version: 1
name: live
model: {provider: openai, name: local-model, api_key_env: MY_LLM,
        retry: {attempts: 2, initial_delay_seconds: 0.01, max_delay_seconds: 0.05}}
prompt: Say hello.
sandbox: none
workspace: {path: ws}
"""


def test_model_provider_openai_sends_the_bare_name_and_the_key_api_key_env_names(
    tmp_path: Path,
) -> None:
    """``provider: openai`` routes a name with no prefix; the key comes from the variable
    ``model.api_key_env`` names, and it is masked in the outputs though its name looks
    harmless."""
    (tmp_path / "ws").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=tmp_path / "ws", check=True)
    (tmp_path / "r.yaml").write_text(PROVIDER_RECIPE)
    with FakeOpenAI([{"text": "Hello. The key was local-secret-value."}]) as fake:
        env = {"OPENAI_BASE_URL": fake.api_base, "MY_LLM": "local-secret-value"}
        run = run_recipe(tmp_path / "r.yaml", tmp_path / "out", cwd=tmp_path, env=env)
        (sent,) = fake.generate_requests
    assert_agree(run, "no_changes", 1)
    assert sent.model == "local-model"
    assert sent.headers["authorization"] == "Bearer local-secret-value"
    assert [e.model for e in run.events if isinstance(e, ev.Usage)] == ["openai:local-model"]
    assert run.result["summary"] == "Hello. The key was ***."


def test_the_key_never_appears_in_the_outputs(tmp_path: Path) -> None:
    key = "local-canary-4f9d1c2b7a"
    leak = {"name": "write_file", "args": {"file_path": "k.txt", "content": f"key={key}\n"}}
    turns = [{"text": f"The key is {key}.", "function_calls": [leak]},
             {"text": f"Done; I used {key}."}]  # fmt: skip
    recipe = RECIPE.replace("retry:", "api_key_env: LOCAL_LLM, retry:")
    run, fake = small_run(tmp_path, turns, {"LOCAL_LLM": key, "OPENAI_API_KEY": ""}, recipe)
    assert fake.generate_requests[0].headers["authorization"] == f"Bearer {key}"
    assert run.code == 0, run.stderr
    for name in ("events.jsonl", "patch.diff", "result.json", "summary.md", "junit.xml"):
        assert key not in (run.out / name).read_text(), name
    assert key not in run.stderr + run.stdout
    assert "+key=***" in run.patch and run.result["patch_redacted"] is True


def test_a_session_recorded_through_the_openai_provider_replays_offline(tmp_path: Path) -> None:
    turns = [{"thought": "easy", "text": "Writing.", "function_calls": [WRITE], "no_ids": True},
             {"text": "Done."}]  # fmt: skip
    session = tmp_path / "session.jsonl"
    first, _ = small_run(tmp_path / "live", turns, args=("--record", str(session)))
    assert first.code == 0, first.stderr
    replay = RECIPE.replace('name: "openai:local-model"', f'name: "replay:{session}"')
    again, fake = small_run(tmp_path / "offline", [], {"OPENAI_API_KEY": ""}, replay)
    assert_agree(again, "success", 0)
    assert not fake.requests  # the replay asked no server
    assert again.patch == first.patch and "+hello" in again.patch
