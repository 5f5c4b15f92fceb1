"""A masked output's preview is short and repeats nothing the history already holds."""

from __future__ import annotations

from agentci.context.masking import preview


def test_a_masked_shell_output_does_not_repeat_its_command_or_directory() -> None:
    output = "Command: pytest -q tests/\nDirectory: src\nExit code: 1\nOutput:\n" + "F" * 2_000
    shown = preview(output, "@tool-outputs/0002-run_shell_command.txt")
    assert shown == (
        "Exit code: 1\nOutput:\n" + "F" * 179 + "\n"
        "[output masked to save context: 2062 chars, 5 lines; saved as "
        "@tool-outputs/0002-run_shell_command.txt, read_file it (start_line/end_line) to see "
        "it again]"
    )


def test_a_preview_keeps_at_most_three_lines_and_200_characters() -> None:
    output = "\n".join(f"line {i}: " + "x" * 90 for i in range(50))
    head = preview(output, None).split("\n[output masked", 1)[0]
    assert head == output[:200]
    assert preview(output, None).endswith("; not saved, run the tool again to see it]")
