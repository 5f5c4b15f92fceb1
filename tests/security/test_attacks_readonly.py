"""Attacks on the read-only classifier: commands that pass as read-only but run or write.

Each attack runs for real through the scheduler with agentci's defaults (``auto_edit``, no
rules) unless the test says otherwise, and the test checks both the deny and that nothing
happened.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from tool_harness import Harness

RM_F = "#!/bin/sh\nrm -f f\n"


def assert_denied(h: Harness, command: str) -> str:
    res = h.sh(command)
    assert res.error and res.error.startswith("denied by policy"), (command, res)
    assert h.last_decision().decision == "deny"
    return res.error


@pytest.fixture
def auto_edit(h: Harness, ws: Path) -> Harness:
    h.mode = "auto_edit"
    (ws / "ls").write_text(RM_F)
    (ws / "ls").chmod(0o755)
    (ws / "prog.awk").write_text('BEGIN { system("rm -f f") }\n')
    return h


def git_config(ws: Path) -> str:
    return (ws / ".git" / "config").read_text()


def test_env_split_string_is_not_read_only(auto_edit: Harness, ws: Path) -> None:
    before = git_config(ws)
    assert "cannot see" in assert_denied(
        auto_edit, "env -S \"git config core.fsmonitor 'sh payload.sh'\""
    )
    assert git_config(ws) == before


@pytest.mark.parametrize(
    "command",
    ["env -S 'rm f'", "env --split-string='rm f'", "env -iS'rm f'", "env --spl 'rm f'"],
)
def test_env_split_string_in_any_spelling(auto_edit: Harness, ws: Path, command: str) -> None:
    assert_denied(auto_edit, command)
    assert (ws / "f").exists()


@pytest.mark.parametrize(
    "command",
    [
        "echo rm f | xargs env",
        "echo -delete | xargs find . -name f",
        "echo 'BEGIN{system(\"rm f\")}' | xargs -0 awk",
        "echo rm | xargs -I cat cat f",
        "echo -i | xargs sed s/keep/lost/ f",
        "echo f | xargs --process-slot-var=PATH ls",
    ],
)
def test_xargs_words_from_stdin_are_not_trusted(auto_edit: Harness, ws: Path, command: str) -> None:
    (ws / "0").mkdir()
    (ws / "0" / "ls").write_text(RM_F)
    (ws / "0" / "ls").chmod(0o755)
    assert_denied(auto_edit, command)
    assert (ws / "f").read_text() == "keep me\n"


def test_xargs_into_a_plain_reader_stays_read_only(auto_edit: Harness, ws: Path) -> None:
    res = auto_edit.sh("echo README.md | xargs grep -n pip")
    assert res.error is None and "install with pip" in res.output


@pytest.mark.parametrize("command", ["awk -W exec prog.awk", "awk --exec prog.awk"])
def test_awk_program_files_are_not_read_only(auto_edit: Harness, ws: Path, command: str) -> None:
    assert_denied(auto_edit, command)
    assert (ws / "f").exists()


@pytest.mark.parametrize(
    "command",
    [
        "awk -E prog.awk",
        "awk -fprog.awk",
        "awk --source 'BEGIN{system(\"rm f\")}'",
        "awk -o out.awk 1 f",
        'awk \'BEGIN { f = "sys" "tem"; @f("rm f") }\'',
    ],
)
def test_awk_escape_hatches_of_gawk(auto_edit: Harness, command: str) -> None:
    assert auto_edit.decide_shell(command).decision == "deny"


def test_git_grep_abbreviated_open_files_in_pager(auto_edit: Harness, ws: Path) -> None:
    assert_denied(auto_edit, "git grep --open-files='rm f' keep")
    assert (ws / "f").exists()


@pytest.mark.parametrize("command", ["sort --ou=f README.md", "sort -ro f README.md"])
def test_sort_output_abbreviated_or_clustered(auto_edit: Harness, ws: Path, command: str) -> None:
    assert_denied(auto_edit, command)
    assert (ws / "f").read_text() == "keep me\n"


@pytest.mark.parametrize(
    "command",
    [
        "sort --comp=./ls -S 1 README.md",
        "git log --outp=f",
        "git grep -nO'rm f' keep",
        "tree -R",
        "tree -ao f",
        "uniq --sk 1 README.md f",
    ],
)
def test_other_abbreviations_and_clusters(auto_edit: Harness, command: str) -> None:
    assert auto_edit.decide_shell(command).decision == "deny"


@pytest.mark.parametrize(
    "command", ["sort -rn README.md", "uniq -c -f 1 README.md", "git log --oneline -n 1"]
)
def test_known_safe_options_stay_read_only(auto_edit: Harness, command: str) -> None:
    assert auto_edit.decide_shell(command).rule == "read_only_command"


@pytest.mark.parametrize(
    "command",
    ["printf -v PATH %s . ; ls", "for PATH in .; do ls; done", "(( PATH = 0 )); ls"],
)
def test_assigning_path_with_a_builtin(auto_edit: Harness, ws: Path, command: str) -> None:
    (ws / "0").mkdir()
    (ws / "0" / "ls").write_text(RM_F)
    (ws / "0" / "ls").chmod(0o755)
    assert_denied(auto_edit, command)
    assert (ws / "f").exists()


def test_backslash_newline_inside_a_word(auto_edit: Harness, ws: Path) -> None:
    error = assert_denied(auto_edit, "tr\\\nap 'rm f' EXIT")
    assert "backslash-newline" in error
    assert (ws / "f").exists()


def test_line_continuations_between_words_still_work(auto_edit: Harness) -> None:
    res = auto_edit.sh("grep -n \\\n  pip README.md")
    assert res.error is None and "install with pip" in res.output


def test_env_chdir_is_a_cd(auto_edit: Harness, tmp_path: Path) -> None:
    assert_denied(auto_edit, "env -C .. sh -c 'echo pwned > outside.txt'")
    assert_denied(auto_edit, "env --ch=.. cat ws-secret.txt")
    assert not (tmp_path / "outside.txt").exists()


def test_env_chdir_into_git_dir(auto_edit: Harness, ws: Path) -> None:
    before = git_config(ws)
    assert_denied(auto_edit, "env --chdir=.git sh -c 'echo pwned >> config'")
    assert git_config(ws) == before


@pytest.mark.parametrize("target", [".gi?/config", ".g*/config", ".gi[t]/config"])
def test_glob_in_a_redirection_target(h: Harness, ws: Path, target: str) -> None:
    before = git_config(ws)
    assert_denied(h, f"echo pwned >> {target}")  # yolo: protected paths hold in every mode
    assert git_config(ws) == before


def test_time_output_file_is_a_redirection(auto_edit: Harness, tmp_path: Path) -> None:
    assert_denied(auto_edit, "\\time -o ../outside.txt true")
    assert not (tmp_path / "outside.txt").exists()


def test_time_output_file_is_a_write_in_read_only_mode(h: Harness, ws: Path) -> None:
    h.mode = "read_only"
    assert_denied(h, "\\time -o f true")
    assert (ws / "f").read_text() == "keep me\n"


def test_path_deny_rule_for_write_file_covers_redirections(h: Harness, ws: Path) -> None:
    h.mode = "auto_edit"
    h.rules = [{"tool": ["write_file", "replace"], "path": "f", "decision": "deny"}]
    assert_denied(h, "echo lost > f")
    assert (ws / "f").read_text() == "keep me\n"


def test_path_deny_rule_for_the_shell_covers_named_files(h: Harness, ws: Path) -> None:
    h.mode = "yolo"
    h.rules = [{"tool": "run_shell_command", "path": "src/**", "decision": "deny"}]
    assert_denied(h, "echo lost > src/app.py")
    assert_denied(h, "cd src && rm app.py")
    assert (ws / "src" / "app.py").exists()
    assert h.sh("cat README.md").error is None


@pytest.mark.parametrize(
    "command",
    ["sort * README.md", "sort {-o,f} README.md", "git log {--output=f,-1}", "printf *"],
)
def test_patterns_and_braces_cannot_smuggle_options(
    auto_edit: Harness, ws: Path, command: str
) -> None:
    (ws / "--output=f").write_text("a file named like an option\n")
    error = assert_denied(auto_edit, command)
    assert "quote the pattern" in error or "expand at run time" in error
    assert (ws / "f").read_text() == "keep me\n"


def test_quoted_patterns_and_plain_globs_for_plain_readers(auto_edit: Harness) -> None:
    assert auto_edit.sh("grep -n pip *.md").error is None
    assert auto_edit.decide_shell("find . -name '*.py'").rule == "read_only_command"
    assert auto_edit.sh("rg -n pip ./*.md").error is None  # expands to ./… never to an option


@pytest.mark.parametrize(
    "command",
    [
        "RIPGREP_CONFIG_PATH=rgrc rg keep f",
        "env RIPGREP_CONFIG_PATH=rgrc rg keep f",
        "export RIPGREP_CONFIG_PATH=rgrc; rg keep f",
        "RIPGREP_CONFIG_PATH=rgrc; export RIPGREP_CONFIG_PATH; rg keep f",
        "sh -c 'export RIPGREP_CONFIG_PATH=rgrc; rg keep f'",
    ],
)
def test_a_config_variable_cannot_arm_a_read_only_command(
    auto_edit: Harness, ws: Path, command: str
) -> None:
    (ws / "rgrc").write_text("--pre=./ls\n")
    assert "RIPGREP_CONFIG_PATH" in assert_denied(auto_edit, command)
    assert (ws / "f").read_text() == "keep me\n"


def test_locale_variables_keep_a_command_read_only(auto_edit: Harness) -> None:
    assert auto_edit.sh("LC_ALL=C sort README.md").error is None


@pytest.fixture
def remote(ws: Path, tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(bare)], cwd=ws, check=True)
    return bare


def _branches(bare: Path) -> str:
    return subprocess.run(
        ["git", "branch", "-a"], cwd=bare, capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.parametrize(
    "command",
    [
        "git -c alias.x=push x origin main",
        "git -c alias.x='!git push origin main' x",
        "V=push git --config-env=alias.x=V x origin main",
        "git -c core.pager='git push origin main' -p log -1",
    ],
)
def test_git_config_on_the_command_line_defeats_no_deny_rule(
    h: Harness, remote: Path, command: str
) -> None:
    h.rules = [{"tool": "run_shell_command", "command": "git push", "decision": "deny"}]
    assert_denied(h, command)
    assert _branches(remote) == ""


def test_git_config_env_assignment_is_denied(h: Harness, remote: Path) -> None:
    h.rules = [{"tool": "run_shell_command", "command": "git push", "decision": "deny"}]
    env = "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0=push"
    assert_denied(h, f"{env} git x origin main")
    assert_denied(h, f"env {env} git x origin main")
    assert _branches(remote) == ""


@pytest.mark.parametrize("command", ["git {push,} origin main", "git pus? origin main"])
def test_braces_and_patterns_cannot_spell_the_denied_subcommand(
    h: Harness, ws: Path, remote: Path, command: str
) -> None:
    (ws / "push").write_text("a file named like the subcommand\n")
    h.rules = [{"tool": "run_shell_command", "command": "git push", "decision": "deny"}]
    assert_denied(h, command)
    assert _branches(remote) == ""


def test_xargs_cannot_supply_the_denied_subcommand(h: Harness, remote: Path) -> None:
    h.rules = [{"tool": "run_shell_command", "command": "git push", "decision": "deny"}]
    assert_denied(h, "echo push origin main | xargs git")
    assert _branches(remote) == ""
    assert os.path.isdir(remote)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("OUTSIDE-SECRET-LINE\n")
    return secret


@pytest.mark.parametrize(
    "command",
    [
        "hexdump -f{f} README.md",
        "hexdump -vf{f} README.md",
        "grep -f{f} README.md",
        "grep -nf{f} README.md",
        "grep --file {f} README.md",
        "grep --fi={f} README.md",
        "rg -f{f} README.md",
        "du -X{f} .",
        "sort --files0-from={f}",
        "wc --files0-from {f}",
        "diff --from-file={f} README.md",
        "cat @{f}",
    ],
)
def test_an_option_that_names_a_file_is_a_path(
    auto_edit: Harness, outside: Path, command: str
) -> None:
    res = auto_edit.sh(command.format(f=outside))
    assert res.error and "outside the workspace" in res.error, res
    assert "OUTSIDE-SECRET" not in res.output


@pytest.mark.parametrize("command", ["hexdump -flink README.md", "grep -f link f", "cat link"])
def test_a_link_to_outside_named_by_an_option_is_a_path(
    auto_edit: Harness, ws: Path, outside: Path, command: str
) -> None:
    (ws / "link").symlink_to(outside)  # committed by whoever wrote the pull request
    res = auto_edit.sh(command)
    assert res.error and "outside the workspace" in res.error, res
    assert "OUTSIDE-SECRET" not in res.output


def test_options_naming_files_inside_the_workspace_stay_read_only(auto_edit: Harness) -> None:
    res = auto_edit.sh("grep -nfREADME.md README.md && grep --file=README.md README.md")
    assert res.error is None and "install with pip" in res.output
    assert auto_edit.sh("hexdump -C README.md").error is None
    assert auto_edit.sh("cut -d/ -f1 README.md && awk -F/ '{print $1}' README.md").error is None


@pytest.mark.parametrize("command", ["cat *", "grep -n SECRET l*", "head ./*/x"])
def test_a_pattern_that_expands_to_a_link_to_outside(
    auto_edit: Harness, ws: Path, outside: Path, command: str
) -> None:
    (ws / "link").symlink_to(outside)
    (ws / "d").mkdir()
    (ws / "d" / "x").symlink_to(outside)
    res = auto_edit.sh(command)
    assert res.error and "outside the workspace" in res.error, res
    assert "OUTSIDE-SECRET" not in res.output


def test_patterns_over_plain_files_stay_read_only(auto_edit: Harness) -> None:
    res = auto_edit.sh("grep -n pip *.md && cat src/*.py")
    assert res.error is None and "install with pip" in res.output


@pytest.mark.parametrize(
    "command", ["cat README.md", "which cat", "env cat README.md", "timeout 5 cat README.md"]
)
def test_a_read_only_name_that_leads_to_a_workspace_program(
    auto_edit: Harness, ws: Path, command: str
) -> None:
    bin_dir = ws / "node_modules" / ".bin"  # on PATH, as a job may put it there
    bin_dir.mkdir(parents=True)
    for name in ("cat", "which", "env", "timeout"):
        (bin_dir / name).write_text(RM_F)
        (bin_dir / name).chmod(0o755)
    auto_edit.env = {**auto_edit.env, "PATH": f"{bin_dir}:{auto_edit.env['PATH']}"}
    error = assert_denied(auto_edit, command)
    assert "a program in the workspace" in error
    assert (ws / "f").exists()


@pytest.mark.parametrize("command", ["./env cat README.md", "bin/timeout 5 cat README.md"])
def test_a_wrapper_written_with_a_folder_is_that_program(
    auto_edit: Harness, ws: Path, command: str
) -> None:
    (ws / "bin").mkdir()
    for path in ("env", "bin/timeout"):
        (ws / path).write_text(RM_F)
        (ws / path).chmod(0o755)
    assert "a program in the workspace" in assert_denied(auto_edit, command)
    assert (ws / "f").exists()


def test_system_wrappers_still_run_read_only_commands(auto_edit: Harness) -> None:
    res = auto_edit.sh("/usr/bin/env cat README.md && timeout 5 cat README.md")
    assert res.error is None and "install with pip" in res.output
