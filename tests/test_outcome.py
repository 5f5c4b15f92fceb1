"""How tasks' outcomes make a run's: exit 75 (the model API was unavailable) only when the
outage is the one thing between the run and success."""

from __future__ import annotations

from agentci.outcome import Status, is_retryable, run_outcome

UNAVAILABLE = (Status.provider_unavailable, 75)


def test_an_outage_beside_successes_makes_the_run_retryable():
    assert run_outcome([(Status.success, 0), UNAVAILABLE]) == UNAVAILABLE
    assert run_outcome([(Status.no_changes, 0), UNAVAILABLE]) == UNAVAILABLE  # allowed no_changes


def test_a_failure_of_the_work_outranks_an_outage():
    assert run_outcome([UNAVAILABLE, (Status.verify_failed, 1)]) == (Status.verify_failed, 1)
    assert run_outcome([UNAVAILABLE, (Status.no_changes, 1)]) == (Status.no_changes, 1)
    assert run_outcome([UNAVAILABLE, (Status.provider_error, 6)]) == (Status.provider_error, 6)
    assert run_outcome([UNAVAILABLE, (Status.cancelled, 143)]) == (Status.cancelled, 143)


def test_only_provider_unavailable_is_retryable():
    assert [s.value for s in Status if is_retryable(s)] == ["provider_unavailable"]
    assert is_retryable("provider_unavailable") and not is_retryable("no-such-status")
