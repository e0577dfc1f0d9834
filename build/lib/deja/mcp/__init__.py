"""`deja mcp`: Deja's read-only recall tools for Continue's agent, over MCP on stdio."""
