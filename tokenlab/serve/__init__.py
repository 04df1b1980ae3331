"""The long-running interfaces: `tokens serve` (HTTP), `tokens mcp` (MCP) and `tokens proxy`.

    http.py      the FastAPI app: routes, request bodies, documented refusals
    mcp.py       the MCP server: tools, refs as resources, its streamable HTTP app
    shapes.py    the response models, one per object (`--json`, OpenAPI, MCP output schemas)
    guard.py     what every request passes first: token, Host, body size; the work slots
    confine.py   every path a client names, kept under the served root
    proxy.py     `tokens proxy`: a model base URL (standard library only)

Both servers answer with the objects the CLI prints with `--json`. FastAPI and the MCP SDK
are optional extras, imported only by the module that needs them; this package's
`__init__` imports nothing.
"""

# Host names a server bound to loopback answers to; anything else may be a DNS rebinding.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
