"""A tool output over the cap is saved whole (redacted) and the model can read it again."""

from __future__ import annotations

from pathlib import Path

from context_session import context_session, run

from agentci.providers.base import ToolResultPart
from agentci.providers.scripted import Reply, ScriptedProvider, call
from agentci.recipe.schema import Context

CANARY = "canary-secret-5f1e2d3c4b"


def results(provider: ScriptedProvider, request: int) -> list[ToolResultPart]:
    parts = provider.requests[request].messages[-1].parts
    return [p for p in parts if isinstance(p, ToolResultPart)]


def test_a_1mb_shell_output_is_saved_whole_and_the_model_sees_head_tail_and_its_name(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"a.txt": "x\n"})
    # 20,000 numbered lines of 50 characters: 1 MB, the canary secret in the middle
    script = (
        "import sys\n"
        "for i in range(1, 20001):\n"
        f"    print(f'line {{i:06d}} ' + ('{CANARY}' if i == 10000 else '.' * 26).ljust(38, '.'))\n"
    )
    (repo / "gen.py").write_text(script)
    provider = ScriptedProvider(
        [
            Reply(calls=[call("run_shell_command", command="python3 gen.py")]),
            Reply(calls=[call("read_file", file_path="@tool-outputs/0001-run_shell_command.txt",
                              start_line=10002, end_line=10004)]),
            Reply(text="done"),
        ]
    )  # fmt: skip
    out = tmp_path / "out"
    session = context_session(repo, out, provider, secrets=(CANARY,))
    run(session, "Generate")

    (shown,) = results(provider, 1)
    assert shown.saved == "@tool-outputs/0001-run_shell_command.txt"
    assert len(shown.output) < 31_000
    assert "line 000001 " in shown.output and "line 020000 " in shown.output
    assert "line 010000 " not in shown.output
    assert "is saved as @tool-outputs/0001-run_shell_command.txt" in shown.output
    saved = (out / "tool-outputs" / "0001-run_shell_command.txt").read_text()
    assert saved.count("\n") >= 20_000 and len(saved) > 1_000_000
    assert CANARY not in saved
    assert "line 010000 ***" in saved
    (ranged,) = results(provider, 2)
    assert ranged.error is None
    body = ranged.output.splitlines()
    # the saved file starts with the tool's 2 header lines (exit code, output)
    assert body[0].startswith("[truncated: showing lines 10002-10004 of 20002;")
    assert body[1:] == [
        "line 010000 ***" + "." * (38 - len(CANARY)),
        "line 010001 " + "." * 38,
        "line 010002 " + "." * 38,
    ]


def test_a_short_output_is_not_saved(repo_factory, tmp_path: Path) -> None:
    repo = repo_factory({"a.txt": "alpha\n"})
    provider = ScriptedProvider(
        [Reply(calls=[call("read_file", file_path="a.txt")]), Reply(text="ok")]
    )
    run(context_session(repo, tmp_path / "out", provider), "Read")
    (shown,) = results(provider, 1)
    assert (shown.output, shown.saved) == ("alpha\n", None)
    assert not (tmp_path / "out" / "tool-outputs").exists()


def test_saved_outputs_are_read_only_and_only_this_tasks_are_reachable(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": "y" * 50 + "\n" * 1 + ("z" * 80 + "\n") * 1000})
    provider = ScriptedProvider(
        [
            Reply(calls=[call("run_shell_command", command="cat big.txt")]),
            Reply(calls=[
                call("write_file", file_path="@tool-outputs/0001-run_shell_command.txt", content="x"),
                call("replace", file_path="@tool-outputs/0001-run_shell_command.txt",
                     old_string="z", new_string="w"),
                call("read_file", file_path="@tool-outputs/0002-run_shell_command.txt"),
                call("read_file", file_path="@tool-outputs/../../etc/passwd"),
            ]),
            Reply(text="done"),
        ]
    )  # fmt: skip
    out = tmp_path / "out"
    run(context_session(repo, out, provider, context=Context(tool_output_cap_chars=1_000)), "Go")
    write, replace, missing, escape = results(provider, 2)
    assert "read-only" in (write.error or "") and "read-only" in (replace.error or "")
    assert "no saved tool output @tool-outputs/0002-run_shell_command.txt" in (missing.error or "")
    assert escape.error and not escape.output  # refused (by the policy: outside the workspace)
    assert (out / "tool-outputs" / "0001-run_shell_command.txt").read_text().count("z" * 80) == 1000
    assert not (repo / "@tool-outputs").exists()


def test_a_fifo_swapped_in_for_a_saved_output_is_refused_not_waited_on(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"big.txt": ("z" * 80 + "\n") * 100})
    out = tmp_path / "out"
    saved = out / "tool-outputs" / "0001-run_shell_command.txt"
    provider = ScriptedProvider(
        [
            Reply(calls=[call("run_shell_command", command="cat big.txt")]),
            Reply(calls=[call("run_shell_command", command=f"rm {saved} && mkfifo {saved}")]),
            Reply(calls=[call("read_file", file_path="@tool-outputs/0001-run_shell_command.txt")]),
            Reply(text="done"),
        ]
    )
    run(context_session(repo, out, provider, context=Context(tool_output_cap_chars=1_000)), "Go")
    (read,) = results(provider, 3)
    assert read.error == (
        "cannot read @tool-outputs/0001-run_shell_command.txt: not a regular file"
    )
