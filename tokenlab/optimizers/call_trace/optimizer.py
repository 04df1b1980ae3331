"""Call traces (`strace`, `ltrace`): what the traced program did that a reader looks for
stays; the routine calls between fold with a count per call name.

Recognised by shape: most lines are calls, `name(args) = result`, optionally led by a
`[pid N]` or pid column and a timestamp, or the pieces `-f` splits them into
(`<unfinished ...>`, `<... name resumed>`), or process events (`+++ exited with 0 +++`,
`--- SIGCHLD {…} ---`).

What stays visible:
- every line that is no call: the traced program's own output (it shares the terminal,
  and is often glued to the `write` that printed it), and the tracer's own messages;
- writes to stdout and stderr (`write(1, …)`, `write(2, …)`) and the `) = N` lines that
  close them, as they show what the program said;
- failed calls (`= -1 ENOENT (No such file or directory)`), up to `failures_shown`;
- process events and the calls that start, fork or end a process (`execve`, `clone`,
  `fork`, `exit_group`, `kill`), and the last line.

Each run of other lines becomes `… N calls: mmap ×8, close ×3, …`. COARSE: one ref holds
every folded line in order; FINE: one ref per run. Traces under `small_bytes` pass through.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import accumulate

from tokenlab.optimizers import (
    Granularity,
    OptimizerConfig,
    OptimizeResult,
    join_literals,
    visible,
)
from tokenlab.optimizers.lines.folds import fold_unkept, headed
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class TraceLimits:
    small_bytes: int = 2048  # smaller traces pass through unchanged
    failures_shown: int = 200
    names_listed: int = 6


DEFAULT_LIMITS = TraceLimits()

_LEAD = r"(?:\[pid +\d+\] |\d+ +)?(?:\d+:\d+:\d+(?:\.\d+)? +|\d+\.\d+ +)?"
_CALL_RE = compile_on_use(rf"^{_LEAD}([a-zA-Z_][\w.@]*)\(")
_RESUMED_RE = compile_on_use(rf"^{_LEAD}<\.\.\. ([\w.@]+) resumed>")
_EVENT_RE = compile_on_use(rf"^{_LEAD}(?:\+\+\+ .* \+\+\+|--- .* ---)$")
_CLOSING_RE = compile_on_use(r"^\) += ")  # the end of a call whose arguments printed a newline
_FAILED_RE = compile_on_use(r"\) += -1 (E[A-Z0-9]+)\b|= -1 (E[A-Z0-9]+) \(")
_OUTPUT_RE = compile_on_use(rf"^{_LEAD}(?:write|writev|pwrite64)\([12],")
_PID_RE = compile_on_use(r"^\[pid +(\d+)\] ")
_PROCESS_CALLS = frozenset(
    {"execve", "execveat", "clone", "clone3", "fork", "vfork", "exit_group", "kill", "tgkill"}
)
MAX_LINE = 4096


@dataclass(frozen=True, slots=True)
class _Line:
    start: int
    end: int
    text: str
    call: str  # the call's name, "" for a line that is no call


def _call_name(text: str) -> str | None:
    """The name of the call a line prints (or resumes, or closes: "()"), None for no call."""
    if len(text) > MAX_LINE:
        return None
    match = _CALL_RE.match(text) or _RESUMED_RE.match(text)
    if match is not None:
        return match.group(1)
    if _EVENT_RE.match(text):
        return "+++"
    if _CLOSING_RE.match(text):
        return "()"
    return None


def looks_like_call_trace(sample: bytes) -> bool:
    lines = [line for line in sample.decode("utf-8", errors="replace").split("\n")[:2000] if line.strip()]
    if len(lines) > 1:
        lines.pop()  # the sample may end inside a line
    finished = sum(1 for line in lines if " = " in line and _call_name(line) is not None)
    return finished >= 8 and finished >= 0.6 * len(lines)


def _parse(data: bytes) -> list[_Line]:
    raw = data.split(b"\n")
    if raw[-1] == b"":
        raw.pop()
    starts = list(accumulate((len(line) + 1 for line in raw), initial=0))
    lines = []
    for number, chunk in enumerate(raw):
        text = chunk.decode("utf-8", errors="replace").rstrip("\r")
        lines.append(_Line(starts[number], min(starts[number + 1], len(data)), text, _call_name(text) or ""))
    return lines


def optimize(data: bytes, config: OptimizerConfig, limits: TraceLimits = DEFAULT_LIMITS) -> OptimizeResult:
    if len(data) < limits.small_bytes:
        return OptimizeResult((visible(data),) if data else ())
    lines = _parse(data)
    keep = _kept(lines, limits)
    return _render(data, lines, keep, config.granularity is Granularity.FINE, limits)


def _kept(lines: list[_Line], limits: TraceLimits) -> list[bool]:
    keep = [not line.call for line in lines]
    failures = 0
    writing = False  # inside a write to stdout or stderr whose text printed a newline
    suspended: set[str] = set()  # processes whose write to stdout or stderr is unfinished
    for index, line in enumerate(lines):
        process = _PID_RE.match(line.text)
        pid = process.group(1) if process else ""
        if _OUTPUT_RE.match(line.text):
            keep[index] = True
            if line.text.endswith("<unfinished ...>"):
                suspended.add(pid)
            else:
                writing = " = " not in line.text
        elif writing:
            keep[index] = True
            writing = line.call != "()"
        elif pid in suspended and line.call.startswith(("write", "pwrite")) and "resumed>" in line.text:
            keep[index] = True
            suspended.discard(pid)
        if line.call in _PROCESS_CALLS or line.call == "+++":
            keep[index] = True
        if _FAILED_RE.search(line.text) and failures < limits.failures_shown:
            failures += 1
            keep[index] = True
    if lines:
        keep[-1] = True
    return keep


def _run_label(lines: list[_Line], names_listed: int) -> str:
    names = Counter(line.call for line in lines if line.call not in ("", "()", "+++"))
    count = sum(names.values())
    listed = ", ".join(f"{name} ×{n}" for name, n in names.most_common(names_listed))
    if len(names) > names_listed:
        listed += f", … +{len(names) - names_listed} names"
    return f"… {count:,} call{'s' if count != 1 else ''}: {listed}"


def _render(
    data: bytes, lines: list[_Line], keep: list[bool], fine: bool, limits: TraceLimits
) -> OptimizeResult:
    body, folded = fold_unkept(
        data,
        [(line.start, line.end) for line in lines],
        keep,
        lambda first, stop: _run_label(lines[first:stop], limits.names_listed),
        fine,
        "trace lines",
    )
    parts = headed(_census(lines), data, folded, fine, "trace lines")
    signals = tuple(
        line.text
        for line, kept in zip(lines, keep)
        if kept and (_FAILED_RE.search(line.text) or line.call == "+++")
    )
    return OptimizeResult(tuple(join_literals(parts + body)), tuple(dict.fromkeys(signals)))


def _census(lines: list[_Line]) -> str:
    calls = sum(1 for line in lines if line.call not in ("", "()", "+++"))
    errors = Counter(
        next(code for code in match.groups() if code)
        for line in lines
        if (match := _FAILED_RE.search(line.text)) is not None
    )
    census = f"[call trace: {calls:,} calls"
    if errors:
        census += (
            f", {sum(errors.values()):,} failed ("
            + ", ".join(f"{code} ×{n}" for code, n in errors.most_common())
            + ")"
        )
    return census
