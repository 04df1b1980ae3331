"""The log optimizer's model: its tunables, the input's lines and templates, the groups
of folded lines and the plan of what each line becomes. Planning (`log.py`) fills it in;
rendering (`log_render.py`) turns it into visible text and omissions.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from itertools import repeat
from operator import sub
from typing import overload

from tokenlab.mapped import FAULT_AROUND, holds, let_go
from tokenlab.optimizers import visible
from tokenlab.optimizers.lines.shapes import VaryingSlots
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class LogLimits:
    """Tunables of the log optimizer; the defaults suit agents reading tool output."""

    context_before: int = 1
    context_after: int = 1
    # An anomaly (or traceback) seen this many times verbatim folds its further repeats.
    verbatim_repeats: int = 3
    # A diagnostic (`file:line:col: severity message`) shows one example in full, code
    # frame included; its further repeats are listed by location and what else varies.
    diagnostic_repeats: int = 1
    # Lines of a diagnostic shown in full (header, pointer, frame); its further notes fold.
    diagnostic_lines: int = 8
    # Indented lines following an anomaly (compiler excerpts, stack frames) kept with it,
    # and the most lines of its code frame.
    continuation_lines: int = 6
    frame_lines: int = 24
    # A diagnostic's notes at other locations (candidates, macro expansions) belong to it,
    # up to this many lines.
    note_lines: int = 200
    traceback_lines: int = 400
    # Lines after a traceback's exception line that continue its message (diffs, notes).
    exception_message_lines: int = 20
    # Lines of one template fold once there are this many of them.
    min_group: int = 3
    # Runs of distinct unremarkable lines longer than this keep only head and tail.
    distinct_run: int = 10
    run_head: int = 3
    run_tail: int = 3
    # A dump's header (its first lines up to a blank one, and those of each later record
    # led by the first line's word: `Classfile …`) stays, up to this many lines a record;
    # the word must lead at most one line in `record_start_rarity`.
    header_lines: int = 12
    record_start_rarity: int = 50
    # Visible bytes of one line; the rest of a longer line is behind a ref.
    line_bytes: int = 1000
    # A line listing at least this many `key=value` settings (a tool's configuration, as a
    # session header prints it) shows its first `settings_shown`; the rest is behind a ref.
    settings_listed: int = 8
    settings_shown: int = 2
    preview_chars: int = 80
    # Below this size folding cannot pay for its labels: only exact repeats fold.
    small_input_bytes: int = 1024
    # Consecutive frames in library code fold from this many on (`log_library`).
    library_frames: int = 2
    # A summary shape seen up to this many times stays visible each time; more often it
    # is progress, and its last line stays visible.
    summary_lines: int = 5
    # The closing region (the last lines after the last separator rule, searched this far
    # from the end) stays visible; without a rule, the last `closing_lines_default` lines.
    closing_search: int = 20
    closing_lines_default: int = 3
    # A folded group of up to this many lines shows every varying value inline; a larger
    # one shows this many (failures show all of theirs, up to `failure_values`).
    inline_values: int = 6
    failure_values: int = 1000
    # A warning's locations are all listed up to this many; beyond, `inline_values` of them.
    warning_locations: int = 8
    # A warning seen more often lists this many of its locations and values, and a count.
    warning_sample: int = 3
    # Lone paths (the files a tool names as it goes) listed in a group line.
    paths_listed: int = 200
    # How far above an indented `line:col` entry its file's heading is looked for.
    heading_search: int = 2000
    # Lines of a failure section's assertion detail (`Expected:`, diff lines) kept
    # verbatim; a longer diff folds its rest.
    detail_lines: int = 40
    # Of the comment lines directly under a failure's heading (its diagnostics), the first
    # this many are assertion detail (`#   at t/x.t line 4.`, `#   got: 1`, `#   expected:
    # 2`); the later ones only when they read as detail through the comment lead.
    heading_comment_lines: int = 4
    # With more failure sections than this, those after the first `verbatim_repeats`
    # show only their heading, assertion detail and failure lines.
    sections_in_full: int = 6


DEFAULT_LIMITS = LogLimits()


# Control bytes other than tab are shown as U+FFFD's first byte, which decodes to U+FFFD.
CONTROLS = bytes([*range(9), *range(10, 32), 127])
SHOWN_CONTROLS = bytes.maketrans(CONTROLS, b"\xff" * len(CONTROLS))
_SHOWN_CONTROLS_BUT_BREAKS = bytes.maketrans(CONTROLS.replace(b"\n", b""), b"\xff" * (len(CONTROLS) - 1))
# Lines whose texts `Texts` makes at once.
_TEXTS_AT_ONCE = 1024

# A separator rule: a line of `=`, `-`, `_`, `*`, `#` or `~`, maybe with a title inside.
RULE_RE = compile_on_use(rb"\s*(?:[=\-_*#~]{5,}\s*$|[=_-]{3,} \S.* [=_-]{3,}\s*$)")
# A line pointing at where a diagnostic is (` --> src/a.rs:3:5`, ` ::: lib.rs:9:1`).
POINTER_LINE_RE = compile_on_use(rb"\s*(?:-->|:::) \S+:\d+")
# The pointer that makes a record framed: a header (`CODE message`, `warning: …`), this
# line, a source frame and help lines. An arrow (` --> src/a.rs:3:5`), or the top corner
# of a drawn frame holding the location (`  ,-[src/a.js:3:5]`, `╭─[src/a.js:3:5]`,
# `┌─ src/a.js:3:5`).
FRAMED_POINTER_RE = compile_on_use(
    rb"[ \t]*(?:--> \S+:\d+|(?:,-|\xe2\x95\xad\xe2\x94\x80)\[\S+:\d+|\xe2\x94\x8c\xe2\x94\x80 \S+:\d+)"
)
# A location alone on an indented line (`    src/a.js:3:5:`): a framed record's pointer
# when it is more indented than the header above it.
LONE_LOCATION_RE = compile_on_use(rb"[ \t]+[^\s:]+:\d+(?::\d+)?:?[ \t]*$")
# A framed record's help (`help: Organize imports`, `  = help: for further information …`):
# what to do about it, shown with the record's example even when its frame folds; for an
# error, its notes too (`= note: \`#[deny(…)]\` on by default`): why it stops the build.
HELP_LINE_RE = compile_on_use(rb"\s*(?:= )?help: ")
NOTE_LINE_RE = compile_on_use(rb"\s*(?:= )?note: ")
# The typecode of arrays of line indices: 4 bytes a line (a log of 2**32 lines would be
# hundreds of GB).
LINE_INDEX = "I"


def offset_typecode(size: int) -> str:
    """The typecode of offsets into an input of `size` bytes (`Lines.ends`): 4 bytes a line
    below 4 GiB, where a 1 GB log's 9 million lines then hold 36 MB less; 8 from there."""
    return "I" if size < 1 << 32 else "q"


KEEP = 1  # shown verbatim (anomaly, its block, or context)
FOLD = 2  # inside a folded group


@dataclass(frozen=True)
class Lines:
    """The input's lines, held as end offsets into the input rather than as copies."""

    data: bytes
    ends: array[int]  # offset just past each line's terminator
    stripped: list[bytes] | None  # lines without ANSI escapes or terminators, if there were escapes

    def __len__(self) -> int:
        return len(self.ends)

    def start(self, index: int) -> int:
        return self.ends[index - 1] if index else 0

    def raw(self, index: int) -> bytes:
        """The exact original line, terminator included."""
        ends = self.ends
        return self.data[ends[index - 1] if index else 0 : ends[index]]

    def span(self, first: int, last: int) -> memoryview:
        """The exact original lines `first..last`, inclusive, without copying them."""
        return memoryview(self.data)[self.start(first) : self.ends[last]]

    @cached_property
    def holds_carets(self) -> bool:
        """Whether any line could point under quoted source (`^`): most logs hold none, and
        a frame's lines are then never looked for line by line."""
        return holds(self.data, b"^")

    def clean(self, index: int) -> bytes:
        """The line as shown: no ANSI escapes, no terminator."""
        if self.stripped is not None:
            return self.stripped[index]
        # Read for every line of a large log, several times: no further calls. A line holds
        # no `\r`/`\n` but its terminator.
        ends = self.ends
        return self.data[ends[index - 1] if index else 0 : ends[index]].rstrip(b"\r\n")

    def cleans(self, indexes: Sequence[int]) -> list[bytes]:
        """`clean` of each of `indexes`, sliced and stripped in C: a batch of a large
        group's lines, read for every line of the group."""
        if self.stripped is not None:
            return list(map(self.stripped.__getitem__, indexes))
        ends = self.ends
        starts = map(ends.__getitem__, map(sub, indexes, repeat(1)))
        spans = map(slice, starts, map(ends.__getitem__, indexes))
        cleaned = list(map(bytes.rstrip, map(self.data.__getitem__, spans), repeat(b"\r\n")))
        if 0 in indexes:  # the first line starts at 0, not at `ends[-1]`
            cleaned = [Lines.clean(self, 0) if index == 0 else line for index, line in zip(indexes, cleaned)]
        return cleaned

    def text(self, index: int, limit: int) -> str:
        """The line as shown, cut at `limit` bytes; control bytes (a stray NUL) as U+FFFD."""
        line = self.clean(index)
        cut = len(line)
        if cut > limit:
            cut = limit
            while cut > 0 and 0x80 <= line[cut] < 0xC0:  # do not split a UTF-8 sequence
                cut -= 1
        shown = visible(line[:cut].translate(SHOWN_CONTROLS))
        return shown if cut == len(line) else shown + "…"


# Fault-around windows a mapped input's line reads may have mapped between two givings
# back of its pages (8 MB). A read that faults maps the 64 KB window around it
# (`mapped.FAULT_AROUND`; `MADV_RANDOM` does not stop it): lines read here and there map a
# window each, lines read in order one window per window of lines. Counted by lines read,
# 1,024 lines allowed between givings back mapped up to 64 MB (4,000 lines read here and
# there in a 300 MB log mapped 166 MB) and gave pages back often in passes in order.
WINDOWS_PER_LET_GO = 128


@dataclass(frozen=True)
class MappedLines(Lines):
    """The lines of a mapped input (`tokenlab/mapped.py`): planning and rendering read lines
    all over the input (a group's members, each line's role), so once they have read
    `WINDOWS_PER_LET_GO` windows the pages read so far are given back; a line read again
    is mapped again."""

    # The windows read since the last giving back, and the window of the last line read.
    reads: list[int] = field(default_factory=lambda: [0, -1], repr=False, compare=False)

    def raw(self, index: int) -> bytes:
        self._count_read(index, index)
        return super().raw(index)

    def clean(self, index: int) -> bytes:
        self._count_read(index, index)
        return super().clean(index)

    def cleans(self, indexes: Sequence[int]) -> list[bytes]:
        """A batch of lines far apart is read `WINDOWS_PER_LET_GO` lines at a time: each
        may map a window of its own (1,024 of a large group's lines mapped 64 MB)."""
        step = WINDOWS_PER_LET_GO
        if len(indexes) > step and self._windows(min(indexes), max(indexes)) > step:
            batches = (self.cleans(indexes[at : at + step]) for at in range(0, len(indexes), step))
            return [line for batch in batches for line in batch]
        if indexes:
            self._count_read(min(indexes), max(indexes), len(indexes))
        return super().cleans(indexes)

    def _windows(self, first: int, last: int) -> int:
        """The windows the bytes of lines `first..last` span."""
        return self.ends[last] // FAULT_AROUND - self.start(first) // FAULT_AROUND + 1

    def _count_read(self, first: int, last: int, count: int = 1) -> None:
        """Count the windows lines `first..last` (`count` of them) may have mapped: at most
        one a line, and at most those the bytes from the first to the last line span."""
        reads, ends = self.reads, self.ends
        window = ends[last] // FAULT_AROUND
        if count == 1 and window == reads[1]:
            return
        reads[0] += min(count, self._windows(first, last))
        reads[1] = window
        if reads[0] >= WINDOWS_PER_LET_GO:
            reads[0] = 0
            let_go(self.data, 0, len(self.data))


_NARROW_TEMPLATES = 1 << 16  # template numbers an `H` array holds


@dataclass(frozen=True)
class Templates:
    """Each line's template, by number; needed only until the lines are planned.

    Line indices are kept in arrays rather than lists: a list of a million lines holds a
    million int objects, several times the memory, alive while the omission is built.
    Groups of folded lines keep the members' arrays, so they are `LINE_INDEX` arrays too.
    """

    keys: list[bytes] = field(default_factory=list)  # the templates, in first-seen order
    numbers: dict[bytes, int] = field(default_factory=dict)  # template -> its position in `keys`
    members: list[array[int]] = field(default_factory=list)  # each template's line indices
    # 2 bytes a line while there are fewer than 2**16 templates (most logs have hundreds),
    # then 4 (`widened`): a number reaching 2**32 would take tens of GB of distinct lines.
    of_line: array[int] = field(default_factory=lambda: array("H"))

    def widened(self, more: int) -> Templates:
        """These templates, with `of_line` able to number `more` templates more."""
        if self.of_line.typecode == "I" or len(self.keys) + more <= _NARROW_TEMPLATES:
            return self
        return Templates(self.keys, self.numbers, self.members, array("I", self.of_line))

    def key(self, index: int) -> bytes:
        return self.keys[self.of_line[index]]


class GroupKind(Enum):
    """Why lines were folded; picks the label of the group's visible line."""

    TEMPLATE = "template"  # same template: shown as its first line with a count
    REPEAT = "repeat"  # an anomaly beyond `verbatim_repeats`
    RUN = "run"  # the middle of a long run of distinct lines
    LONG = "long"  # a line cut at `line_bytes`, or after its first settings (`said`)
    TAIL = "tail"  # the end of a long diagnostic shown in full
    LIBRARY = "library"  # consecutive frames of a chain in library code (`log_library`)
    RECORDS = "records"  # failure sections of one skeleton after the first (`sections`)
    FRAMED = "framed"  # framed records of one rule after its example (`codeframes`)


@dataclass
class Group:
    """Folded lines shown as one visible line; `lines` ascend."""

    kind: GroupKind
    lines: array[int]
    identical: bool = False
    units: int = 0  # for REPEAT: how many anomaly units; for LIBRARY: how many frames
    heads: array[int] = field(default_factory=lambda: array(LINE_INDEX))  # for REPEAT: each unit's first line
    after_shown: bool = True  # for REPEAT: whether examples were shown before the group
    blanks: int = 0  # stray blank lines appended to the group (out of order)
    # For a TEMPLATE merged from shapes differing in one word: each shape's lines, and
    # which word (counted in whitespace-separated words) differs.
    variants: list[array[int]] = field(default_factory=list)
    variant_word: int = 0
    inline: bool = False  # for TAIL: shown at the end of the line before it (`… [+2 lines]`)
    # For REPEAT: its heads' `varying_slots`, once found (pairing its values finds them
    # before it is rendered), with how many heads it had then.
    head_slots: tuple[int, VaryingSlots | None] | None = None
    # For RECORDS and FRAMED: the group line's text, its records' headline and values
    # (`lines.families`); for a `told` REPEAT, its shape (`pairs`); for LONG, a line of
    # settings cut after its first ones (`items`).
    said: str = ""
    # For REPEAT: the one-line units shown before it as examples; a group of rows takes in
    # all but the first (`pairs`).
    examples: array[int] = field(default_factory=lambda: array(LINE_INDEX))
    # For REPEAT: every unit is a run's closing line naming a failure its section told
    # above (`FAILED t.py::test_x[EUR-10] - …`): said by its shape alone (`pairs`).
    told: bool = False

    @property
    def count(self) -> int:
        return self.units or len(self.lines) - self.blanks

    @property
    def contiguous(self) -> bool:
        return self.lines[-1] - self.lines[0] + 1 == len(self.lines)


@dataclass
class Plan:
    role: bytearray
    groups: list[Group] = field(default_factory=list)
    anomalous: set[int] = field(default_factory=set)  # template numbers
    signals: tuple[str, ...] = ()  # failure and summary lines, as shown
    codes: str = ""  # the census of diagnostics' rule codes, a line under the header
    # Lines of framed records after their headers: quoted source and help, never the
    # tool's own status, so never failure lines (`except BaseException:` in a frame).
    in_frames: set[int] = field(default_factory=set)


def indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


# A visible item: a line index shown verbatim, or a folded group shown as one line.
Item = int | Group


class Texts(Sequence[str]):
    """Some lines' visible texts, each made when read: a group of a large log is summarised
    without holding all its lines' texts at once."""

    def __init__(self, lines: Lines, indexes: Sequence[int], limit: int) -> None:
        self.lines, self.indexes, self.limit = lines, indexes, limit

    def __len__(self) -> int:
        return len(self.indexes)

    @overload
    def __getitem__(self, at: int) -> str: ...
    @overload
    def __getitem__(self, at: slice) -> Sequence[str]: ...
    def __getitem__(self, at: int | slice) -> str | Sequence[str]:
        if isinstance(at, slice):
            return Texts(self.lines, self.indexes[at], self.limit)
        return self.lines.text(self.indexes[at], self.limit)

    def __iter__(self) -> Iterator[str]:
        """The texts a batch at a time: a batch without a line over the limit is translated
        and decoded at once, its lines joined by line breaks (which no line holds)."""
        lines, limit = self.lines, self.limit
        for start in range(0, len(self.indexes), _TEXTS_AT_ONCE):
            batch = lines.cleans(self.indexes[start : start + _TEXTS_AT_ONCE])
            if max(map(len, batch)) > limit:
                yield from (lines.text(index, limit) for index in self.indexes[start : start + _TEXTS_AT_ONCE])
            else:
                yield from visible(b"\n".join(batch).translate(_SHOWN_CONTROLS_BUT_BREAKS)).split("\n")
