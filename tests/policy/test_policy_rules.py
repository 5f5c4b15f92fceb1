"""The policy engine: modes, rule precedence, wrappers, escape hatches, protected paths."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tool_harness import Harness

from agentci.policy.shell_parse import analyze
from agentci.tools.registry import default_tools

TOOLS = default_tools()


def decide(h: Harness, tool: str, **args: object):
    t = TOOLS[tool]
    return h.engine().decide(t.name, t.accesses(t.Args(**args)))


@pytest.mark.parametrize(
    ("mode", "tool", "args", "expected"),
    [
        ("read_only", "read_file", {"file_path": "f"}, "allow"),
        ("read_only", "write_file", {"file_path": "f", "content": ""}, "deny"),
        ("auto_edit", "write_file", {"file_path": "f", "content": ""}, "allow"),
        ("auto_edit", "run_shell_command", {"command": "pytest -q"}, "deny"),
        ("auto_edit", "run_shell_command", {"command": "git status"}, "allow"),
        ("read_only", "run_shell_command", {"command": "ls > out.txt"}, "deny"),
        ("yolo", "run_shell_command", {"command": "pytest -q"}, "allow"),
        ("yolo", "write_file", {"file_path": ".git/config", "content": ""}, "deny"),
    ],
)
def test_mode_defaults(h: Harness, mode: str, tool: str, args: dict, expected: str) -> None:
    h.mode = mode
    assert decide(h, tool, **args).decision == expected


def test_deny_beats_allow_and_rule_is_named(h: Harness) -> None:
    h.mode = "auto_edit"
    h.rules = [
        {"tool": "run_shell_command", "command": "git", "decision": "allow"},
        {"tool": "run_shell_command", "command": "git push", "decision": "deny", "reason": "no"},
    ]
    d = h.decide_shell("git -C . push origin main")
    assert d.decision == "deny" and d.rule.startswith("rules[1]") and d.reason == "no"
    assert h.decide_shell("git commit -m x").rule.startswith("rules[0]")


def test_prefix_matches_on_word_boundaries(h: Harness) -> None:
    h.mode = "auto_edit"
    h.rules = [{"tool": "run_shell_command", "command": "pytest", "decision": "allow"}]
    assert h.decide_shell("pytest -q tests").decision == "allow"
    assert h.decide_shell("pytest-evil").decision == "deny"
    assert h.decide_shell("./pytest").decision == "deny"


def test_path_rules_for_file_tools(h: Harness) -> None:
    h.mode = "auto_edit"
    h.rules = [{"tool": ["write_file", "replace"], "path": "docs/**", "decision": "deny"}]
    assert decide(h, "write_file", file_path="docs/a.md", content="").decision == "deny"
    assert decide(h, "write_file", file_path="src/a.py", content="").decision == "allow"


def test_workflows_writable_only_with_a_rule(h: Harness) -> None:
    args = {"file_path": ".github/workflows/ci.yml", "content": ""}
    assert decide(h, "write_file", **args).rule == "protected:.github/workflows/"
    h.rules = [{"tool": "write_file", "path": ".github/workflows/**", "decision": "allow"}]
    assert decide(h, "write_file", **args).decision == "allow"
    assert decide(h, "write_file", file_path=".git/HEAD", content="").decision == "deny"


def test_recipe_file_and_worktree_git_dir_are_protected(tmp_path: Path, ws: Path) -> None:
    (ws / "recipe.yaml").write_text("version: 1\n")
    h = Harness(ws=ws, recipe_path=ws / "recipe.yaml")
    assert decide(h, "write_file", file_path="recipe.yaml", content="").decision == "deny"
    wt = tmp_path / "wt"
    subprocess.run(["git", "-C", str(ws), "worktree", "add", "-q", str(wt)], check=True)
    hw = Harness(ws=wt.resolve())
    gitdir = (wt / ".git").read_text().split(":", 1)[1].strip()
    d = decide(hw, "write_file", file_path=".git", content="")
    assert d.decision == "deny"
    assert Path(gitdir).exists()


@pytest.mark.parametrize(
    "command",
    [
        "find . -delete",
        "find . -exec cat {} ;",
        "git -c core.pager=sh diff",
        "git diff --ext-diff",
        "sed -i s/a/b/ f",
        "sed 's/a/b/e' f",
        "sed -n 'w out' f",
        "awk 'BEGIN{system(\"id\")}'",
        "rg --pre sh x",
        "sort -o out f",
        "cat /etc/passwd",
        "ls ../..",
        "git push",
    ],
)
def test_read_only_commands_lose_it_with_escape_hatches(h: Harness, command: str) -> None:
    h.mode = "auto_edit"
    assert h.decide_shell(command).decision == "deny", command


@pytest.mark.parametrize(
    "command",
    [
        "ls -la src",
        "cat README.md | grep pip | wc -l",
        "git diff HEAD",
        "sed -n 1,5p f",
        "find . -name '*.py'",
        "git log --oneline -5",
        "awk '{print $1}' f",
        "rg -n add src",
    ],
)
def test_plain_read_only_commands_are_allowed(h: Harness, command: str) -> None:
    h.mode = "auto_edit"
    d = h.decide_shell(command)
    assert d.decision == "allow" and d.rule == "read_only_command", command


def test_parse_errors_and_long_commands_are_denied(h: Harness) -> None:
    assert h.decide_shell("ls 'unterminated").rule == "shell_parse"
    assert h.decide_shell("ls " + "a " * 20_000).rule == "shell_parse"


def test_yolo_lets_visible_shapes_through_but_checks_inside(h: Harness) -> None:
    h.rules = [{"tool": "run_shell_command", "command": "rm", "decision": "deny"}]
    assert h.decide_shell("echo $(git rev-parse HEAD)").decision == "allow"
    assert h.decide_shell("echo $(rm -rf x)").decision == "deny"
    assert h.decide_shell("eval ls").rule == "shape:eval"


def test_a_rule_can_allow_an_exact_shape(h: Harness) -> None:
    h.mode = "auto_edit"
    h.rules = [{"tool": "run_shell_command", "command": "echo $(date)", "decision": "allow"}]
    assert h.decide_shell("echo $(date)").decision == "allow"
    assert h.decide_shell("echo $(rm x)").decision == "deny"
    assert h.decide_shell("echo $(date) && rm -rf x").decision == "deny"


def test_parser_sees_through_wrappers_and_quotes() -> None:
    found = analyze("FOO=1 timeout 5 nice -n 3 env A=b \\rm -fr 'x' && command r\"m\" y")
    assert [c.words for c in found.commands] == [["rm", "-fr", "x"], ["rm", "y"]]
    assert [c.words for c in analyze("bash -c 'ls; rm z'").commands] == [["ls"], ["rm", "z"]]
