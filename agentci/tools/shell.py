"""``run_shell_command``: one bash command in the workspace (docs/tools.md).

The command runs in its own process group (in the bubblewrap sandbox when the task has
one), with stdin from /dev/null, the allowlisted environment, a wall timeout and capped
output. A command made only of built-in read-only commands runs at the same time as the
turn's other reads (:mod:`agentci.policy.concurrent`). A non-zero exit is a successful tool
result that shows the exit code; only a timeout or a failure to start is a tool error. The
result is the exit code and the output, without the command and its folder: the call just
above it in the history holds them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentci.childproc import ProcessResult
from agentci.errors import ToolFailure
from agentci.policy.access import Access
from agentci.policy.concurrent import only_reads
from agentci.policy.paths import resolve
from agentci.policy.rules import PolicyEngine
from agentci.process import run_process
from agentci.tools.base import Tool, ToolContext, ToolKind, ToolResult


class RunShellCommand(Tool):
    """Run a shell command."""

    name = "run_shell_command"
    kind = ToolKind.execute
    description = (
        "Run a bash command in the workspace and return its exit code and output (stdout "
        "and stderr merged, long output cut in the middle). No input is available; "
        "interactive programs get end-of-file. Background processes are killed when the "
        "command ends."
    )

    class Args(BaseModel):
        model_config = ConfigDict(extra="forbid")

        command: str = Field(description="The bash command to run.")
        description: str | None = Field(
            default=None, description="A short note on what the command is for."
        )
        dir_path: str | None = Field(
            default=None, description="Directory to run in, relative to the workspace root."
        )
        timeout_seconds: float | None = Field(
            default=None, gt=0, description="Wall-clock limit; the task's limit still applies."
        )

    def accesses(self, args: Args) -> list[Access]:  # type: ignore[override]
        return [Access("exec", args.dir_path or ".", command=args.command)]

    def only_reads(self, args: Args, policy: PolicyEngine) -> bool:  # type: ignore[override]
        """A command made only of built-in read-only commands runs alongside the turn's reads."""
        return only_reads(
            args.command, args.dir_path, workspace=policy.workspace, search_path=policy.search_path
        )

    async def run(self, args: Args, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        cwd = resolve(ctx.workspace, args.dir_path or ".")
        if not cwd.real.is_dir():
            raise ToolFailure(f"{args.dir_path} is not a directory")
        timeout = ctx.timeout_seconds
        if args.timeout_seconds:
            timeout = min(timeout, args.timeout_seconds)
        try:
            res = await run_process(
                args.command,
                cwd=cwd.real,
                env=ctx.env,
                timeout=timeout,
                output_cap=ctx.outputs.keep_bytes if ctx.outputs else ctx.output_cap_chars,
                sandbox=ctx.sandbox,
            )
        except OSError as exc:
            raise ToolFailure(f"could not start the command: {exc}") from None
        # the call above the result holds the command and its folder: not repeated here
        return command_result("", res, timeout)


def command_result(head: str, res: ProcessResult, timeout: float) -> ToolResult:
    """What the model reads of a finished command: ``head``, the exit code and the output; a
    timeout or too much output is a tool error (the output so far is kept)."""
    if res.timed_out:
        return ToolResult(
            output=head + f"Output:\n{res.output}",
            error=f"the command timed out after {timeout:g}s and was killed",
        )
    if res.output_limited:
        return ToolResult(
            output=head + f"Output:\n{res.output}",
            error="the command printed too much output and was killed",
        )
    body = head + f"Exit code: {res.exit_code}\nOutput:\n{res.output or '(no output)'}"
    return ToolResult(output=body, exit_code=res.exit_code)
