"""A stand-in for ``github-mcp-server`` (the docs' example), built with the SDK's MCPServer:
the same tool names and arguments, answers made up, no network. Started as the docs start the
real one (``github-mcp-server stdio --toolsets issues``, the token in
``GITHUB_PERSONAL_ACCESS_TOKEN``); anything else exits with an error, as the real one would."""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("github-stub", log_level="WARNING")


@app.tool()
def issue_read(method: str, owner: str, repo: str, issue_number: int) -> str:
    """Get information about a specific issue in a GitHub repository."""
    return f"{owner}/{repo}#{issue_number} ({method}): The tests fail on main"


@app.tool()
def add_issue_comment(owner: str, repo: str, issue_number: int, body: str) -> str:
    """Add a comment to a specific issue in a GitHub repository."""
    return f"commented on {owner}/{repo}#{issue_number}: {body}"


@app.tool()
def issue_write(method: str, owner: str, repo: str, title: str = "") -> str:
    """Create or update an issue (the docs' recipe does not offer it)."""
    return "written"


if __name__ == "__main__":
    if sys.argv[1:] != ["stdio", "--toolsets", "issues"]:
        sys.exit(f"github-mcp-server stub: unexpected arguments {sys.argv[1:]}")
    if not os.environ.get("GITHUB_PERSONAL_ACCESS_TOKEN"):
        sys.exit("GITHUB_PERSONAL_ACCESS_TOKEN not set")
    app.run()
