"""The side-effect-free commands the policy allows without a rule, and their forms that are not.

``sleep``, ``seq``, ``id``, ``nproc``, ``printenv`` and ``tac`` only print (or wait) whatever
their options; ``date`` and ``hostname`` can change the machine (``date -s``, ``date MMDDhhmm``,
``hostname NAME``, ``hostname -F FILE``, ``hostname -b``), so only their reading forms qualify.
"""

from __future__ import annotations

import pytest
from tool_harness import Harness, init_repo


@pytest.fixture(scope="module")
def auto_edit(tmp_path_factory: pytest.TempPathFactory) -> Harness:
    """One workspace for every judgement here (judging a command changes nothing)."""
    root = tmp_path_factory.mktemp("readonly") / "repo"
    ws = init_repo(root, {"README.md": "a,b\n", "dates.txt": "2026-01-01\n"})
    return Harness(ws=ws, mode="auto_edit")


@pytest.mark.parametrize(
    "command",
    [
        "sleep 0.5",
        "sleep 1s",
        "seq 5",
        "seq -w -s, 1 2 10",
        "seq -f %03g 3",
        "id",
        "id -un",
        "nproc",
        "nproc --all",
        "printenv PATH",
        "tac README.md",
        "tac -s , README.md",
        "date",
        "date +%s",
        "date -u +%Y-%m-%dT%H:%M:%SZ",
        "date -d '2 days ago' +%F",
        "date --date=@0 -R",
        "date -Iseconds",
        "date --iso-8601=date",
        "date -r README.md",
        "date -f dates.txt +%s",
        "date --rfc-3339=ns",
        "hostname",
        "hostname -s",
        "hostname --fqdn",
        "hostname -I",
        "ls | xargs sleep",
        "seq 3 | xargs seq",
    ],
)
def test_reading_forms_are_read_only(auto_edit: Harness, command: str) -> None:
    d = auto_edit.decide_shell(command)
    assert (d.decision, d.rule) == ("allow", "read_only_command"), command


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("date -s '2030-01-01'", "date -s sets the system clock"),
        ("date --set='2030-01-01'", "date --set sets the system clock"),
        ("date --se=2030-01-01", "date --set sets the system clock"),
        ("date -us 2030-01-01", "date -s sets the system clock"),
        ("date 010100002030", "sets the system clock"),
        ("date +%s 010100002030", "sets the system clock"),
        ("date -f /etc/shadow", "outside the workspace (/etc/shadow)"),
        ("date --reference=../x", "outside the workspace (../x)"),
        ("date --no-such-option", "only options known to be safe"),
        ("date *", "an unquoted pattern could expand to an option of date"),
        ("hostname evil", "hostname NAME sets the host name"),
        ("hostname -F name.txt", "hostname -F sets the host name from a file"),
        ("hostname --file=name.txt", "hostname --file sets the host name from a file"),
        ("hostname -b", "hostname -b sets a default host name"),
        ("hostname --boot", "hostname --boot sets a default host name"),
        ("hostname -x", "only options known to be safe"),
        ("tac /etc/passwd", "outside the workspace (/etc/passwd)"),
        ("ls | xargs date", "xargs adds words from its input to `date`"),
        ("ls | xargs hostname", "xargs adds words from its input to `hostname`"),
    ],
)
def test_forms_that_change_the_machine_are_not(
    auto_edit: Harness, command: str, reason: str
) -> None:
    d = auto_edit.decide_shell(command)
    assert d.decision == "deny", command
    assert reason in d.reason, d.reason
