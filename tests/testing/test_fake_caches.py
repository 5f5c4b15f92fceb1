"""fake_gemini's ``cachedContents`` through the real google-genai SDK's ``client.caches``:
create, get, update (ttl), delete, their use by a generate call, and the counts tests read."""

from __future__ import annotations

import pytest
from google import genai
from google.genai import errors, types

from agentci.testing.fake_caches import tokens_of
from agentci.testing.fake_gemini import FakeGemini

MODEL = "gemini-2.5-flash"
TEXT = "The project's conventions, at length. " * 200


def _client(fake: FakeGemini) -> genai.Client:
    return genai.Client(
        api_key="fake-key",
        http_options=types.HttpOptions(base_url=fake.base_url, api_version="v1beta"),
    )


def _config(ttl: str = "300s") -> types.CreateCachedContentConfig:
    return types.CreateCachedContentConfig(
        contents=[types.Content(role="user", parts=[types.Part(text=TEXT)])],
        system_instruction="You are terse.",
        ttl=ttl,
    )


def test_create_get_update_delete_and_the_counts() -> None:
    with FakeGemini(min_cache_tokens=1024) as fake:
        client = _client(fake)
        made = client.caches.create(model=MODEL, config=_config())
        assert made.name == "cachedContents/fake1"
        assert made.model == f"models/{MODEL}"
        tokens = tokens_of(fake.caches.bodies[0])
        assert made.usage_metadata is not None
        assert made.usage_metadata.total_token_count == tokens >= 1024
        assert client.caches.get(name=made.name).name == made.name
        assert fake.caches.live == [made.name]
        before = made.expire_time
        updated = client.caches.update(
            name=made.name, config=types.UpdateCachedContentConfig(ttl="3600s")
        )
        assert before is not None and updated.expire_time is not None
        assert updated.expire_time > before
        client.caches.delete(name=made.name)
        assert (fake.caches.created, fake.caches.deleted, fake.caches.live) == (1, 1, [])
        with pytest.raises(errors.ClientError) as gone:
            client.caches.get(name=made.name)
        assert gone.value.code == 403


def test_a_generate_call_naming_the_cache_reports_its_tokens_as_cached() -> None:
    with FakeGemini([{"text": "ok"}]) as fake:
        client = _client(fake)
        made = client.caches.create(model=MODEL, config=_config())
        answer = client.models.generate_content(
            model=MODEL,
            contents="and now?",
            config=types.GenerateContentConfig(cached_content=made.name),
        )
        assert fake.generate_requests[0].body["cachedContent"] == made.name
        usage = answer.usage_metadata
        assert usage is not None
        cached = tokens_of(fake.caches.bodies[0])
        assert usage.cached_content_token_count == cached
        assert usage.prompt_token_count is not None and usage.prompt_token_count > cached
        assert fake.caches.used == 1


def test_the_api_refusals_are_imitated() -> None:
    with FakeGemini([{"text": "never"}], min_cache_tokens=10**6) as fake:
        client = _client(fake)
        with pytest.raises(errors.ClientError) as small:
            client.caches.create(model=MODEL, config=_config())
        assert small.value.code == 400
        assert "Cached content is too small" in str(small.value)
        fake.caches.min_tokens = 0
        made = client.caches.create(model=MODEL, config=_config())
        with pytest.raises(errors.ClientError) as both:
            client.models.generate_content(
                model=MODEL,
                contents="hi",
                config=types.GenerateContentConfig(
                    cached_content=made.name, system_instruction="again"
                ),
            )
        assert both.value.code == 400
        with pytest.raises(errors.ClientError) as unknown:
            client.models.generate_content(
                model=MODEL,
                contents="hi",
                config=types.GenerateContentConfig(cached_content="cachedContents/nope"),
            )
        assert unknown.value.code == 403
        assert fake.generate_requests == []  # no turn of the script was spent


def test_every_create_can_be_made_to_fail() -> None:
    with FakeGemini(create_error={"code": 403, "message": "caching is off here"}) as fake:
        client = _client(fake)
        with pytest.raises(errors.ClientError) as refused:
            client.caches.create(model=MODEL, config=_config())
        assert (refused.value.code, fake.caches.created) == (403, 0)
        assert "caching is off here" in str(refused.value)
