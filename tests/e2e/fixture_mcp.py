"""A one-tool MCP server (stdio) for the end-to-end tests: `service_log` returns a large log.

It stands for any third-party MCP tool with a large text result. Run by the agent CLI as
`python fixture_mcp.py`; its output is fixed, with one error in the middle.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

ERROR_LINE = "ERROR replica db-2 fell 93 s behind primary; reads paused"


def service_log() -> str:
    """About 24,000 characters of service log, under Claude Code's 30,000-character cap."""
    lines = [
        f"12:{i // 60 % 60:02d}:{i % 60:02d} INFO replica db-2 in sync, lag {i % 7} ms" for i in range(500)
    ]
    lines.insert(250, f"12:04:10 {ERROR_LINE}")
    return "\n".join(lines) + "\n"


server: MCPServer[object] = MCPServer("fixture")
server.add_tool(service_log, name="service_log", description="The replication service's log.")

if __name__ == "__main__":
    server.run()
