"""The GitHub token never reaches the model's commands, not even when the recipe's
``policy.env_passthrough`` names it (the Action's delivery uses it outside the run)."""

from __future__ import annotations

from pathlib import Path

from attack_case import CANARIES, make_attack, shell

TOKENS = {
    "GH_TOKEN": "gho_CanaryGhToken000000000000000000000",
    "ACTIONS_RUNTIME_TOKEN": "rt-canary-1",
}


def test_env_passthrough_cannot_carry_the_github_token(tmp_path: Path) -> None:
    recipe = {
        "policy": {
            "mode": "yolo",
            "env_passthrough": [
                "GITHUB_TOKEN",
                "GH_TOKEN",
                "ACTIONS_RUNTIME_TOKEN",
                "PROJECT_FLAG",
            ],
        },
        "allow_no_changes": True,
    }
    case = make_attack(tmp_path, [shell("env > seen.txt; cat seen.txt"), {"text": "done"}], recipe)
    run = case.run(env={**TOKENS, "PROJECT_FLAG": "passed-through"})
    seen = (case.repo / "seen.txt").read_text()
    assert "PROJECT_FLAG=passed-through" in seen  # the passthrough itself works
    for name, value in {**TOKENS, "GITHUB_TOKEN": CANARIES["GITHUB_TOKEN"]}.items():
        assert value not in seen, name
        assert f"{name}=" not in seen, name
    assert run.code == 0, run.stderr[-2000:]
