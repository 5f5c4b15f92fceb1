"""A run whose SDK private path breaks goes on through the public path (not internal_error)."""

from __future__ import annotations

from pathlib import Path

from e2e_scenario import assert_agree, make_case

from agentci.events import types as ev
from agentci.testing.fake_gemini import FakeGemini

# a token count sent as a string: the private path (agentci's own reading of the JSON) rejects
# it, the SDK's types on the public path accept it
CHANGED_SHAPE = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "done"}]}, "finishReason": "STOP"}
    ],
    "usageMetadata": {"promptTokenCount": "7"},
}

#: The warning every run with ``sandbox: none`` and a key in its environment gives.
SANDBOX_NONE = "secrets_without_sandbox"


def test_a_broken_private_path_is_a_warning_event_and_the_run_goes_on(tmp_path: Path) -> None:
    recipe = {"model": {"name": "gemini-2.5-flash"}, "allow_no_changes": True}
    with FakeGemini([[CHANGED_SHAPE], [CHANGED_SHAPE]]) as fake:
        run = make_case(tmp_path, None, recipe).run(env=fake.env())
    assert_agree(run, "no_changes", 0)
    warnings = [e for e in run.events if isinstance(e, ev.WarningEvent) and e.kind != SANDBOX_NONE]
    assert not any(isinstance(e, ev.Error) for e in run.events)
    assert [e.kind for e in warnings] == ["sdk_private_path_disabled"]
    assert run.result["summary"] == "done"


def test_the_public_path_is_kept_for_the_rest_of_the_run(tmp_path: Path) -> None:
    tasks = [{"name": "one", "prompt": "Go."}, {"name": "two", "prompt": "Go on."}]
    recipe = {"model": {"name": "gemini-2.5-flash"}, "allow_no_changes": True, "tasks": tasks}
    # task one: the private path fails, the call is retried on the public path; task two has
    # one answer only, so trying the private path again would leave it without one
    with FakeGemini([[CHANGED_SHAPE], [CHANGED_SHAPE], [CHANGED_SHAPE]]) as fake:
        run = make_case(tmp_path, None, recipe).run(env=fake.env())
    assert_agree(run, "no_changes", 0)
    warnings = [(e.task, e.kind) for e in run.events if isinstance(e, ev.WarningEvent)]
    assert [x for x in warnings if x[1] != SANDBOX_NONE] == [("one", "sdk_private_path_disabled")]
