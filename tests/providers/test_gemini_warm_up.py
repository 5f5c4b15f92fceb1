"""A call to the Gemini Developer API imports no google-genai (about half a second of CPU);
the provider's warm-up (run in a worker thread during setup and the baseline verify) makes the
call's TLS context instead, and imports the SDK only for Vertex AI, whose calls go through it.

Each case runs in a fresh interpreter: what is imported is the behaviour."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from agentci.testing.fake_gemini import FakeGemini

#: Warm up, then: is google-genai imported, and is the TLS context made?
WARM_UP = """\
import json, sys
from agentci.providers.gemini_rest import tls_context
from agentci.providers.registry import warm_up
warm_up(["gemini-2.5-flash"])
print(json.dumps([
    "google.genai" in sys.modules, tls_context.cache_info().currsize == 1,
]))
"""

#: One streamed call through the provider (the private path), then: the answer, and is
#: google-genai imported?
ONE_CALL = """\
import asyncio, json, os, sys
from agentci.providers.base import Message, ModelRequest, TextPart
from agentci.providers.gemini import GeminiProvider
from agentci.recipe.model_config import ModelConfig

provider = GeminiProvider.from_config(ModelConfig(name="gemini-2.5-flash"), os.environ)
request = ModelRequest("gemini-2.5-flash", "Be brief.", [Message("user", [TextPart("hi")])], [])

async def call():
    return [c async for c in provider.stream(request)]

chunks = asyncio.run(call())
print(json.dumps(["".join(p.text for c in chunks for p in c.parts), "google.genai" in sys.modules]))
"""


def _run(code: str, env: dict[str, str]) -> object:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GOOGLE_GENAI_")}
    env.update(extra)
    return env


def test_a_developer_api_call_imports_no_google_genai() -> None:
    with FakeGemini([{"text": "hello"}]) as fake:
        answer = _run(ONE_CALL, _env(**fake.env()))
        sent = fake.generate_requests[0]
    assert answer == ["hello", False]
    assert sent.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"


def test_warming_up_for_the_developer_api_makes_the_tls_context_and_imports_no_sdk() -> None:
    assert _run(WARM_UP, _env()) == [False, True]


def test_warming_up_for_vertex_ai_imports_the_sdk() -> None:
    assert _run(WARM_UP, _env(GOOGLE_GENAI_USE_VERTEXAI="true"))[0] is True
