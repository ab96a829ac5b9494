"""MCP server for agents: story graph reads and the seed 002 §九 concern tools."""
