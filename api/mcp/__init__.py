"""MCP server for agents: story graph reads and the docs/rules/concerns.md concern tools."""
