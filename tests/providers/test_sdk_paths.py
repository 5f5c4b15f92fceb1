"""The SDK boundary: the private streaming path gives way to the public one, and Vertex AI.

Through the real google-genai SDK against the fake Gemini server.
"""

from __future__ import annotations

from gemini_helpers import Sleeps, model_config, request, run

from agentci.loop.chat import Chat
from agentci.providers.base import TextPart
from agentci.providers.gemini import GeminiProvider
from agentci.testing.fake_gemini import FakeGemini

# A token count sent as a string: the private path (agentci's own reading of the JSON) takes
# only the types the API sends and rejects it; the SDK's types on the public path accept it.
CHANGED_SHAPE = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}
    ],
    "usageMetadata": {"promptTokenCount": "7"},
}


def test_an_answer_the_private_path_cannot_parse_switches_to_the_public_path(
    fake: FakeGemini,
) -> None:
    fake.add([CHANGED_SHAPE], [CHANGED_SHAPE], [CHANGED_SHAPE])
    cfg = model_config()
    provider = GeminiProvider.from_config(cfg, fake.env())
    assert provider.uses_raw_path()
    chat = Chat(provider, cfg, sleep=Sleeps())
    res = run(chat, request("hi"))
    assert res.error is None
    (warning,) = res.events("warning")
    assert warning.kind == "sdk_private_path_disabled"
    assert "private streaming path failed" in warning.message
    assert res.final_parts() == [TextPart("hi")]
    assert not provider.uses_raw_path()  # from now on
    again = run(chat, request("hi again"))
    assert again.error is None and not again.events("warning")
    assert len(fake.generate_requests) == 3
    assert chat._sleep.delays == []  # switched at once, no backoff


def test_vertex_ai_express_mode_through_the_fake_server(fake: FakeGemini) -> None:
    fake.add({"error": {"code": 503}}, {"text": "from vertex"})
    cfg = model_config()
    env = {
        "GOOGLE_GENAI_USE_VERTEXAI": "true",
        "GOOGLE_API_KEY": "vertex-key",
        "GOOGLE_GEMINI_BASE_URL": fake.base_url,
    }
    provider = GeminiProvider.from_config(cfg, env)
    assert provider.vertexai and not provider.uses_raw_path()
    res = run(Chat(provider, cfg, sleep=Sleeps()), request("hi"))
    assert res.error is None and len(res.events("retry")) == 1
    assert res.final_parts() == [TextPart("from vertex")]
    sent = fake.generate_requests[-1]
    assert sent.path == "/v1beta1/publishers/google/models/gemini-2.5-flash:streamGenerateContent"
    assert sent.headers["x-goog-api-key"] == "vertex-key"
    assert sent.contents == [{"role": "user", "parts": [{"text": "hi"}]}]
