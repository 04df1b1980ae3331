"""Disassembly listings (`objdump -d`, gdb's `disassemble /s`): what a reader looks for in
a function stays, the plain instructions between fold per function.

What stays visible:
- every line that is no instruction: function headers, section titles, interleaved source
  lines, a debugger's breakpoint, register and `End of assembler dump.` lines;
- a function's header says its instruction count when some of them are folded;
- the instruction under gdb's `=>` marker, with `marker_context` instructions each side;
- each instruction whose printed target is another function (`call 1030 <free@plt>`, a
  tail `jmp`), once per target and function, up to `targets_per_function`: jumps inside
  the function (`<main+0x2a>`) fold, as their target is a line of the same listing;
- a constant stored through a pointer (`movl $0x2a,(%rax)`, `mov DWORD PTR [rax],0x2a`),
  the store a memory bug is made of; stores into the stack frame (`%rbp`, `%rsp`) fold,
  as every local's initialisation is one.

Small functions with the same skeleton (mnemonics and operands with numbers and names
masked: the stubs of a procedure linkage table) form a group when at least `group_min`
share it: the first is read as any function, the others show their header only, which
names the first (`<printf@plt>:  [3 instructions, like <free@plt>]`).

Each run of other lines leaves `… N instructions`, with the calls of other functions it
hides (`(calls malloc@plt)`); COARSE: one ref holds every folded line
in order; FINE: one ref per run. Listings under `small_bytes` pass through unchanged.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tokenlab.optimizers import (
    Granularity,
    Omission,
    OptimizerConfig,
    OptimizeResult,
    Part,
    join_literals,
    visible,
)
from tokenlab.optimizers.disassembly.parse import Kind, Line, header_name, named_target, parse
from tokenlab.optimizers.lines.folds import headed
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class DisassemblyLimits:
    small_bytes: int = 4096  # smaller listings pass through unchanged
    marker_context: int = 2  # instructions kept on each side of gdb's `=>`
    targets_per_function: int = 24
    stub_instructions: int = 16  # a function this small may join a group of alike ones
    group_min: int = 3


DEFAULT_LIMITS = DisassemblyLimits()

_FRAME_REGISTERS = frozenset({"rbp", "rsp", "ebp", "esp", "rip", "sp", "fp", "x29"})
_ATT_STORE_RE = compile_on_use(r"^\$[^,]+,\s*[-\w]*\(%(\w+)")
_INTEL_STORE_RE = compile_on_use(r"^(?:BYTE|WORD|DWORD|QWORD) PTR \[(\w+)[^\]]*\],\s*-?(?:0x[0-9a-f]+|\d+)$")
_NUMBER_RE = compile_on_use(r"\b(?:0x)?[0-9a-f]+\b")
_NAME_RE = compile_on_use(r"<[^>]*>")
_CALL_MNEMONICS = ("call", "bl", "jal")  # x86, Arm, RISC-V/MIPS calls (`callq`, `blx`, `jalr`)
_CALLS_LISTED = 2  # a fold names this many called functions at most, and counts the others


def optimize(
    data: bytes, config: OptimizerConfig, limits: DisassemblyLimits = DEFAULT_LIMITS
) -> OptimizeResult:
    if len(data) < limits.small_bytes:
        return OptimizeResult((visible(data),) if data else ())
    lines = parse(data)
    grouped = _grouped_stubs(lines, limits)
    keep = _kept(lines, grouped, limits)
    return _render(data, lines, keep, grouped, config.granularity is Granularity.FINE)


def is_constant_store(line: Line) -> bool:
    """A `mov` of an immediate into memory addressed by a register other than the frame's."""
    if not line.mnemonic.startswith("mov"):
        return False
    match = _ATT_STORE_RE.match(line.operands) or _INTEL_STORE_RE.match(line.operands)
    return match is not None and match.group(1) not in _FRAME_REGISTERS


def _function_spans(lines: list[Line]) -> dict[int, range]:
    """Each header's lines: the header through its last instruction, and one blank after."""
    spans: dict[int, range] = {}
    for index, line in enumerate(lines):
        if line.kind is Kind.INSTRUCTION and line.function >= 0:
            spans[line.function] = range(line.function, index + 1)
    for header, span in list(spans.items()):
        after = span.stop
        if after < len(lines) and not lines[after].text.strip():
            spans[header] = range(span.start, after + 1)
    return spans


def _skeleton(lines: list[Line], span: range) -> tuple[str, ...] | None:
    body = [lines[index] for index in span if lines[index].kind is Kind.INSTRUCTION]
    if any(line.marked for line in body) or any(
        lines[index].kind is Kind.OTHER and lines[index].text.strip() for index in span
    ):
        return None
    return tuple(
        line.mnemonic + " " + _NUMBER_RE.sub("0", _NAME_RE.sub("<>", line.operands.partition("#")[0]))
        for line in body
    )


def _grouped_stubs(lines: list[Line], limits: DisassemblyLimits) -> dict[int, int]:
    """Header index of each folded stub -> header index of the first alike one, shown."""
    by_skeleton: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for header, span in _function_spans(lines).items():
        skeleton = _skeleton(lines, span)
        if skeleton and len(skeleton) <= limits.stub_instructions:
            by_skeleton[skeleton].append(header)
    grouped: dict[int, int] = {}
    for headers in by_skeleton.values():
        if len(headers) >= limits.group_min:
            grouped.update((header, headers[0]) for header in headers[1:])
    return grouped


def _kept(lines: list[Line], grouped: dict[int, int], limits: DisassemblyLimits) -> list[bool]:
    keep = [line.kind is not Kind.INSTRUCTION for line in lines]
    targets: dict[int, set[str]] = defaultdict(set)
    names = {index: header_name(line.text) for index, line in enumerate(lines) if line.kind is Kind.HEADER}
    for index, line in enumerate(lines):
        if line.kind is not Kind.INSTRUCTION or line.function in grouped:
            continue
        if line.marked:
            _keep_around(lines, keep, index, limits.marker_context)
        elif is_constant_store(line):
            keep[index] = True
        target = named_target(line.operands)
        if target is not None and target[0] != names.get(line.function):
            seen = targets[line.function]
            if target[0] not in seen and len(seen) < limits.targets_per_function:
                seen.add(target[0])
                keep[index] = True
    for header, span in _function_spans(lines).items():
        if header in grouped:
            for index in span[1:]:
                keep[index] = False
    return keep


def _keep_around(lines: list[Line], keep: list[bool], index: int, context: int) -> None:
    """The marked instruction and `context` instructions of its function on each side."""
    keep[index] = True
    for step in (-1, 1):
        found, at = 0, index + step
        while found < context and 0 <= at < len(lines) and lines[at].kind is not Kind.HEADER:
            if lines[at].kind is Kind.INSTRUCTION:
                keep[at] = True
                found += 1
            at += step


def _header_text(raw: str, count: tuple[int, int], like: str | None) -> str:
    """A kept header as printed, with its instruction count when some of them are folded
    (and the function it is alike, for a grouped stub)."""
    total, folded = count
    if not folded:
        return raw
    text = raw.rstrip("\r\n")
    alike = f", like <{like}>" if like else ""
    return f"{text}  [{total:,} instructions{alike}]{raw[len(text) :]}"


def _render(
    data: bytes, lines: list[Line], keep: list[bool], grouped: dict[int, int], fine: bool
) -> OptimizeResult:
    counts: dict[int, tuple[int, int]] = {}
    for index, line in enumerate(lines):
        if line.kind is Kind.INSTRUCTION and line.function >= 0:
            total, folded = counts.get(line.function, (0, 0))
            counts[line.function] = (total + 1, folded + (not keep[index]))
    body: list[Part] = []
    folded_spans: list[tuple[int, int]] = []
    names = {index: header_name(line.text) for index, line in enumerate(lines) if line.kind is Kind.HEADER}
    index = 0
    while index < len(lines):
        line = lines[index]
        if keep[index]:
            raw = visible(data[line.start : line.end])
            if line.kind is Kind.HEADER:
                like = header_name(lines[grouped[index]].text) if index in grouped else None
                raw = _header_text(raw, counts.get(index, (0, 0)), like)
            body.append(raw)
            index += 1
            continue
        stop = index
        while stop < len(lines) and not keep[stop]:
            stop += 1
        start, end = lines[index].start, lines[stop - 1].end
        count = sum(1 for at in range(index, stop) if lines[at].kind is Kind.INSTRUCTION)
        calls = _calls_note(lines[index:stop], names)
        label = f"    … {count:,} instruction{'s' if count != 1 else ''}{calls}"
        stub_body = line.function in grouped  # its header says what it holds
        if not stub_body and (stop - index == 1 or end - start <= 2 * len(label.encode())):
            body.append(visible(data[start:end]))  # as costly as a marker
        else:
            folded_spans.append((start, end))
            if fine:
                body += [label + " ", Omission(data[start:end], "disassembly lines", ((start, end),)), "\n"]
            elif not stub_body:
                body.append(label + "\n")
        index = stop
    parts = headed(_census(lines, keep, len(grouped)), data, folded_spans, fine, "disassembly lines")
    signals = tuple(line.text for line, kept in zip(lines, keep) if kept and line.marked)
    return OptimizeResult(tuple(join_literals(parts + body)), signals)


def _calls_note(folded: list[Line], names: dict[int, str | None]) -> str:
    """`` (calls malloc@plt ×2, free@plt)`` for the calls of other functions a fold hides:
    one is kept per target and function, so a second call to the same target would read
    as none."""
    calls: dict[str, int] = defaultdict(int)
    for line in folded:
        if line.kind is Kind.INSTRUCTION and line.mnemonic.startswith(_CALL_MNEMONICS):
            target = named_target(line.operands)
            # A target with an offset (`<__cxa_finalize@plt+0x1d0>`, a stripped binary's
            # code past its last symbol) names no function called.
            if target is not None and not target[1] and target[0] != names.get(line.function):
                calls[target[0]] += 1
    if not calls:
        return ""
    listed = [f"{name} ×{count}" if count > 1 else name for name, count in calls.items()]
    more = len(listed) - _CALLS_LISTED
    return f" (calls {', '.join(listed[:_CALLS_LISTED])}{f', +{more} others' if more > 0 else ''})"


def _census(lines: list[Line], keep: list[bool], stubs: int) -> str:
    functions = sum(1 for line in lines if line.kind is Kind.HEADER)
    instructions = [index for index, line in enumerate(lines) if line.kind is Kind.INSTRUCTION]
    folded = sum(1 for index in instructions if not keep[index])
    census = (
        f"[disassembly: {functions:,} function{'s' if functions != 1 else ''}, "
        f"{len(instructions):,} instructions, {folded:,} folded"
    )
    if stubs:
        census += f"; {stubs:,} stubs alike another shown by their header only"
    return census
