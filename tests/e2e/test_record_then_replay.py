"""``--record FILE`` then ``replay:`` from the same directory, with the recipe elsewhere."""

from __future__ import annotations

from pathlib import Path

import yaml
from e2e_scenario import make_case


def test_the_printed_replay_value_replays_the_recording(tmp_path: Path):
    case = make_case(tmp_path, [{"text": "Nothing to change."}], {"allow_no_changes": True})
    first = case.run("--record", "session.jsonl")
    assert first.code == 0, first.stderr
    hint = first.stderr.splitlines()[-1]
    assert hint == (
        "agentci: recorded the model's answers; replay them with model.name: "
        "replay:repo/session.jsonl"
    )
    recipe = yaml.safe_load(case.recipe.read_text())
    recipe["model"]["name"] = hint.rsplit("model.name: ", 1)[1]
    case.recipe.write_text(yaml.safe_dump(recipe))
    again = case.run()
    assert again.code == 0, again.stderr
    assert again.result["status"] == first.result["status"] == "no_changes"
    assert [e.type for e in again.events if e.type == "content"] == ["content"]
