"""The process lifecycle of a run: launch, preflight, plan, runner, task, delivery, crash."""
