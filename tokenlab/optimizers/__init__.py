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
rest is planned and the text is built. `stream()` gives the same parts as they are built,
for the pipeline to write them out one by one: a large diff keeps most of its lines, and
its parts held together were as large as the text.

Optimizers come in families, one per content type, each in a folder of its own
(`optimizers/<folder>/`): its `__init__.py` holds the family's cheap detector, and its
`optimizer.py` the optimizer. `FAMILIES` below is the one registry: one row per family,
in the order `classify` asks their detectors. The line machinery every family shares is in
`lines/`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from importlib import import_module
from types import ModuleType

from tokenlab.counting.runs import InputSlices, Runs

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import Protocol


class ContentType(str, Enum):
    """What an input is: one member per family in `FAMILIES`; the value is `--json`'s `type`."""

    LOG = "log"
    JSON = "json"
    DIFF = "diff"
    GIT_LOG = "gitlog"
    GIT_STATUS = "gitstatus"
    FILELIST = "filelist"
    TEXT = "text"
    BINARY = "binary"
    XML = "xml"
    YAML = "yaml"
    TABLE = "table"
    DEPENDENCY_TREE = "deptree"
    SEARCH_RESULTS = "search"
    DISASSEMBLY = "disassembly"
    CALL_TRACE = "calltrace"


class Granularity(str, Enum):
    COARSE = "coarse"
    FINE = "fine"


@dataclass(frozen=True)
class OptimizerConfig:
    granularity: Granularity = Granularity.COARSE


Span = tuple[int, int]  # [start, end) of the input bytes


@dataclass(frozen=True)
class Omission:
    """Exact original bytes left out of the visible text, and why.

    `content` is the bytes, or the input ranges that hold them (`InputSlices`): an omission
    that is most of a large input is stored and counted from the input, never copied.
    """

    content: bytes | InputSlices
    reason: str
    # Input ranges whose bytes, joined, are `data`, if known (an `InputSlices`' own `spans`).
    source: Sequence[Span] = ()

    @property
    def data(self) -> bytes:
        """The omitted bytes themselves (joined, when held as input ranges)."""
        return self.content if isinstance(self.content, bytes) else bytes(self.content)


@dataclass(frozen=True, slots=True)
class Excerpt:
    """Visible text, and the runs of input bytes it shows unchanged.

    Held as UTF-8 bytes: a diff's excerpts are most of its visible text, which as `str`
    would take two bytes a character once a `…` fold line is in it.
    """

    data: bytes  # the text, UTF-8
    runs: Runs  # (offset in its UTF-8 bytes, offset in the input, length): equal bytes

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")


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


def whole(data: bytes) -> bytes | InputSlices:
    """The whole input as an omission's content: a mapped input (`tokenlab/mapped.py`) is
    stored and counted from its pages, never copied."""
    return data if isinstance(data, bytes) else InputSlices(data, ((0, len(data)),))


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


@dataclass(frozen=True)
class PartStream:
    """An optimizer's parts, built as they are read, in reading order."""

    parts: Iterator[Part]
    omits: bool  # whether any of the parts is an `Omission` (known before they are built)


Optimizer = Callable[[bytes, OptimizerConfig], OptimizeResult]


if TYPE_CHECKING:  # the contract a planner's result keeps, for the type checker

    class Plan(Protocol):
        """A mapping optimizer's decisions, made before any text is built."""

        def input_cuts(self) -> Iterator[list[int]]: ...

        def render(self) -> OptimizeResult: ...

        def stream(self) -> PartStream: ...

    Planner = Callable[[bytes, OptimizerConfig], Plan]

# A family's detector: `detect(data, sample)`, where `sample` is the input's first 64 KB.
# It answers why it recognises the input, or None. It is cheap and total (any bytes, no
# exception), and imports its family's modules only once the cheap checks have passed.
Detector = Callable[[bytes, bytes], str | None]


@dataclass(frozen=True)
class Family:
    """One content type's optimizers, in `optimizers/<folder>/`: `detect` in its
    `__init__.py`, `optimize` (and `plan`, when it `maps_input`) in its `optimizer.py`."""

    content_type: ContentType
    folder: str
    # The optimizer maps its output to input ranges, planning before it renders (see above).
    maps_input: bool = False
    # The optimizer reads a large input as a mapping of its file (`tokenlab/mapped.py`);
    # other optimizers are given a copy of its bytes.
    reads_mapped: bool = False

    @property
    def package(self) -> str:
        return f"{__name__}.{self.folder}"


# The registry: one row per family, in the order `classify` asks their detectors (the first
# that recognises the input wins). Text recognises anything, so it comes last. A new content
# type is a member of `ContentType`, a folder and a row here.
FAMILIES: tuple[Family, ...] = (
    Family(ContentType.BINARY, "binary"),
    Family(ContentType.JSON, "json_doc"),
    Family(ContentType.XML, "xml_report"),
    Family(ContentType.DISASSEMBLY, "disassembly"),
    Family(ContentType.GIT_LOG, "git_log"),
    Family(ContentType.GIT_STATUS, "git_status"),
    Family(ContentType.DIFF, "diff", maps_input=True, reads_mapped=True),
    Family(ContentType.SEARCH_RESULTS, "search_results"),
    Family(ContentType.DEPENDENCY_TREE, "dependency_tree"),
    Family(ContentType.CALL_TRACE, "call_trace"),
    Family(ContentType.TABLE, "table"),
    Family(ContentType.FILELIST, "file_list", reads_mapped=True),
    Family(ContentType.YAML, "yaml_doc"),
    Family(ContentType.LOG, "log", reads_mapped=True),
    Family(ContentType.TEXT, "text", reads_mapped=True),
)
_FAMILY = {family.content_type: family for family in FAMILIES}

# Types whose optimizer maps its output to input ranges, planning before it renders.
MAPS_INPUT: frozenset[ContentType] = frozenset(family.content_type for family in FAMILIES if family.maps_input)
READS_MAPPED: frozenset[ContentType] = frozenset(family.content_type for family in FAMILIES if family.reads_mapped)


@cache
def _module(name: str) -> ModuleType:
    return import_module(name)


def detector_for(family: Family) -> Detector:
    detect: Detector = _module(family.package).detect
    return detect


def optimizer_for(content_type: ContentType) -> Optimizer:
    optimize: Optimizer = _module(_FAMILY[content_type].package + ".optimizer").optimize
    return optimize


def planner_for(content_type: ContentType) -> Planner:
    """The `plan` function of a type in `MAPS_INPUT`."""
    planner: Planner = _module(_FAMILY[content_type].package + ".optimizer").plan
    return planner


def visible(data: bytes) -> str:
    """Decode bytes for the visible text; undecodable bytes become U+FFFD, never an error."""
    return data.decode("utf-8", errors="replace")
