"""The recipe's ``tools`` section: MCP servers and command tools (docs/mcp.md, docs/tools.md).

```yaml
tools:
  mcp_servers:
    github:                       # its tools are named github__<tool>
      command: [github-mcp-server, stdio]
      env: {GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_MCP_TOKEN}"}
      network: true
      include: [get_issue, add_issue_comment]
  commands:
    - name: run_tests
      description: Run the tests of one file.
      parameters: {type: object, properties: {path: {type: string}}, required: [path]}
      command: "pytest -q {{ path }}"
```
"""

from __future__ import annotations

import re
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from agentci.recipe.fields import Seconds, Strict
from agentci.recipe.shell_template import template_problem

#: The built-in tools, in the registry's order (docs/tools.md; :mod:`agentci.tools.names`).
BUILTIN_TOOLS: tuple[str, ...] = (
    "read_file",
    "list_directory",
    "glob",
    "grep_search",
    "write_file",
    "replace",
    "run_shell_command",
)
#: The tool that hands in a structured answer (only with ``output`` in the recipe).
SUBMIT_TOOL = "submit_result"
#: Names of the built-in tools (docs/tools.md): a command tool cannot take one.
BUILT_IN_NAMES = frozenset((*BUILTIN_TOOLS, SUBMIT_TOOL))
#: An MCP server's name: a letter, then letters, digits, ``-`` or single ``_`` (``__`` separates
#: the server from its tool in ``NAME__tool``).
SERVER_NAME = re.compile(r"^[A-Za-z](?:[A-Za-z0-9-]|_(?!_))*(?<!_)$")
MAX_SERVER_NAME = 24
#: A command tool's name, as Gemini accepts function names.
COMMAND_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
#: ``${NAME}`` in an MCP server's ``env`` or ``headers`` value: agentci's environment variable.
ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def check_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` when it is a valid JSON Schema of an object (a tool's parameters)."""
    # deferred: jsonschema takes ~0.3 s to import; only a recipe's JSON Schemas need it
    import jsonschema

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as err:
        raise ValueError(f"not a valid JSON Schema: {err.message}") from None
    if schema.get("type", "object") != "object":
        raise ValueError("a tool's parameters are an object: the schema's type must be 'object'")
    return schema


class McpServer(Strict):
    """An MCP server whose tools the model may call, as ``NAME__tool`` (docs/mcp.md).

    A local server is a ``command`` (spoken to over stdio; started in the sandbox with the
    tools' clean environment plus ``env``); a remote one is a ``url`` (streamable HTTP, with
    ``headers``). ``${VAR}`` in an ``env`` or ``headers`` value is agentci's variable VAR.
    """

    command: list[str] | None = Field(
        default=None, min_length=1, description="The server's program and arguments (stdio)."
    )
    url: str | None = Field(default=None, description="A streamable HTTP server's endpoint.")
    headers: dict[str, str] = Field(
        default_factory=dict, description="HTTP headers (url); values may use ${VAR}."
    )
    env: dict[str, str] = Field(
        default_factory=dict,
        description="Environment of the server (command), over the tools' clean one; values "
        "may use ${VAR}.",
    )
    cwd: str | None = Field(
        default=None, description="Working directory (command), relative to the workspace."
    )
    timeout_seconds: Seconds = Field(
        default=60, description="Limit to start the server, and to each call."
    )
    include: list[str] | None = Field(
        default=None, description="Globs of the server's tool names to offer (default: all)."
    )
    exclude: list[str] = Field(
        default_factory=list, description="Globs of the server's tool names never offered."
    )
    trust: Literal["read_only"] | None = Field(
        default=None,
        description="read_only: the recipe author vouches that the tools only read; they run "
        "concurrently and are allowed in every mode, like read_file.",
    )
    network: bool | None = Field(
        default=None, description="Network for a local server (default: policy.network)."
    )
    host_sockets: bool | None = Field(
        default=None, description="Host Unix sockets for a local server (default: policy's)."
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str | None) -> str | None:
        if url is not None:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError("an MCP server's url is http:// or https:// with a host")
            if parts.username or parts.password:
                raise ValueError("put credentials in headers (with ${VAR}), not in the url")
        return url

    @model_validator(mode="after")
    def _one_kind(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError("an MCP server has either a command (stdio) or a url (HTTP)")
        if self.url is not None and (self.env or self.cwd is not None):
            raise ValueError("env and cwd are for a command; an HTTP server takes headers")
        if self.command is not None and self.headers:
            raise ValueError("headers are for a url; a command server takes env")
        return self


class CommandTool(Strict):
    """A recipe author's shell command offered to the model as a typed tool (docs/tools.md).

    ``command`` is a template: each ``{{ name }}`` is the argument, shell-quoted; every
    argument is also in the environment as ``ARG_<NAME>``.
    """

    name: str = Field(pattern=COMMAND_NAME.pattern, description="The tool's name.")
    description: str = Field(min_length=1, description="What the tool does, for the model.")
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON Schema of the arguments (an object).",
    )
    command: str = Field(min_length=1, description="bash command; {{ arg }} is shell-quoted.")
    timeout_seconds: Seconds | None = Field(
        default=None, description="Wall-clock limit (default: budget.tool_timeout_seconds)."
    )

    @field_validator("name")
    @classmethod
    def _not_built_in(cls, name: str) -> str:
        if name in BUILT_IN_NAMES:
            raise ValueError(f"{name!r} is a built-in tool's name")
        if "__" in name:
            raise ValueError(
                "'__' separates an MCP server from its tool; a command tool's name has none"
            )
        return name

    @field_validator("parameters")
    @classmethod
    def _schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return check_json_schema(schema)

    @field_validator("command")
    @classmethod
    def _template(cls, command: str) -> str:
        problem = template_problem(command)
        if problem is not None:
            raise ValueError(problem)
        return command


class Tools(Strict):
    """Tools beyond the built-in ones: MCP servers' and the recipe's own commands."""

    mcp_servers: dict[str, McpServer] = Field(
        default_factory=dict, description="MCP servers by name; tools are named NAME__tool."
    )
    commands: list[CommandTool] = Field(
        default_factory=list, description="Shell commands offered as typed tools."
    )

    @field_validator("mcp_servers")
    @classmethod
    def _server_names(cls, servers: dict[str, McpServer]) -> dict[str, McpServer]:
        for name in servers:
            if not SERVER_NAME.match(name) or len(name) > MAX_SERVER_NAME:
                raise ValueError(
                    f"MCP server name {name!r}: a letter, then letters, digits, '-' or single "
                    f"'_', at most {MAX_SERVER_NAME} characters"
                )
        return servers

    @field_validator("commands")
    @classmethod
    def _unique(cls, commands: list[CommandTool]) -> list[CommandTool]:
        names = [c.name for c in commands]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"command tool names must be unique: {', '.join(dupes)}")
        return commands
