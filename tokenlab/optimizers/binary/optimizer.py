"""Binary input: never decoded into the visible text; one line names it and refs the bytes."""

from __future__ import annotations

import hashlib

from tokenlab.optimizers import Omission, OptimizerConfig, OptimizeResult


def optimize(data: bytes, config: OptimizerConfig) -> OptimizeResult:
    digest = hashlib.sha256(data).hexdigest()
    return OptimizeResult(
        (
            f"[binary: {len(data):,} bytes, sha256 {digest}] ",
            Omission(data, f"binary content, {len(data)} bytes"),
            "\n",
        )
    )
