"""One command run to its end without an event loop (agentci.childproc.run_blocking) ends as
agentci.process.run_process ends it: exit code and merged output, a background child that keeps
the pipe open, the timeout, the output limit; and a stop request kills its group."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from agentci.childproc import ProcessResult, run_blocking
from agentci.process import run_process


class AsIs:
    """A launcher that starts the command as it is (what a sandbox wraps)."""

    @contextlib.contextmanager
    def launch(self, argv: Sequence[str], cwd: Path) -> Iterator[tuple[list[str], tuple[int, ...]]]:
        yield list(argv), ()


def _both(command: str, tmp: Path, **limits: float) -> tuple[ProcessResult, ProcessResult]:
    env = {"PATH": os.environ["PATH"]}
    timeout = limits.pop("timeout", 30.0)
    blocking = run_blocking(
        command, cwd=tmp, env=env, timeout=timeout, output_cap=4000, sandbox=AsIs(),
        stop=lambda: False, **limits,  # type: ignore[arg-type]
    )  # fmt: skip
    looped = asyncio.run(
        run_process(
            command, cwd=tmp, env=env, timeout=timeout, output_cap=4000, sandbox=AsIs(), **limits
        )  # type: ignore[arg-type]
    )
    assert blocking is not None
    return blocking, looped


def _ending(result: ProcessResult) -> tuple[int | None, str, bool, bool]:
    return result.exit_code, result.output, result.timed_out, result.output_limited


def test_exit_code_and_merged_output_are_run_process_s(tmp_path: Path) -> None:
    blocking, looped = _both("echo out; echo err >&2; exit 3", tmp_path)
    assert _ending(blocking) == _ending(looped) == (3, "out\nerr\n", False, False)


def test_a_background_child_holding_the_pipe_does_not_hold_the_command(tmp_path: Path) -> None:
    start = time.monotonic()
    blocking = _both("sleep 30 & echo started", tmp_path)[0]
    assert (_ending(blocking), time.monotonic() - start < 20) == (
        (0, "started\n", False, False),
        True,
    )


def test_the_timeout_kills_the_command_as_run_process_does(tmp_path: Path) -> None:
    blocking, looped = _both("echo begun; sleep 30", tmp_path, timeout=0.5)
    assert _ending(blocking) == _ending(looped) == (
        None, "begun\n\n[killed: timed out after 0.5s]", True, False
    )  # fmt: skip


def test_output_past_the_limit_kills_the_command_as_run_process_does(tmp_path: Path) -> None:
    command = "yes 0123456789 | head -c 200000; sleep 30"
    blocking, looped = _both(command, tmp_path, max_output_bytes=1000)
    # how much was read past the limit depends on the pipe's chunks, in both
    ends = [
        (r.exit_code, r.output_limited, r.output.endswith("[killed: output exceeded 1000 bytes]"))
        for r in (blocking, looped)
    ]
    assert ends == [(None, True, True), (None, True, True)]


def test_a_stop_request_kills_the_group_and_answers_none(tmp_path: Path) -> None:
    marker = tmp_path / "left"
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    result = run_blocking(
        f"(sleep 2; touch {marker}) & sleep 30", cwd=tmp_path, env={"PATH": os.environ["PATH"]},
        timeout=60, output_cap=4000, sandbox=AsIs(), stop=stop,
    )  # fmt: skip
    time.sleep(3)
    assert (result, marker.exists()) == (None, False)
