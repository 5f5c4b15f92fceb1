"""summary.md of a failed run says why: status in words, verify's exit code and last output
lines, guard reverts, and the model's final message shown as its claim."""

from __future__ import annotations

import pytest
from e2e_scenario import make_case, write_call

VERIFY = "python -c \"import sys; print('checking shop'); print('price is wrong'); sys.exit(3)\""


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> str:
    tmp_path = tmp_path_factory.mktemp("why")
    script = [
        write_call("tests/test_x.py", "def test_x():\n    pass\n"),
        {"text": "All tests pass now."},
    ]
    recipe = {
        "verify": {"command": VERIFY, "attempts": 1, "baseline": False},
        "guards": {"forbid_test_edits": ["tests/**"]},
    }
    run = make_case(tmp_path, script, recipe).run()
    assert run.code == 1, run.stderr
    return (run.out / "summary.md").read_text()


def test_the_why_section_names_status_exit_code_and_output(summary: str):
    assert "### Why\n\n- **Status**: failed: verify still fails (`verify_failed`)\n" in summary
    assert (
        "exited 3\n\n  Last lines of its output:\n\n  ```text\n  checking shop\n  price is wrong\n  ```"
        in summary
    )


def test_the_why_section_lists_what_guards_reverted(summary: str):
    assert "- **Reverted by agentci** (forbid_test_edits): `tests/test_x.py`" in summary


def test_the_final_message_is_the_models_claim_under_the_outcome(summary: str):
    claim = summary.index("### The model's final message (its claim)")
    assert summary.index("### Why") < claim
    assert summary[claim:].startswith(
        "### The model's final message (its claim)\n\nWhat the model said when it stopped; the "
        "outcome is `verify_failed`, as checked by agentci above.\n\n```text\nAll tests pass now.\n```"
    )
