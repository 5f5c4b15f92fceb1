"""MCP servers' tools for the model (``tools.mcp_servers``, docs/mcp.md).

:mod:`~agentci.tools.mcp.servers` starts a task's servers and stops them on every exit;
:mod:`~agentci.tools.mcp.launch` is how a local server is started (supervisor, sandbox, clean
environment); :mod:`~agentci.tools.mcp.connection` talks to one server through the official
``mcp`` SDK; :mod:`~agentci.tools.mcp.tool` turns a server's tool into one of the task's tools.
"""
