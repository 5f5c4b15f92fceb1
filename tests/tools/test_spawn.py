"""Commands are started from a thread (agentci.spawn): they live as long as they run, and
commands started at once keep their own output and exit code."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tool_harness import bwrap_sandbox

from agentci.policy.env import child_env
from agentci.process import ProcessResult, run_process


def _run(command: str, cwd: Path, **kw: object) -> ProcessResult:
    return asyncio.run(
        run_process(command, cwd=cwd, env=child_env(), timeout=30, output_cap=10_000, **kw)  # type: ignore[arg-type]
    )


def test_a_sandboxed_command_outlives_the_start_of_its_sandbox(ws: Path) -> None:
    # bubblewrap's --die-with-parent follows the thread that started it, not the process
    res = _run("sleep 0.3; echo alive", ws, sandbox=bwrap_sandbox(ws))
    assert (res.exit_code, res.output) == (0, "alive\n")


def test_a_command_that_dies_with_agentci_outlives_its_start(ws: Path) -> None:
    res = _run("sleep 0.3; echo alive", ws, die_with_parent=True)
    assert (res.exit_code, res.output) == (0, "alive\n")


def test_commands_started_at_once_keep_their_own_output_and_exit_code(ws: Path) -> None:
    async def all_at_once() -> list[ProcessResult]:
        return list(
            await asyncio.gather(
                *(
                    run_process(
                        f"sleep 0.{i}; echo {i}; exit {i}",
                        cwd=ws,
                        env=child_env(),
                        timeout=30,
                        output_cap=10_000,
                    )  # fmt: skip
                    for i in range(8)
                )
            )
        )

    results = asyncio.run(all_at_once())
    assert [(r.exit_code, r.output) for r in results] == [(i, f"{i}\n") for i in range(8)]
