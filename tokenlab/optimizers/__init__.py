"""Optimizer contract and registry.

An optimizer is a pure function `optimize(data, config) -> OptimizeResult`: it turns the
raw bytes of one content type into visible text. Whatever it leaves out is returned as an
`Omission` holding the exact original bytes; the Optimize stage stores each omission and
renders it as a `#ref:ctx_…` marker where the optimizer placed it. Optimizers never open
files, never touch the store and never count tokens.

An optimizer may also say where its output comes from: an `Excerpt` names the runs of
input bytes its text shows unchanged, and an omission's `source` lists the input ranges
it is made of. Counting then reuses the raw input's count for those runs instead of
tokenizing them again (see `counting/`). The types in `MAPS_INPUT` do this, and their
modules split the work in two: `plan(data, config)` decides what leaves the visible text
and yields the input offsets where it does, in batches as it goes (`input_cuts()`), then
`render()` builds the parts, so that the raw count runs, cut at those offsets, while the
rest is planned and the text is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from importlib import import_module
from typing import Protocol

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


# (offset in the UTF-8 bytes of a text, offset in the input, length): equal bytes
Run = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Excerpt:
    """Visible text, and the runs of input bytes it shows unchanged."""

    text: str
    runs: tuple[Run, ...]


Part = str | Excerpt | Omission


@dataclass(frozen=True)
class OptimizeResult:
    """Visible text as a sequence of literal strings and omissions, in reading order."""

    parts: tuple[Part, ...]
    # Lines of the input a person reads first (failures, summaries), found by this type's
    # rules: the SIGNAL stage checks that the visible text shows each of them.
    signals: tuple[str, ...] = ()

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


class Plan(Protocol):
    """A mapping optimizer's decisions, made before any text is built."""

    def input_cuts(self) -> Iterator[list[int]]: ...

    def render(self) -> OptimizeResult: ...


Planner = Callable[[bytes, OptimizerConfig], Plan]

# One line per content type: adding a type means adding one module and one line here.
_REGISTRY: dict[ContentType, str] = {
    ContentType.LOG: "tokenlab.optimizers.log.optimizer",
    ContentType.JSON: "tokenlab.optimizers.json_doc.optimizer",
    ContentType.DIFF: "tokenlab.optimizers.diff.optimizer",
    ContentType.GIT_LOG: "tokenlab.optimizers.git_log.optimizer",
    ContentType.GIT_STATUS: "tokenlab.optimizers.git_status.optimizer",
    ContentType.FILELIST: "tokenlab.optimizers.file_list.optimizer",
    ContentType.TEXT: "tokenlab.optimizers.text.optimizer",
    ContentType.BINARY: "tokenlab.optimizers.binary.optimizer",
    ContentType.XML: "tokenlab.optimizers.xml_report.optimizer",
    ContentType.YAML: "tokenlab.optimizers.yaml_doc.optimizer",
    ContentType.TABLE: "tokenlab.optimizers.table.optimizer",
    ContentType.DEPENDENCY_TREE: "tokenlab.optimizers.dependency_tree.optimizer",
}


# Types whose optimizer maps its output to input ranges, planning before it renders.
MAPS_INPUT: frozenset[ContentType] = frozenset({ContentType.DIFF})


def optimizer_for(content_type: ContentType) -> Optimizer:
    module = import_module(_REGISTRY[content_type])
    optimize: Optimizer = module.optimize
    return optimize


def planner_for(content_type: ContentType) -> Planner:
    """The `plan` function of a type in `MAPS_INPUT`."""
    module = import_module(_REGISTRY[content_type])
    planner: Planner = module.plan
    return planner


def visible(data: bytes) -> str:
    """Decode bytes for the visible text; undecodable bytes become U+FFFD, never an error."""
    return data.decode("utf-8", errors="replace")
