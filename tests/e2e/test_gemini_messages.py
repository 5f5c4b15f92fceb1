"""Messages about the Gemini connection: which key is sent, which URL could not be reached."""

from __future__ import annotations

import socket
from pathlib import Path

from agentci.testing.cli import run_recipe
from agentci.testing.fake_gemini import FakeGemini

RECIPE = """\
version: 1
name: live
model:
  name: gemini-2.5-flash
  retry: {attempts: 2, initial_delay_seconds: 0.01, max_delay_seconds: 0.02}
prompt: Say hello.
sandbox: none
allow_no_changes: true
workspace: {path: ws}
"""


def _recipe(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    path = tmp_path / "r.yaml"
    path.write_text(RECIPE)
    return path


def test_with_both_keys_set_the_console_names_the_key_agentci_sends(tmp_path: Path):
    with FakeGemini([{"text": "Hello."}]) as fake:
        env = {**fake.env("the-gemini-key"), "GOOGLE_API_KEY": "the-google-key"}
        run = run_recipe(_recipe(tmp_path), tmp_path / "out", cwd=tmp_path, env=env)
        sent = fake.generate_requests[0].headers.get("x-goog-api-key")
    assert run.code == 0, run.stderr
    assert sent == "the-gemini-key"
    assert (
        "agentci: note: GEMINI_API_KEY and GOOGLE_API_KEY are both set: agentci sends "
        "GEMINI_API_KEY"
    ) in run.stderr
    assert "Using GOOGLE_API_KEY" not in run.stderr


def test_a_refused_connection_to_a_loopback_base_url_names_it_and_is_not_retried(tmp_path: Path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    env = {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "k", "GOOGLE_API_KEY": ""}
    run = run_recipe(_recipe(tmp_path), tmp_path / "out", cwd=tmp_path, env=env)
    assert run.code == 6, run.stderr
    assert f"connection refused by {url}: nothing listens there" in run.stderr
    assert [e.type for e in run.events].count("retry") == 0
    assert run.result["usage"]["model_calls"] == 1
