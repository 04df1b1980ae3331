"""What one analysis run is given: the store, the token counter, the optimizer's settings.

Every stage of `pipeline.py` takes it beside the packet, and so does the visible text's
writer (`visible_writer.py`); it lives here so that both import it downward.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tokenlab.counting.counter import TokenCounter
from tokenlab.optimizers import OptimizerConfig
from tokenlab.store import Store


@dataclass(frozen=True)
class RunSettings:
    store: Store
    counter: TokenCounter = field(compare=False, repr=False)  # owned by `analyze`
    optimizer: OptimizerConfig = field(default_factory=OptimizerConfig)
    redact_secrets: bool = True

