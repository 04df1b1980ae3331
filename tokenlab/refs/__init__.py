"""Drill-down into refs: the lines, grep matches, JSON subtree, head or tail of a ref, within
a token budget. `show-ref`, the warm worker, `tokens serve` and `tokens mcp` all answer
through `expand.expand_ref` (or `expand_data` on bytes already loaded).

    expand.py      `RefQuery` and the budgeted view of a ref's bytes
    json_path.py   `items[737].error`-style paths into JSON, read without parsing it all
"""
