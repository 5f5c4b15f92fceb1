"""Text that is safe to print where a GitHub Actions runner reads the log.

The runner acts on two forms in any line of a step's output: ``::command …::`` after leading
whitespace (it trims every Unicode white space, not only spaces and tabs) and the legacy
``##[command]`` anywhere in the line. Text from the model, from tools, from tests and from
tool names is neutralised before it is printed: ``::`` at a line start (after any white
space) becomes ``: :`` and ``##[`` anywhere becomes ``# #[``. Escape sequences and control
characters (except tab and newline) are removed; a lone carriage return, which the runner
also reads as a line break, becomes a newline.
"""

from __future__ import annotations

import re

_ANSI = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL / ST
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[@-Z\\-_]"  # other 2-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]"  # other control characters
    r"|\x1b"
)
#: White space as .NET's ``TrimStart`` sees it, plus invisible characters some versions trim.
_BLANK = r"(?:[^\S\n]|[\u180e\u200b-\u200d\u2060\ufeff])"
_COMMAND_AT_START = re.compile(rf"^({_BLANK}*)::", re.MULTILINE)
_LEGACY_COMMAND = re.compile(r"##(vso)?\[")


def neutralise_workflow_commands(text: str) -> str:
    """``text`` with no workflow command the runner would act on, and no escape sequences."""
    text = _ANSI.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _COMMAND_AT_START.sub(r"\1: :", text)
    return _LEGACY_COMMAND.sub(lambda m: "# #" + (m.group(1) or "") + "[", text)
