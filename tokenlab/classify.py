"""Deterministic content classification, on bytes, with no model.

`classify` asks each optimizer family's detector in the registry's order
(`optimizers.FAMILIES`); the first that recognises the input wins and says why. Plain
text is the last family and recognises anything. Every detector is total: any bytes
(invalid UTF-8, NUL bytes, a 5 MB single line) classify without raising.
"""

from __future__ import annotations

from dataclasses import dataclass

from tokenlab.optimizers import FAMILIES, ContentType, detector_for

SAMPLE_BYTES = 64 * 1024


@dataclass(frozen=True)
class Classification:
    content_type: ContentType
    reason: str


def classify(data: bytes) -> Classification:
    # Every detector but the last (text's, which recognises anything) declines an empty
    # input, which is what a silent command prints. Asking them would import every family
    # first: about 0.2 s of a cold `tokens run` of such a command.
    families = FAMILIES[-1:] if not data else FAMILIES
    sample = data[:SAMPLE_BYTES]
    for family in families:
        reason = detector_for(family)(data, sample)
        if reason is not None:
            return Classification(family.content_type, reason)
    raise LookupError("no optimizer family recognised the input (the text family recognises any)")
