"""Optimizer contract and registry.

An optimizer is a pure function `optimize(data, config) -> OptimizeResult`: it turns the
raw bytes of one content type into visible text. Whatever it leaves out is returned as an
`Omission` holding the exact original bytes; the Optimize stage stores each omission and
renders it as a `#ref:ctx_…` marker where the optimizer placed it. Optimizers never open
files, never touch the store and never count tokens.

An optimizer may also say where its output comes from: `Excerpt` parts show input ranges
as they are, and an omission's `source` lists the input ranges it is made of. Counting
then reuses the raw input's count for those ranges instead of tokenizing them again (see
`token_index`); `MAPS_INPUT` names the types whose optimizers do this.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from importlib import import_module

from tokenlab.packet import ContentType


class Granularity(str, Enum):
    COARSE = "coarse"
    FINE = "fine"


@dataclass(frozen=True)
class OptimizerConfig:
    granularity: Granularity = Granularity.COARSE


Span = tuple[int, int]  # [start, end) of the input bytes


@dataclass(frozen=True)
class Omission:
    """Exact original bytes left out of the visible text, and why."""

    data: bytes
    reason: str
    source: tuple[Span, ...] = ()  # input ranges whose bytes, joined, are `data`, if known


@dataclass(frozen=True, slots=True)
class Excerpt:
    """Input bytes shown as they are: `text` is `visible(data[start:end])`."""

    text: str
    start: int
    end: int


Part = str | Excerpt | Omission


@dataclass(frozen=True)
class OptimizeResult:
    """Visible text as a sequence of literal strings and omissions, in reading order."""

    parts: tuple[Part, ...]

    @property
    def omissions(self) -> Iterator[Omission]:
        return (part for part in self.parts if isinstance(part, Omission))


def join_literals(parts: list[Part]) -> list[Part]:
    """Neighbouring strings joined, empty ones dropped: a few long literal parts."""
    joined: list[Part] = []
    pending: list[str] = []
    for part in parts:
        if isinstance(part, str):
            pending.append(part)
            continue
        if pending:
            joined.append("".join(pending))
            pending = []
        joined.append(part)
    if pending:
        joined.append("".join(pending))
    return [part for part in joined if part != ""]


Optimizer = Callable[[bytes, OptimizerConfig], OptimizeResult]

# One line per content type: adding a type means adding one module and one line here.
_REGISTRY: dict[ContentType, str] = {
    ContentType.LOG: "tokenlab.optimizers.log",
    ContentType.JSON: "tokenlab.optimizers.json_doc",
    ContentType.DIFF: "tokenlab.optimizers.diff",
    ContentType.FILELIST: "tokenlab.optimizers.file_list",
    ContentType.TEXT: "tokenlab.optimizers.text",
    ContentType.BINARY: "tokenlab.optimizers.binary",
}


# Types whose optimizer marks the input ranges it shows and omits. The raw count for these
# waits for the optimizer, so that it can be cut where those ranges begin and end.
MAPS_INPUT: frozenset[ContentType] = frozenset({ContentType.DIFF})


def optimizer_for(content_type: ContentType) -> Optimizer:
    module = import_module(_REGISTRY[content_type])
    optimize: Optimizer = module.optimize
    return optimize


def visible(data: bytes) -> str:
    """Decode bytes for the visible text; undecodable bytes become U+FFFD, never an error."""
    return data.decode("utf-8", errors="replace")
