"""Disassembly listings, line by line: which lines are function headers, which are
instructions (and their mnemonic, operands and named target), and which are anything else
(source lines, section titles, a debugger's own messages).

Two printed forms are read:
- objdump: `    1287:\t55                   \tpush   %rbp`, the bytes column holding
  bytes (`48 89 e5`) or words (`d10043ff`), headers `0000000000001287 <main>:`;
- gdb: `=> 0x0000555555555385 <+254>:\tmov    -0x10(%rbp),%rax` (`=>` marks the current
  instruction), with `/r` bytes, headers `Dump of assembler code for function main:`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from itertools import accumulate

from tokenlab.patterns import compile_on_use

_OBJDUMP_RE = compile_on_use(r"^ *([0-9a-f]+):\t((?:[0-9a-f]{2,8} ?)+)[ ]*(?:\t([^\t\s]+)(.*))?$")
_GDB_RE = compile_on_use(r"^(=>|  ) (0x[0-9a-f]+)(?: <[^>\n]*>)?:\t(?:(?:[0-9a-f]{2} )+\t)?([^\t\s]+)(.*)$")
_HEADER_RE = compile_on_use(r"^(?:[0-9a-f]+ <(.+)>:|Dump of assembler code for function (.+):)$")
# A jump or call's target as both tools print it: `1030 <free@plt>`, `0x5555… <main+42>`.
_TARGET_RE = compile_on_use(r"^\s*(?:0x)?[0-9a-f]+ <([^>+]+)(\+[0-9a-fx]+)?>")
MAX_LINE = 1024  # a longer line is no instruction; the regexes never see it


class Kind(str, Enum):
    HEADER = "header"
    INSTRUCTION = "instruction"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Line:
    start: int
    end: int  # past the newline
    text: str
    kind: Kind
    function: int  # index of the header above, -1 before any
    mnemonic: str = ""
    operands: str = ""
    marked: bool = False  # gdb's `=>`: the instruction about to run


def _instruction(text: str) -> tuple[str, str, bool] | None:
    """(mnemonic, operands, marked) of an instruction line, or None."""
    if len(text) > MAX_LINE:
        return None
    match = _OBJDUMP_RE.match(text)
    if match is not None:
        return match.group(3) or "", (match.group(4) or "").strip(), False
    match = _GDB_RE.match(text)
    if match is not None:
        return match.group(3), match.group(4).strip(), match.group(1) == "=>"
    return None


def header_name(text: str) -> str | None:
    match = _HEADER_RE.match(text) if len(text) <= MAX_LINE else None
    if match is None:
        return None
    return match.group(1) or match.group(2)


def looks_like_disassembly(sample: bytes) -> bool:
    lines = [line for line in sample.decode("utf-8", errors="replace").split("\n")[:2000] if line.strip()]
    if len(lines) > 1:
        lines.pop()  # the sample may end inside a line
    instructions = sum(1 for line in lines if _instruction(line.rstrip("\r")) is not None)
    return instructions >= 8 and instructions >= 0.5 * len(lines)


def parse(data: bytes) -> list[Line]:
    raw = data.split(b"\n")
    if raw[-1] == b"":
        raw.pop()
    starts = list(accumulate((len(line) + 1 for line in raw), initial=0))
    lines: list[Line] = []
    function = -1
    for number, chunk in enumerate(raw):
        text = chunk.decode("utf-8", errors="replace").rstrip("\r")
        end = min(starts[number + 1], len(data))
        instruction = _instruction(text)
        if instruction is not None:
            mnemonic, operands, marked = instruction
            lines.append(
                Line(starts[number], end, text, Kind.INSTRUCTION, function, mnemonic, operands, marked)
            )
        elif header_name(text) is not None:
            function = number
            lines.append(Line(starts[number], end, text, Kind.HEADER, function))
        else:
            lines.append(Line(starts[number], end, text, Kind.OTHER, function))
    return lines


def named_target(operands: str) -> tuple[str, bool] | None:
    """(name, has offset) of a jump or call's printed target, if it names one."""
    match = _TARGET_RE.match(operands)
    if match is None:
        return None
    return match.group(1), match.group(2) is not None
