"""The fan-out/fan-in and nightly example workflows use the commands as tested in
tests/e2e/test_batch.py (their schema is checked with the other examples in test_action.py)."""

from __future__ import annotations

from pathlib import Path

import yaml

WORKFLOWS = Path(__file__).resolve().parents[1] / "examples" / "workflows"


def jobs(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text())["jobs"]


def commands(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_fan_out_plans_runs_each_shard_and_merges_whatever_happened():
    plan, run, merge = (jobs("batch-matrix.yml")[k] for k in ("plan", "run", "merge"))
    assert "agentci matrix" in commands(plan)
    assert plan["outputs"]["matrix"] == "${{ steps.matrix.outputs.matrix }}"
    assert run["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    assert run["strategy"]["fail-fast"] is False
    assert 'agentci run "$SHARD_RECIPE" --shard "$SHARD"' in commands(run)
    upload = next(s for s in run["steps"] if s.get("uses", "").startswith("actions/upload-"))
    assert upload["if"] == "always()"  # a failed shard still reports
    assert (merge["needs"], merge["if"]) == ("run", "always()")
    assert "agentci report merge shards/* --out merged" in commands(merge)
    assert '>> "$GITHUB_STEP_SUMMARY"' in commands(merge)


def test_nightly_skips_what_is_proposed_and_pushes_only_branches_agentci_made():
    workflow = yaml.safe_load((WORKFLOWS / "nightly-proposals.yml").read_text())
    assert workflow[True]["schedule"]  # `on:` reads as True in YAML 1.1
    job = workflow["jobs"]["maintain"]
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0  # earlier nights' branches are seen
    assert "--skip-if-proposed" in commands(job)
    assert "select(.branch != null)" in commands(job)  # only tasks that committed a branch
    assert "gh pr create" in commands(job)
