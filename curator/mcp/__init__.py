"""The seat's MCP server: the memory tool's six commands and the curator's levers, for the agent
that bears the seat. ``server`` builds it on the official ``mcp`` SDK; ``memory_tool`` and
``lever_tools`` hold the tools; ``seat`` is the one way they write (the seat store, the cap);
``report`` says what a write did to the index."""
