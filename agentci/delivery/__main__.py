"""``python -m agentci.delivery check|deliver``: the Action's steps around ``agentci run``."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import Any

import click

from agentci import jsontext
from agentci.delivery.comment import sticky_comment
from agentci.delivery.context import DeliveryError, GitHubContext, untrusted_checkout
from agentci.delivery.gh import Gh
from agentci.delivery.out_folder import UnsafeOutFolder, out_folder, wrote_outputs
from agentci.delivery.outputs import MAX_JSON, collect, github_output, step_summary
from agentci.delivery.process import GIT_TIMEOUT, delivery_env, run_bounded, timeout_for
from agentci.delivery.pull_request import (
    branch_name,
    commit_patch,
    open_or_update,
    patch_directory,
    push_branch,
    scratch_repository,
)
from agentci.delivery.sandbox_setup import describe, prepare_sandbox
from agentci.events.annotations import escape_data
from agentci.events.workflow_commands import neutralise_workflow_commands
from agentci.gitenv import git_argv, git_env
from agentci.hostprog import add_workspace, host_program
from agentci.reports.folders import task_dir_name


def _say(kind: str, text: str, title: str = "agentci delivery") -> None:
    print(f"::{kind} title={title}::{escape_data(neutralise_workflow_commands(text))}")


def _head(workspace: Path) -> str:
    env = git_env(
        {"GIT_DIR": str(workspace / ".git")}, base=delivery_env(), repo=workspace / ".git"
    )
    try:
        done = run_bounded(git_argv(["rev-parse", "HEAD"]), cwd=workspace,
                           env=env, timeout=timeout_for(GIT_TIMEOUT), what="git rev-parse")  # fmt: skip
    except DeliveryError:
        return ""
    return done.stdout.decode(errors="replace").strip() if done.returncode == 0 else ""


@click.group()
def main() -> None:
    """The GitHub Action's delivery steps (docs/github-action.md)."""
    if os.environ.get("GITHUB_WORKSPACE"):  # the job's checkout: no program run from there
        add_workspace(os.environ["GITHUB_WORKSPACE"])


@main.command()
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), default=Path("."))
def check(workspace: Path) -> None:
    """Refuse to go on where running the recipe would be unsafe (pull_request_target with the
    pull request's code checked out)."""
    add_workspace(workspace)
    try:
        why = untrusted_checkout(GitHubContext.from_environ(), _head(workspace))
    except DeliveryError as err:
        why = str(err) if os.environ.get("GITHUB_EVENT_NAME") == "pull_request_target" else None
    if why:
        _say("error", why)
        sys.exit(1)


def _patch_of(task: str, tasks: int) -> str:
    return "patch.diff" if tasks <= 1 else f"tasks/{task_dir_name(task)}/patch.diff"


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
@click.option(
    "--exit-code", "ran", required=True, help="agentci's exit code ('' if it did not run)."
)
def deliver(out_dir: Path, create_pr: bool, comment: bool, workspace: Path, ran: str) -> None:
    """Push the change to agentci/<recipe>-<task> and open or update its pull request
    (--create-pr), and post or update the sticky comment (--comment). The token comes from
    AGENTCI_GITHUB_TOKEN; outputs branch, pr-url and comment-url go to GITHUB_OUTPUT.

    Only outputs agentci wrote are delivered: nothing when its exit code says it did not write
    them (invalid_input, internal_error, did not run), and an error when the output folder is a
    symbolic link, passes through one or lacks agentci's marker; its files are read without
    following a link (agentci.delivery.out_folder)."""
    add_workspace(workspace)
    outputs = {"branch": [], "pr-url": [], "comment-url": []}  # type: dict[str, list[str]]
    try:
        _deliver(str(out_dir), create_pr, comment, workspace, ran, outputs)
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


PATCH_LIMIT = 256 * 1024 * 1024  # patch.diff (binary changes included)
SUMMARY_BYTES = 4 * 1024 * 1024  # summary.md: a comment or a pull request's body is cut far below


def _deliver(out: str, create_pr: bool, comment: bool, workspace: Path, code: str,
             outputs: dict[str, list[str]]) -> None:  # fmt: skip
    if not (create_pr or comment):
        return
    if not wrote_outputs(code):
        print(f"agentci delivery: agentci exited with {code or 'no code (it did not run)'} and "
              "wrote no outputs; nothing to deliver")  # fmt: skip
        return
    try:
        folder = out_folder(workspace, out)  # --out is relative to the workspace (or absolute)
    except UnsafeOutFolder as err:
        raise DeliveryError(f"not delivering: {err}") from None
    raw_result = folder.read("result.json", MAX_JSON)
    raw_summary = folder.read("summary.md", SUMMARY_BYTES, cut=True)
    if raw_result is None or raw_summary is None:
        raise DeliveryError(f"agentci left no result in {out} (result.json and summary.md, "
                            "regular files)")  # fmt: skip
    try:
        result = jsontext.loads(raw_result)
    except jsontext.NotJson as err:
        raise DeliveryError(f"{out}/result.json is not agentci's result: {err}") from None
    summary = raw_summary[:SUMMARY_BYTES].decode("utf-8", errors="replace")
    if not isinstance(result, dict):
        raise DeliveryError(f"{out}/result.json is not agentci's result (not an object)")
    ctx = GitHubContext.from_environ()
    gh = Gh(os.environ.get("AGENTCI_GITHUB_TOKEN", ""), ctx.repository)
    recipe = str(result.get("recipe_name") or "recipe")
    raw_tasks = result.get("tasks")
    tasks = [t for t in raw_tasks if isinstance(t, dict)] if isinstance(raw_tasks, list) else []
    links: list[str] = []
    if create_pr:
        for task in tasks:
            patch = folder.read(_patch_of(str(task.get("name")), len(tasks)), PATCH_LIMIT)
            if task.get("status") != "success" or not patch:
                print(f"agentci delivery: {task.get('name')}: {task.get('status')}, no change to "
                      "propose")  # fmt: skip
                continue
            title = _title(recipe, task)
            branch = branch_name(recipe, str(task.get("name")))
            message = f"{title}\n\n{task.get('summary', '')}".strip()
            facts = (
                task.get("extra", {}).get("patch") if isinstance(task.get("extra"), dict) else None
            )
            directory = patch_directory(facts.get("directory") if isinstance(facts, dict) else "")
            with scratch_repository(workspace) as scratch:
                commit = commit_patch(scratch, patch, message, directory)
                push_branch(scratch, ctx, gh, commit, branch)
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
    GITHUB_STEP_SUMMARY) from the run's output folder, read as data. out-dir-ok is false (and
    nothing is read) when the folder is a link, passes through one or lacks agentci's marker."""
    add_workspace(workspace)
    run = collect(workspace, out_dir, code)
    if run.unsafe:
        _say("warning", f"the outputs are not read and not uploaded: {run.unsafe}")
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
    setup = prepare_sandbox(install)
    print(describe(setup, host_program("bwrap")))
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
