"""A masked output's preview is short and repeats nothing the history already holds."""

from __future__ import annotations

from agentci.context.masking import preview


def test_a_masked_shell_output_does_not_repeat_its_command_or_directory() -> None:
    output = "Command: pytest -q tests/\nDirectory: src\nExit code: 1\nOutput:\n" + "F" * 2_000
    shown = preview(output, "@tool-outputs/0002-run_shell_command.txt")
    assert shown == (
        "Exit code: 1\nOutput:\n" + "F" * 99 + "\n"
        "[masked: 2062 chars, 5 lines; read_file @tool-outputs/0002-run_shell_command.txt]"
    )


def test_a_preview_keeps_at_most_three_lines_and_120_characters() -> None:
    output = "\n".join(f"line {i}: " + "x" * 90 for i in range(50))
    head = preview(output, None).split("\n[masked", 1)[0]
    assert head == output[:120]
    assert preview(output, None).endswith("; not saved: run the tool again]")


def test_the_note_says_nothing_read_files_description_already_says() -> None:
    note = preview("a\n" * 1_000, "@tool-outputs/0001-read_file.txt").split("\n")[-1]
    assert note == "[masked: 2000 chars, 1000 lines; read_file @tool-outputs/0001-read_file.txt]"
