"""Attacks through repositories the agent plants: a read-only ``git`` must never use them.

``write_file`` can make a folder that git takes for a repository (``x/HEAD``, ``x/config``,
``x/objects/``, ``x/refs/``), a nested ``sub/.git/`` or a ``.git`` file pointing at one. A
``git status`` or ``git log`` started there would read that config and run what it names
(``core.fsmonitor``, a help viewer, textconv, ``diff.external``, ``gpg.program``, an
``includeIf`` target). Each test plants one with the file tools, as the model would, runs the
read-only git that would set it off (``auto_edit``, no rules, no sandbox: the harshest
case), and checks that nothing ran: the marker outside the workspace stays absent.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from attack_case import make_attack, shell, tool
from tool_harness import Harness

from agentci.testing.repo import git


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    (tmp_path / "escape").mkdir()
    return tmp_path / "escape" / "marker"


@pytest.fixture
def agent(h: Harness) -> Harness:
    h.mode = "auto_edit"
    return h


def plant(h: Harness, files: dict[str, str]) -> list[str | None]:
    """``write_file`` each file, as the model would; the errors (None where it was written)."""
    return [h.call("write_file", file_path=p, content=c).error for p, c in files.items()]


def bare(config: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The four files that make ``x/`` a repository for git, with ``config``."""
    return {
        "x/HEAD": "ref: refs/heads/main\n",
        "x/config": config,
        "x/objects/info/alternates": "../../.git/objects\n",  # the real history, by reference
        "x/refs/heads/.keep": "",
        **(extra or {}),
    }


def help_viewer(marker: Path) -> str:
    return (
        "[core]\n\tbare = true\n[help]\n\tformat = man\n[man]\n\tviewer = evil\n"
        f'[man "evil"]\n\tcmd = touch {marker};\n'
    )


def denied_for_another_repo(h: Harness, command: str, **args: str) -> str:
    res = h.sh(command, **args)
    assert res.error and res.error.startswith("denied by policy"), (command, res)
    assert "another git repository" in res.error
    return res.error


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("cd x && git log --help", {}),
        ("git log --help", {"dir_path": "x"}),
        ("git -C x log --help", {}),
        ("cd x/refs && git status --help", {}),
    ],
)
def test_a_planted_bare_repository_with_a_help_viewer(
    agent: Harness, marker: Path, command: str, args: dict[str, str]
) -> None:
    assert plant(agent, bare(help_viewer(marker))) == [None] * 4
    error = denied_for_another_repo(agent, command, **args)
    assert "x" in error
    assert not marker.exists()


def test_includeif_in_a_planted_repository(agent: Harness, marker: Path) -> None:
    config = '[core]\n\tbare = true\n[includeIf "gitdir:/"]\n\tpath = evil.cfg\n'
    plant(agent, bare(config, {"x/evil.cfg": help_viewer(marker)}))
    denied_for_another_repo(agent, "cd x && git log --help")
    assert not marker.exists()


def test_textconv_of_a_planted_repository(agent: Harness, ws: Path, marker: Path) -> None:
    config = f'[core]\n\tbare = true\n[diff "evil"]\n\ttextconv = "touch {marker}; cat"\n'
    head = git(ws, "rev-parse", "HEAD").strip()
    plant(agent, bare(config, {"x/info/attributes": "* diff=evil\n", "x/packed-refs": ""}))
    agent.call("write_file", file_path="x/refs/heads/main", content=head + "\n")
    denied_for_another_repo(agent, "cd x && git log -p -1")
    denied_for_another_repo(agent, "cd x && git show HEAD")
    assert not marker.exists()


def test_external_diff_of_a_planted_repository(agent: Harness, ws: Path, marker: Path) -> None:
    (ws / "README.md").write_text("changed\n")
    git(ws, "commit", "-qam", "second")
    config = f"[core]\n\tbare = true\n[diff]\n\texternal = touch {marker};\n"
    plant(agent, bare(config))
    agent.call("write_file", file_path="x/refs/heads/main", content=git(ws, "rev-parse", "HEAD"))
    denied_for_another_repo(agent, "cd x && git diff HEAD~1 HEAD")
    assert not marker.exists()


def test_gpg_program_of_a_planted_repository(agent: Harness, ws: Path, marker: Path) -> None:
    tree = git(ws, "rev-parse", "HEAD^{tree}").strip()
    signed = (
        f"tree {tree}\nauthor a <a@a> 1 +0000\ncommitter a <a@a> 1 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nsigned\n"
    )
    done = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=ws, input=signed, capture_output=True, text=True, check=True,
    )  # fmt: skip
    git(ws, "update-ref", "refs/heads/signed", done.stdout.strip())  # the user's signed history
    (ws / "lint.sh").write_text("#!/bin/sh\nexit 0\n")
    (ws / "lint.sh").chmod(0o755)  # gpg.program is run without a shell: an executable file
    config = f"[core]\n\tbare = true\n[gpg]\n\tprogram = {ws / 'lint.sh'}\n"
    plant(agent, bare(config, {"lint.sh": f"#!/bin/sh\ntouch {marker}\n"}))
    agent.call("write_file", file_path="x/refs/heads/main", content=done.stdout)
    denied_for_another_repo(agent, "cd x && git log --show-signature -1")
    assert not marker.exists()


@pytest.mark.parametrize(
    "path", ["sub/.git/HEAD", "sub/.git/config", "a/b/.git/hooks/pre-commit", "sub/.git"]
)
def test_nested_git_folders_and_files_are_protected_in_every_mode(
    h: Harness, ws: Path, path: str
) -> None:
    assert h.mode == "yolo"
    res = h.call("write_file", file_path=path, content="gitdir: ../x\n")
    assert res.error and ".git" in res.error
    assert not (ws / path).exists()


def test_a_planted_nested_repository_runs_no_fsmonitor(
    agent: Harness, ws: Path, marker: Path
) -> None:
    config = f'[core]\n\tfsmonitor = "touch {marker}; echo"\n'
    errors = plant(
        agent,
        {
            "sub/.git/HEAD": "ref: refs/heads/main\n",
            "sub/.git/config": config,
            "sub/.git/objects/.keep": "",
            "sub/.git/refs/.keep": "",
        },
    )
    assert all(errors)
    res = agent.sh("cd sub && git status")
    assert not marker.exists(), res


def test_a_gitfile_pointing_at_a_planted_repository(agent: Harness, ws: Path, marker: Path) -> None:
    config = f'[core]\n\tbare = false\n\tfsmonitor = "touch {marker}; echo"\n'
    plant(agent, bare(config))
    assert plant(agent, {"sub/.git": "gitdir: ../x\n", "sub/a.txt": "a\n"})[0] is not None
    agent.sh("cd sub && git status")
    assert not marker.exists()


def test_a_nested_repository_made_before_the_agent_is_still_refused(
    agent: Harness, ws: Path, marker: Path
) -> None:
    nested = ws / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    git(nested, "config", "core.fsmonitor", f"touch {marker}; echo")
    error = denied_for_another_repo(agent, "git status", dir_path="vendor/lib")
    assert "vendor/lib/.git" in error
    assert not marker.exists()


def test_a_repository_config_that_includes_a_workspace_file(
    agent: Harness, ws: Path, marker: Path
) -> None:
    with (ws / ".git" / "config").open("a") as config:  # a team's shared settings, in the repo
        config.write("[include]\n\tpath = ../team.gitconfig\n")
    plant(agent, {"team.gitconfig": f'[core]\n\tfsmonitor = "touch {marker}; echo"\n'})
    res = agent.sh("git status")
    assert res.error and "includes team.gitconfig, a file the agent can write" in res.error
    assert not marker.exists()


def test_read_only_git_in_the_workspace_is_pinned_to_its_repository(
    agent: Harness, ws: Path
) -> None:
    res = agent.sh("git status --short && env")
    assert res.error is None, res
    env = dict(line.split("=", 1) for line in res.output.splitlines() if "=" in line)
    assert env["GIT_DIR"] == str(ws / ".git")
    assert env["GIT_WORK_TREE"] == str(ws)
    keys = {env[f"GIT_CONFIG_KEY_{n}"]: env[f"GIT_CONFIG_VALUE_{n}"] for n in range(20)}
    assert keys["core.fsmonitor"] == "false"
    assert keys["core.hooksPath"] == "/dev/null"
    assert keys["gpg.program"] == "false"


def test_read_only_git_in_a_subfolder_still_works(agent: Harness) -> None:
    res = agent.sh("git ls-files", dir_path="src")
    assert res.error is None and "app.py" in res.output
    res = agent.sh("cd src && git log --oneline -1")
    assert res.error is None and "initial" in res.output
    res = agent.sh("git -C src log --oneline -1")
    assert res.error is None and "initial" in res.output


def test_the_four_write_calls_and_git_status_with_all_defaults(tmp_path: Path) -> None:
    """The issue's reproduction, end to end: ``agentci run`` with every default (auto_edit,
    ``sandbox: auto``). Inside the sandbox the planted config would run the agent's command
    (auto_edit turned into yolo); the marker it tries is in the workspace, which is writable
    there."""
    viewer = "[core]\n\tbare = true\n[help]\n\tformat = man\n[man]\n\tviewer = evil\n"
    viewer += '[man "evil"]\n\tcmd = touch ../pwned;\n'
    script = [
        *(tool("write_file", file_path=p, content=c) for p, c in bare(viewer).items()),
        shell("cd x && git status"),
        shell("cd x && git log --help"),
        tool("run_shell_command", command="git log --help", dir_path="x"),
        {"text": "done"},
    ]
    case = make_attack(tmp_path, script)
    run = case.run()
    decisions = [e.rule for e in run.events if e.type == "tool_call_decision"]
    assert decisions[-3:] == ["read_only_git"] * 3, run.stderr[-2000:]
    assert not (case.repo / "pwned").exists()
    assert case.leaked(run) == []
