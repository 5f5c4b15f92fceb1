"""Verify: the recipe author's check of the agent's change (docs/verify.md).

* :mod:`.run` runs ``verify.command`` and reads its JUnit report into per-test outcomes.
* :mod:`.compare` says what changed between the baseline and an attempt (fixed, regressed …).
* :mod:`.feedback` renders failures for the model (the prompt's ``{{ verify.failures }}`` and
  the "still failing" follow-up prompts).
* :mod:`.guards` checks the change itself (allowed paths, size, test edits) and reverts paths
  the agent may not change, so they never reach the patch.
* :mod:`.stage` ties these together for one task: baseline, attempts, the report.
"""
