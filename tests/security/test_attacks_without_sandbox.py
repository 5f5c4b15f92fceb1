"""Without a sandbox the agent's commands run on the host: fewer powers, and said so.

``sandbox: auto`` that finds no bubblewrap (a laptop, a pre-commit hook) lets only the
built-in read-only commands that run nothing of the workspace through: no git (it obeys the
repository's config), no rule-allowed or ``yolo`` command (they run the workspace's code).
The deny names ``sandbox: none``, the explicit opt-in; ``sandbox: none`` with secrets in
agentci's environment is a warning event and a line in summary.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from attack_case import CANARIES, make_attack, shell, tool
from test_sandbox_holds import _no_bwrap_path
from tool_harness import Harness

FELL_BACK = "bubblewrap (bwrap) is not installed"


@pytest.fixture
def laptop(h: Harness) -> Harness:
    h.mode = "auto_edit"
    h.no_sandbox = FELL_BACK
    return h


def denied_without_sandbox(h: Harness, command: str) -> str:
    res = h.sh(command)
    assert res.error and res.error.startswith("denied by policy (no_sandbox)"), (command, res)
    assert "`sandbox: none`" in res.error and FELL_BACK in res.error
    return res.error


@pytest.mark.parametrize("command", ["git status", "git log -1", "ls && git diff"])
def test_read_only_git_is_denied(laptop: Harness, command: str) -> None:
    assert "git obeys the repository's config" in denied_without_sandbox(laptop, command)


def test_rule_allowed_commands_are_denied(laptop: Harness, ws: Path) -> None:
    (ws / "conftest.py").write_text("open('ran', 'w').close()\n")
    laptop.rules = [{"tool": "run_shell_command", "command": "python3", "decision": "allow"}]
    error = denied_without_sandbox(laptop, "python3 conftest.py")
    assert "rules[0]" in error
    assert not (ws / "ran").exists()


def test_yolo_commands_are_denied(laptop: Harness, ws: Path) -> None:
    laptop.mode = "yolo"
    denied_without_sandbox(laptop, "touch ran")
    assert not (ws / "ran").exists()


def test_plain_readers_still_run(laptop: Harness) -> None:
    res = laptop.sh("grep -n pip README.md | wc -l && ls src")
    assert res.error is None and "app.py" in res.output


def test_with_a_sandbox_or_sandbox_none_git_runs(h: Harness) -> None:
    h.mode = "auto_edit"
    assert h.sh("git log --oneline -1").error is None


def test_auto_falling_back_end_to_end(tmp_path: Path) -> None:
    marker = tmp_path / "escape" / "marker"
    config = f'[core]\n\tfsmonitor = "touch {marker}; echo"\n'
    script = [
        tool("write_file", file_path="sub/x.txt", content="x\n"),
        shell("git status"),
        shell("cat README.md"),
        {"text": "done"},
    ]
    case = make_attack(tmp_path, script, files={"README.md": "hello\n"})
    (case.repo / ".git" / "config").open("a").write(config)  # the user's own, armed
    env = {"CI": "", "GITHUB_ACTIONS": "", "PATH": _no_bwrap_path(tmp_path)}
    run = case.run(env=env)
    decisions = [(e.rule, e.reason) for e in run.events if e.type == "tool_call_decision"]
    assert [rule for rule, _ in decisions] == ["mode:auto_edit", "no_sandbox", "read_only_command"]
    assert "`sandbox: none`" in decisions[1][1]
    assert not marker.exists()
    warning = next(e for e in run.events if e.type == "warning")
    assert warning.kind == "sandbox_unavailable" and "`sandbox: none`" in warning.message
    assert "verify and later setups still run on this machine" in warning.message
    summary = (case.out / "summary.md").read_text()
    assert "**No sandbox**: bubblewrap (bwrap) is not installed" in summary


def test_sandbox_none_with_secrets_warns_in_events_and_summary(tmp_path: Path) -> None:
    case = make_attack(tmp_path, [shell("true"), {"text": "done"}], {"sandbox": "none"})
    run = case.run(env={"CI": "", "GITHUB_ACTIONS": ""})
    warnings = [e for e in run.events if e.type == "warning"]
    assert [e.kind for e in warnings] == ["secrets_without_sandbox"]
    assert "GEMINI_API_KEY" in warnings[0].message and "GITHUB_TOKEN" in warnings[0].message
    assert "/proc/<pid>/environ of agentci's parent processes" in warnings[0].message
    summary = (case.out / "summary.md").read_text()
    assert "**No sandbox**: sandbox: none with secrets in agentci's environment" in summary
    assert not any(v in summary for v in CANARIES.values())


@pytest.mark.parametrize(
    "command",
    ["grep -R SECRET .", "grep -nR SECRET .", "grep --dereference-r SECRET .", "rg -L SECRET",
     "find -L . -name '*.txt'", "find . -follow", "tree -l", "du -L .", "ls -LR"],
)  # fmt: skip
def test_readers_that_follow_links_while_walking_are_denied(
    laptop: Harness, ws: Path, tmp_path: Path, command: str
) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "token.txt").write_text("SECRET-OF-THE-USER\n")
    (ws / "vendor").symlink_to(tmp_path / "home")  # committed by whoever wrote the PR
    error = denied_without_sandbox(laptop, command)
    assert "follows links" in error


def test_readers_that_walk_without_following_links_still_run(laptop: Harness) -> None:
    assert laptop.sh("grep -rn pip . && find . -name '*.md' && ls -R src").error is None


@pytest.fixture
def vendor(ws: Path, tmp_path: Path) -> Path:
    """A committed link in the workspace to a host folder holding the user's secret."""
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "token.txt").write_text("SECRET-OF-THE-USER\n")
    (ws / "vendor").symlink_to(tmp_path / "home")
    (ws / "names").write_text("vendor/token.txt\0")
    (ws / "empty").mkdir()
    return ws / "vendor"


@pytest.mark.parametrize(
    "command",
    ["diff -r . empty", "diff -rN . empty", "diff -N . empty", "diff --recursive . empty",
     "sort --files0-from=names", "sort --files0-f names", "wc --f=names", "du --files0-from=names",
     "find . -files0-from names", "md5sum -c names", "sha256sum --check names"],
)  # fmt: skip
def test_readers_that_take_names_from_a_file_or_follow_links_in_diff_are_denied(
    laptop: Harness, vendor: Path, command: str
) -> None:
    error = denied_without_sandbox(laptop, command)
    assert "reads the names of the files it opens from a file" in error


@pytest.mark.parametrize(
    "command",
    ["printf 'vendo%s/token.txt' r | xargs cat", "cat names | xargs -0 head", "ls | xargs wc"],
)
def test_commands_run_by_xargs_are_denied(laptop: Harness, vendor: Path, command: str) -> None:
    assert "xargs gives it names from its input" in denied_without_sandbox(laptop, command)


def test_awk_setting_argv_is_denied(laptop: Harness, vendor: Path) -> None:
    command = """awk 'BEGIN { ARGV[1] = "vendo" "r/token.txt"; ARGC = 2 } { print }'"""
    assert "its program sets ARGV" in denied_without_sandbox(laptop, command)


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("cat < vendor/token.txt", "`< vendor/token.txt` reads a file outside the workspace"),
        ("cat < /etc/passwd", "`< /etc/passwd` reads a file outside the workspace"),
        ("wc -l < ../x", "`< ../x` reads a file outside the workspace"),
        ("cat < vendo?/token.txt", "a `<` redirection from a name computed at run time"),
        ("cd src && cat < app.py", "a `<` redirection from a name computed at run time or after"),
    ],
)
def test_input_redirection_from_outside_the_workspace_is_denied(
    laptop: Harness, vendor: Path, command: str, why: str
) -> None:
    assert why in denied_without_sandbox(laptop, command)


def test_readers_that_open_only_what_they_name_still_run(laptop: Harness, vendor: Path) -> None:
    res = laptop.sh(
        "diff --no-dereference -r src empty; cat < README.md; wc -l < src/app.py; "
        "awk '{ print FILENAME }' README.md; sort README.md"
    )
    assert res.error is None and "SECRET-OF-THE-USER" not in res.output
    assert "install with pip" in res.output
