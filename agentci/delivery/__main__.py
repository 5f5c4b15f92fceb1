"""``python -m agentci.delivery check|deliver``: the Action's steps around ``agentci run``."""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path
from typing import Any

import click

from agentci.delivery.context import DeliveryError, GitHubContext, untrusted_checkout


def _say(kind: str, text: str, title: str = "agentci delivery") -> None:
    from agentci.events.annotations import escape_data
    from agentci.events.workflow_commands import neutralise_workflow_commands

    print(f"::{kind} title={title}::{escape_data(neutralise_workflow_commands(text))}")


def _head(workspace: Path) -> str:
    from agentci.delivery.process import GIT_TIMEOUT, run_bounded, timeout_for
    from agentci.gitenv import git_argv, git_env

    try:
        done = run_bounded(git_argv(["rev-parse", "HEAD"], repo=workspace / ".git"),
                           cwd=workspace, env=git_env({"GIT_DIR": str(workspace / ".git")}), timeout=timeout_for(GIT_TIMEOUT),
                           what="git rev-parse")  # fmt: skip
    except DeliveryError:
        return ""
    return done.stdout.decode(errors="replace").strip() if done.returncode == 0 else ""


@click.group()
def main() -> None:
    """The GitHub Action's delivery steps (docs/github-action.md)."""


@main.command()
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), default=Path("."))
def check(workspace: Path) -> None:
    """Refuse to go on where running the recipe would be unsafe (pull_request_target with the
    pull request's code checked out)."""
    try:
        why = untrusted_checkout(GitHubContext.from_environ(), _head(workspace))
    except DeliveryError as err:
        why = str(err) if os.environ.get("GITHUB_EVENT_NAME") == "pull_request_target" else None
    if why:
        _say("error", why)
        sys.exit(1)


def _patch_of(out: Path, task: str, tasks: int) -> Path:
    from agentci.outputs.writer import task_dir_name

    return out / "patch.diff" if tasks <= 1 else out / "tasks" / task_dir_name(task) / "patch.diff"


def _title(recipe: str, task: dict[str, Any]) -> str:
    first = next((ln.strip() for ln in str(task.get("summary", "")).splitlines() if ln.strip()), "")
    name = recipe if task.get("name") == recipe else f"{recipe} / {task.get('name')}"
    title = f"agentci {name}: {first}" if first else f"agentci {name}"
    return title if len(title) <= 120 else title[:119] + "…"


@main.command()
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False), required=True)
@click.option("--create-pr", type=bool, default=False)
@click.option("--comment", type=bool, default=False)
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), default=Path("."))
def deliver(out_dir: Path, create_pr: bool, comment: bool, workspace: Path) -> None:
    """Push the change to agentci/<recipe>-<task> and open or update its pull request
    (--create-pr), and post or update the sticky comment (--comment). The token comes from
    AGENTCI_GITHUB_TOKEN; outputs branch, pr-url and comment-url go to GITHUB_OUTPUT."""
    outputs = {"branch": [], "pr-url": [], "comment-url": []}  # type: dict[str, list[str]]
    try:
        _deliver(out_dir, create_pr, comment, workspace, outputs)
        code = 0
    except DeliveryError as err:
        _say("error", str(err))
        code = 1
    target = os.environ.get("GITHUB_OUTPUT")
    if target:
        delimiter = "agentci_" + secrets.token_hex(8)
        with open(target, "a", encoding="utf-8") as fh:
            for name, values in outputs.items():
                fh.write(f"{name}<<{delimiter}\n" + "".join(v + "\n" for v in values))
                fh.write(f"{delimiter}\n")
    sys.exit(code)


def _deliver(out_dir: Path, create_pr: bool, comment: bool, workspace: Path,
             outputs: dict[str, list[str]]) -> None:  # fmt: skip
    from agentci.delivery.comment import sticky_comment
    from agentci.delivery.gh import Gh
    from agentci.delivery.pull_request import branch_name, commit_patch, open_or_update, push_branch

    if not (create_pr or comment):
        return
    out_dir = workspace / out_dir  # --out is relative to the workspace (or absolute)
    try:
        result = json.loads((out_dir / "result.json").read_text(encoding="utf-8"))
        summary = (out_dir / "summary.md").read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError) as err:
        raise DeliveryError(f"agentci left no result in {out_dir}: {err}") from None
    if not isinstance(result, dict):
        raise DeliveryError(f"{out_dir / 'result.json'} is not agentci's result (not an object)")
    ctx = GitHubContext.from_environ()
    gh = Gh(os.environ.get("AGENTCI_GITHUB_TOKEN", ""), ctx.repository)
    recipe = str(result.get("recipe_name") or "recipe")
    raw_tasks = result.get("tasks")
    tasks = [t for t in raw_tasks if isinstance(t, dict)] if isinstance(raw_tasks, list) else []
    links: list[str] = []
    if create_pr:
        for task in tasks:
            patch = _patch_of(out_dir, str(task.get("name")), len(tasks))
            if task.get("status") != "success" or not patch.is_file() or not patch.stat().st_size:
                print(f"agentci delivery: {task.get('name')}: {task.get('status')}, no change to "
                      "propose")  # fmt: skip
                continue
            title = _title(recipe, task)
            branch = branch_name(recipe, str(task.get("name")))
            commit = commit_patch(workspace, patch, f"{title}\n\n{task.get('summary', '')}".strip())
            push_branch(workspace, ctx, gh, commit, branch)
            body = (f"{summary}\n\n---\nProposed by agentci on branch `{branch}`; a later run "
                    "replaces this branch and edits this pull request.\n")  # fmt: skip
            made = open_or_update(gh, ctx, branch, title, body)
            print(f"agentci delivery: {'opened' if made.created else 'updated'} {made.url}")
            outputs["branch"].append(branch)
            outputs["pr-url"].append(made.url)
            links.append(f"Pull request with the change: {made.url}")
    if comment:
        number = ctx.number
        if number is None:
            print(f"agentci delivery: {ctx.event_name or 'this'} event has no pull request or "
                  "issue to comment on")  # fmt: skip
            return
        body = summary + ("\n" + "\n".join(links) + "\n" if links else "")
        url = sticky_comment(gh, ctx, number, recipe, body)
        print(f"agentci delivery: comment {url}")
        outputs["comment-url"].append(url)


@main.command()
@click.option(
    "--out", "out_dir", required=True, help="The output folder, as the workflow named it."
)
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="The workspace (absolute): --out is relative to it.")  # fmt: skip
@click.option("--exit-code", "code", default="", help="agentci's exit code, if it ran.")
def outputs(out_dir: str, workspace: Path, code: str) -> None:
    """Write the Action's outputs to GITHUB_OUTPUT (and the sandbox warning to
    GITHUB_STEP_SUMMARY) from the run's output folder, read as data."""
    from agentci.delivery.outputs import collect, github_output, step_summary

    run = collect(workspace, out_dir, code)
    for var, text in (
        ("GITHUB_OUTPUT", github_output(run)),
        ("GITHUB_STEP_SUMMARY", step_summary(run)),
    ):
        target = os.environ.get(var)
        if target and text:
            with open(target, "a", encoding="utf-8") as fh:
                fh.write(text)


@main.command()
@click.option("--install", type=bool, default=True, help="apt-get install bubblewrap when missing.")
def sandbox(install: bool) -> None:
    """Make bubblewrap work before agentci runs: install it when missing (--install), allow its
    user namespaces where AppArmor restricts them (a profile for bwrap, else the sysctl), probe
    again, and say which was done. Writes problem and userns-fix to GITHUB_OUTPUT."""
    import shutil

    from agentci.delivery.sandbox_setup import describe, prepare_sandbox

    setup = prepare_sandbox(install)
    print(describe(setup, shutil.which("bwrap")))
    if setup.problem:
        _say(
            "warning",
            f"{setup.problem}. See docs/github-action.md (bubblewrap) in agentci.",
            "agentci sandbox",
        )
    target = os.environ.get("GITHUB_OUTPUT")
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            problem = setup.problem.replace("\n", " ")
            fh.write(f"problem={problem}\nuserns-fix={setup.fix}\n")


if __name__ == "__main__":
    main()
