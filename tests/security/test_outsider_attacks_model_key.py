"""Outsider attacks on the model's key: where agentci sends ``OPENAI_API_KEY``.

docs/providers.md: "A server given by a base URL may need none (Ollama, LM Studio, vLLM
without ``--api-key``); name ``api_key_env`` when it does". Its vLLM, Ollama and LM Studio
examples name a ``base_url`` on localhost and no ``api_key_env``. A CI job that also holds
the organisation's OpenAI key (another step uses it) then sends that key to whatever listens
on the local port — on a shared self-hosted runner, any other job or user's process.
"""

from __future__ import annotations

from pathlib import Path

from attack_case import make_attack

from agentci.testing.fake_openai import FakeOpenAI

OPENAI_CANARY = "sk-proj-CanaryOpenaiKey000000000000000000"


def test_the_openai_key_is_not_sent_to_a_local_server_that_asks_for_none(tmp_path: Path) -> None:
    with FakeOpenAI([{"text": "done"}]) as fake:
        case = make_attack(
            tmp_path,
            [],
            {
                "allow_no_changes": True,
                "model": {
                    "provider": "openai",
                    "name": "Qwen/Qwen2.5-Coder-32B-Instruct",
                    "base_url": fake.api_base,
                    "context_window": 32768,
                },
            },
        )
        run = case.run("-q", env={"OPENAI_API_KEY": OPENAI_CANARY})
        (sent,) = fake.generate_requests
    assert run.code == 0, run.stderr
    assert OPENAI_CANARY not in sent.headers.get("authorization", "")
