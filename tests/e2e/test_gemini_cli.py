"""``agentci run`` with a Gemini model: the real SDK over HTTP against the fake server."""

from __future__ import annotations

from pathlib import Path

from agentci.events import types as ev
from agentci.testing.cli import run_recipe
from agentci.testing.fake_gemini import FakeGemini

RECIPE = """\
version: 1
name: live
model:
  name: {model}
  retry: {{attempts: 3, initial_delay_seconds: 0.01, max_delay_seconds: 0.05}}
prompt: Add a changelog entry.
workspace: {{path: {workspace}, isolation: copy}}
"""

TURNS = [
    {"text": "Reading first.", "function_calls": [{"name": "read_file", "args": {"file_path": "CHANGES.md"}, "id": "c1", "thought_signature": "c2lnLTE="}]},
    {"function_calls": [{"name": "replace", "args": {"file_path": "CHANGES.md", "old_string": "# Changes\n", "new_string": "# Changes\n\n- Fixed the thing.\n"}, "id": "c2"}]},
    {"text": "Added the entry.", "usage": {"prompt": 900, "output": 12}},
]  # fmt: skip


def write_recipe(tmp_path: Path, workspace: Path, model: str) -> Path:
    path = tmp_path / f"{model.replace(':', '_').replace('/', '_')}.yaml"
    path.write_text(RECIPE.format(model=model, workspace=workspace))
    return path


def test_a_tool_session_through_the_sdk_succeeds(repo_factory, tmp_path: Path):
    repo = repo_factory({"CHANGES.md": "# Changes\n"})
    with FakeGemini(TURNS) as fake:
        run = run_recipe(
            write_recipe(tmp_path, repo, "gemini-2.5-flash"),
            tmp_path / "out",
            cwd=tmp_path,
            env=fake.env(),
        )
        requests = fake.generate_requests
    assert run.code == 0, run.stderr
    assert "+- Fixed the thing." in run.patch
    assert len(requests) == 3
    # The call id and the thought signature go back to the model unchanged.
    second = requests[1].contents
    model_part = second[-2]["parts"][-1]
    assert model_part["functionCall"]["id"] == "c1"
    assert model_part["thoughtSignature"] == "c2lnLTE="
    response = second[-1]["parts"][0]["functionResponse"]
    assert (response["id"], response["name"]) == ("c1", "read_file")
    assert "# Changes" in response["response"]["output"]
    assert run.result["usage"]["model_calls"] == 3


def test_a_recorded_session_replays_to_the_same_events_and_patch(repo_factory, tmp_path: Path):
    repo = repo_factory({"CHANGES.md": "# Changes\n"})
    cassette = tmp_path / "session.jsonl"
    with FakeGemini(TURNS) as fake:
        live = run_recipe(
            write_recipe(tmp_path, repo, "gemini-2.5-flash"), tmp_path / "live", "--record", str(cassette),
            cwd=tmp_path, env=fake.env(),
        )  # fmt: skip
    assert live.code == 0, live.stderr
    replay = run_recipe(
        write_recipe(tmp_path, repo, f"replay:{cassette}"), tmp_path / "replay", cwd=tmp_path
    )
    assert replay.code == 0, replay.stderr

    def story(events: list[ev.Event]) -> list[tuple[str, str]]:
        keep = (ev.Content, ev.ToolCallRequest, ev.ToolCallResponse, ev.TurnFinished)
        return [
            (e.type, getattr(e, "name", getattr(e, "text", "")))
            for e in events
            if isinstance(e, keep)
        ]

    assert story(replay.events) == story(live.events)
    assert replay.patch == live.patch


def test_an_auth_error_is_a_provider_error_without_retry(repo_factory, tmp_path: Path):
    repo = repo_factory({"CHANGES.md": "# Changes\n"})
    with FakeGemini([{"error": {"code": 401}}, {"text": "never"}]) as fake:
        run = run_recipe(
            write_recipe(tmp_path, repo, "gemini-2.5-flash"),
            tmp_path / "out",
            cwd=tmp_path,
            env=fake.env(),
        )
        calls = len(fake.generate_requests)
    assert run.code == 6, run.stderr
    assert run.result["status"] == "provider_error"
    assert calls == 1
    assert not any(isinstance(e, ev.Retry) for e in run.events)


def test_a_missing_api_key_is_invalid_input_before_any_call(repo_factory, tmp_path: Path):
    repo = repo_factory({"CHANGES.md": "# Changes\n"})
    with FakeGemini(TURNS) as fake:
        env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GEMINI_API_KEY": "", "GOOGLE_API_KEY": ""}
        run = run_recipe(
            write_recipe(tmp_path, repo, "gemini-2.5-flash"),
            tmp_path / "out",
            cwd=tmp_path,
            env=env,
        )
        calls = len(fake.requests)
    assert run.code == 2
    assert "GEMINI_API_KEY" in run.stderr
    assert calls == 0
