"""Attacks on the CI log: text the model controls must not issue GitHub workflow commands.

The runner acts on ``::command::`` after any leading Unicode white space (it trims with .NET's
``TrimStart``) and on the legacy ``##[command]`` anywhere in a line; a carriage return also
ends a line for it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentci.reports.redact import neutralise_workflow_commands
from agentci.testing.cli import run_recipe

#: Characters .NET's char.IsWhiteSpace accepts (and invisible ones older runtimes trimmed).
BLANKS = "\t \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
BLANKS += "\u202f\u205f\u3000\u0085\u2028\u2029\u180e\u200b\ufeff"


def runner_commands(log: str) -> list[str]:
    """The lines a GitHub runner would read as workflow commands."""
    found = []
    for line in re.split(r"\r\n|\r|\n", log):
        if line.lstrip(BLANKS + "\x0b\x0c").startswith("::") or "##[" in line:
            found.append(line)
    return found


@pytest.mark.parametrize("blank", list(BLANKS))
def test_command_after_any_white_space_is_neutralised(blank: str) -> None:
    text = f"ok\n{blank}::add-mask::x\n{blank * 3}::error::y"
    assert runner_commands(neutralise_workflow_commands(text)) == []


@pytest.mark.parametrize(
    "text", ["see ##[error]boom", "a ##[set-output name=x;]y", "##[group]a ##[endgroup]", "###["]
)
def test_legacy_command_anywhere_in_a_line_is_neutralised(text: str) -> None:
    out = neutralise_workflow_commands(text)
    assert runner_commands(out) == [] and "##vso[" not in out


def test_neutralising_twice_changes_nothing() -> None:
    once = neutralise_workflow_commands("\u2003::error::x\n##[group]y")
    assert neutralise_workflow_commands(once) == once


RECIPE = """\
version: 1
name: console
model: {{name: "scripted:replies.json"}}
prompt: Look around.
workspace: {{path: {repo}}}
sandbox: none
"""


def test_model_text_tool_names_and_reasons_stay_inert_in_a_github_run(
    repo_factory, tmp_path: Path
) -> None:
    repo = repo_factory({"README.md": "hello\n"})
    replies = [
        {
            "text": "Looking.\n\u2003::error file=a::from the model ##[group]legacy",
            "calls": [{"name": "x\n\u3000::add-mask::tool-name ##[error]n", "args": {}}],
        },
        {"calls": [{"name": "run_shell_command", "args": {"command": "rm \u00a0##[error]r"}}]},
        {"text": "Done.\n\u2003::warning::end"},
    ]
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    (tmp_path / "recipe.yaml").write_text(RECIPE.format(repo=repo))
    run = run_recipe(
        tmp_path / "recipe.yaml", tmp_path / "out", cwd=tmp_path, env={"GITHUB_ACTIONS": "true"}
    )
    assert run.events[-1].type == "run_finished", run.stderr
    assert "add-mask" in run.stderr and "legacy" in run.stderr  # shown, but harmless
    assert runner_commands(run.stderr) == []
    ours = [line for line in run.stdout.splitlines() if line.startswith("::")]
    assert all(line.split("::")[1].endswith("title=agentci") for line in ours), ours
    assert runner_commands(run.stdout) == ours


SUMMARY_RECIPE = """\
version: 1
name: summary
model: {{name: "scripted:replies.json"}}
prompt: Write notes.
workspace: {{path: {repo}}}
sandbox: none
"""


def rendered_summary(out: Path) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render((out / "summary.md").read_text())


@pytest.mark.parametrize(
    "name",
    [
        "x`<img src=x onerror=alert(1)>`.md",
        "``<img src=x onerror=alert(1)>``",
        "`<img src=x onerror=alert(1)>",
        "<img src=x onerror=alert(1)>",
    ],
)
def test_a_file_name_cannot_break_out_of_its_code_span_in_summary_md(
    repo_factory, tmp_path: Path, name: str
) -> None:
    repo = repo_factory({"README.md": "hello\n"})
    replies = [
        {"calls": [{"name": "write_file", "args": {"file_path": name, "content": "x\n"}}]},
        {"text": "Done."},
    ]
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    (tmp_path / "recipe.yaml").write_text(SUMMARY_RECIPE.format(repo=repo))
    run = run_recipe(tmp_path / "recipe.yaml", tmp_path / "out", cwd=tmp_path)
    assert (repo / name).exists(), run.stderr
    html = rendered_summary(tmp_path / "out")
    assert "<img" not in html
    assert f"<code>{name.replace('<', '&lt;').replace('>', '&gt;')}</code>" in html


def test_test_ids_and_reasons_cannot_inject_html_into_summary_md(tmp_path: Path) -> None:
    from agentci.outcome import Status
    from agentci.reports.report import RunReport, TaskReport
    from agentci.reports.summary import write_summary
    from agentci.usage import Usage as UsageTotals

    test_id = "t.py::test[`<img src=t onerror=alert(1)>`]"
    reason = "verify: `<img src=r onerror=alert(2)>` <b>still</b> fails"
    task = TaskReport(
        name="main",
        status=Status.verify_failed,
        exit_code=1,
        reason=reason,
        extra={"verify": {"still_failing": [test_id]}},
        usage=UsageTotals(),
    )
    report = RunReport(
        run_id="r",
        recipe="r.yaml",
        recipe_name="r",
        status=Status.verify_failed,
        exit_code=1,
        reason=reason,
        tasks=[task],
        usage=UsageTotals(),
        duration_ms=1,
    )
    write_summary(tmp_path / "summary.md", report)
    html = rendered_summary(tmp_path)
    assert "<img" not in html and "<b>" not in html
    assert "<code>t.py::test[`&lt;img src=t onerror=alert(1)&gt;`]</code>" in html
    assert "`&lt;img src=r onerror=alert(2)&gt;` &lt;b&gt;still&lt;/b&gt; fails" in html
