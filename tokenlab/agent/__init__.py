"""What plugs tokenlab into agents: run, hooks, ledger, drill-down, MCP, and the warm worker."""
