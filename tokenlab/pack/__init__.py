"""The context packer: the best views of many files within one token budget.

`pack(PackRequest(paths, query, budget_tokens), cache_dir)` returns a `PackResult`: one
document that never exceeds the budget, the view chosen per file with evidence pointers,
and what was left out and why. See `packer` for the run order.
"""

from tokenlab.pack.packer import DEFAULT_BUDGET, PackRequest, pack
from tokenlab.pack.render import PackResult

__all__ = ["DEFAULT_BUDGET", "PackRequest", "PackResult", "pack"]
