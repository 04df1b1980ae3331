"""Where a framed or located diagnostic record ends, and how its repeats are said: each
record is read whole (header, pointer, frame, notes), in the shapes of several tools."""

from __future__ import annotations

import random

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.log import optimizer as log
from tokenlab.optimizers.log.model import DEFAULT_LIMITS, Lines
from tokenlab.optimizers.log.templates import lines_and_templates
from tokenlab.optimizers.log.units import (
    continuing_lines,
    framed,
    framed_end,
    message_after,
    pointer_of,
    stands_alone,
    unit_end,
)

COARSE = OptimizerConfig(Granularity.COARSE)


def _lines(text: str) -> Lines:
    return lines_and_templates(text.encode())[0]


def _shown(text: str) -> str:
    return render_preview(log.optimize(text.encode(), COARSE))


def _group_lines(shown: str) -> list[str]:
    return [line for line in shown.splitlines() if line.startswith("[×")]


# --- records printed one after another, without blank lines ------------------------------


def _packed_record(severity: str, message: str, path: str, line: int) -> str:
    gutter = " " * len(str(line))
    return (
        f"{severity} {message}\n"
        f"  --> {path}:{line}:1\n"
        f"{gutter} |\n"
        f"{line} | from .m{line} import name\n"
        f"{gutter} | ^^^^^^^^^^^^^^^^^^^^^\n"
    )


def _packed_run() -> str:
    text = "".join(_packed_record("ERROR", "Could not resolve import `..` [missing-import]", f"pkg/m{n % 5}.py", 10 + n) for n in range(20))
    text += _packed_record("ERROR", "Expected a type argument for `Literal` [invalid-annotation]", "pkg/misc.py", 147)
    text += "".join(_packed_record("ERROR", "Could not resolve import `..` [missing-import]", f"pkg/z{n}.py", 3) for n in range(3))
    return text + " INFO 24 errors (7 suppressed)\n"


def test_a_record_without_blank_lines_ends_at_the_next_records_header() -> None:
    lines = _lines(_packed_run())
    pointer = pointer_of(lines, 0)
    assert pointer == 1
    assert framed_end(lines, 0, pointer, DEFAULT_LIMITS) == 5  # header, pointer, three frame lines


def test_packed_records_fold_by_message_and_the_odd_one_and_the_summary_stay_visible() -> None:
    text = _packed_run()
    shown = _shown(text)
    assert "ERROR Expected a type argument for `Literal` [invalid-annotation]" in shown
    assert "  --> pkg/misc.py:147:49" not in shown and "  --> pkg/misc.py:147:1" in shown
    assert " INFO 24 errors (7 suppressed)" in shown
    pointers = [line.split("--> ")[1] for line in text.splitlines() if "--> " in line]
    assert line_shown.not_shown(tuple(pointers), shown) == ()
    assert [line[:7] for line in _group_lines(shown)] == ["[×22] E"]


def test_a_notes_own_pointer_stays_in_the_record_above_it() -> None:
    record = (
        "error[E0382]: borrow of moved value: `v{n}`\n"
        " --> src/main.rs:{n}:20\n"
        "  |\n"
        "{n} |     let w = v{n};\n"
        "  |             ^^ value borrowed here after move\n"
        "note: consider changing this parameter type\n"
        " --> src/lib.rs:7:13\n"
        "  |\n"
        "7 | fn takes(v: Vec<i32>) {{}}\n"
        "  |             ^^^^^^^^\n"
    )
    lines = _lines("".join(record.format(n=n) for n in range(1, 4)))
    assert framed_end(lines, 0, 1, DEFAULT_LIMITS) == 10  # the note is the record's; the next error is not


# --- a drawn frame's corner holds the location ---------------------------------------------


def _cornered_record(corner: str, rule: str, message: str, path: str, line: int) -> str:
    return (
        f"\n  ! {rule}: {message}\n"
        f"   {corner}{path}:{line}:5]\n"
        f" {line} |   const unused = {line};\n"
        "   :         ^^^^^^\n"
        "   `----\n"
        "  help: Remove it.\n"
    )


def test_records_pointed_at_by_a_frames_corner_list_every_location_with_their_record() -> None:
    for corner in (",-[", "\u256d\u2500["):
        text = "".join(_cornered_record(corner, "eslint(no-unused-vars)", "Variable is never used.", f"src/f{n}.js", 10 + n) for n in range(12))
        text += _cornered_record(corner, "eslint(no-self-compare)", "Both sides are the same", "src/odd.js", 65)
        text += "\nFound 13 warnings and 0 errors.\n"
        shown = _shown(text)
        assert f"{corner}src/odd.js:65:5]" in shown  # the odd record with its location
        groups = _group_lines(shown)
        assert len(groups) == 1 and groups[0].startswith("[×11] ! eslint(no-unused-vars): Variable is never used. --> {")
        assert line_shown.not_shown(tuple(f"src/f{n}.js:{10 + n}:5" for n in range(1, 12)), groups[0]) == ()
        assert "Found 13 warnings and 0 errors." in shown


# --- an indented location alone, set apart from its header by a blank line ----------------


def _spaced_record(mark: str, message: str, path: str, line: int) -> str:
    return (
        f"{mark} {message}\n\n"
        f"    {path}:{line}:2:\n"
        f"      {line} \u2502   retries: 5,\n"
        "         \u2575   ~~~~~~~\n\n"
        '  The original key "retries" is here:\n\n'
        f"    {path}:{line - 2}:2:\n"
        f"      {line - 2} \u2502   retries: 3,\n"
        "         \u2575   ~~~~~~~\n\n"
    )


def test_a_spaced_record_runs_over_its_notes_and_further_frames_to_the_next_header() -> None:
    text = "".join(_spaced_record("\u25b2 [WARNING]", "Duplicate key [duplicate-object-key]", f"src/m{n}.js", 7) for n in range(3))
    lines = _lines(text)
    assert pointer_of(lines, 0) == 2
    assert framed_end(lines, 0, 2, DEFAULT_LIMITS) == 11  # up to the blank line before the next header


def test_spaced_records_keep_each_location_with_its_message() -> None:
    for mark in ("\u25b2 [WARNING]", "warning:"):
        text = "".join(_spaced_record(mark, "Duplicate key [duplicate-object-key]", f"src/m{n}.js", 7) for n in range(10))
        text += _spaced_record("\u2718 [ERROR]", "Could not resolve import", "src/mod4.js", 4)
        text += "10 warnings and 1 error\n"
        shown = _shown(text)
        error = shown.index("\u2718 [ERROR] Could not resolve import")
        assert shown.index("    src/mod4.js:4:2:", error) - error < 60  # right under its header
        groups = _group_lines(shown)
        assert len(groups) == 1 and "--> {" in groups[0]
        assert line_shown.not_shown(tuple(f"src/m{n}.js:7:2" for n in range(1, 10)), groups[0]) == ()


# --- a location alone first, then the frame, then the message ------------------------------


def _location_first(location: str, line: int, message: str) -> str:
    return f"{location}\n\n   {line} |     integer :: k\n      |                1\n{message}\n"


def test_a_location_said_first_heads_its_frame_and_message() -> None:
    for location in ("grid.f90:35:16:", 'File "grid.ml", line 35, characters 4-9:'):
        lines = _lines(_location_first(location, 35, "Warning: Unused variable k") + "make: done\n")
        assert message_after(lines, 0, DEFAULT_LIMITS) == 4
    assert message_after(_lines("a.f90:3:1:\nmake: done\nError: x\n"), 0, DEFAULT_LIMITS) is None  # no frame


def test_records_located_first_are_listed_by_location_with_their_message() -> None:
    text = "".join(
        f"gfortran -c m{n}.f90\n" + _location_first(f"m{n}.f90:35:16:", 35, "Warning: Unused variable \u2018k\u2019 [-Wunused-variable]")
        for n in range(6)
    )
    text += "gfortran -c main.f90\n" + _location_first("main.f90:14:52:", 14, "Error: Syntax error in argument list at (1)")
    text += "make: *** [Makefile:7: main.o] Error 1\n"
    shown = _shown(text)
    assert "main.f90:14:52:\n" in shown and "Error: Syntax error in argument list at (1)" in shown
    assert shown.index("main.f90:14:52:") < shown.index("Error: Syntax error")
    groups = _group_lines(shown)
    assert len(groups) == 1 and groups[0].split("] ", 1)[1].startswith("Warning: Unused variable")
    assert line_shown.not_shown(tuple(f"m{n}.f90:35:16" for n in range(6)), shown) == ()


# --- a diagnostic whose severity is no failure word, with its source and caret -------------


def test_a_located_diagnostic_with_a_caret_keeps_its_source_line_with_it() -> None:
    for severity, code in (("style", "variableScope"), ("convention", "C0114")):
        text = "".join(
            f"lib/f{n}.c:{n + 3}:9: {severity}: The scope of the variable 'v{n}' can be reduced. [{code}]\n"
            f"    int v{n}_{'x' * n};\n"
            "        ^\n"
            for n in range(12)
        )
        text += "lib/z.c:92:18: error: Uninitialized variable: msgbuf [uninitvar]\n        (LPVOID)&msgbuf,\n                 ^\n"
        shown = _shown(text)
        assert not [line for line in shown.splitlines() if line.startswith("    int v")]  # no source line alone
        assert "        (LPVOID)&msgbuf," in shown
        groups = _group_lines(shown)
        assert len(groups) == 1 and f"[{code}]" in groups[0]


# --- an anomaly known to be its line alone without reading what follows ------------------

# Lines of several tools' diagnostics: headers with and without rule codes, notes, include
# chains, pointers, frames, carets, wrapped messages, locations alone, blank lines.
_SHAPES = (
    "src/a.c:3:5: warning: unused variable 'x' [-Wunused-variable]",
    "src/a.c:3:5: error: 'x' undeclared",
    "src/a.c:3:5: note: each undeclared identifier is reported only once",
    "b.h:4:1: note: candidate: 'void f()'",
    "In file included from a.h:3,",
    "                 from b.c:4:",
    "    x = 1;",
    "x = 1;",
    "    ^",
    "  ^~~~",
    "   12 | code",
    "      |     ^",
    "  --> src/a.rs:3:5",
    "error[E0308]: mismatched types",
    "a.f90:14:52:",
    "Error: Symbol 'y' has no IMPLICIT type",
    "help: consider borrowing here",
    "note: required by a bound",
    "= note: expected type `u8`",
    "...",
    "::: src/b.rs:1:1",
    "12 + edit",
    "12| code at the margin",
    "7 ~ tilde",
    "2026-03-14 09:00:00,063 ERROR [db] request failed",
    "mypy.py:3: error: Function is missing a type",
    "annotation  [no-untyped-def]",
    "\tindented by a tab",
    "ERROR request failed",
    "a warning --> elsewhere",
    "",
    "   ",
)


def test_an_anomaly_stands_alone_only_where_reading_it_finds_one_line() -> None:
    rng = random.Random("stands-alone")
    alone = 0
    for _ in range(1500):
        chosen = [rng.choice(_SHAPES) for _ in range(rng.randint(1, 10))]
        text = "".join(line + rng.choice(("\n", "\r\n", "\r")) for line in chosen)
        lines = lines_and_templates(text.encode())[0]
        continuing = continuing_lines(lines)
        for start in range(len(lines)):
            if stands_alone(lines, start, continuing):
                alone += 1
                assert not framed(lines, start), text
                assert message_after(lines, start, DEFAULT_LIMITS) is None, text
                assert unit_end(lines, start, False, DEFAULT_LIMITS, False) == start + 1, text
    assert alone > 1000  # most headers followed by another line at the margin are found


def test_lines_read_without_their_escapes_are_never_known_alone() -> None:
    lines = _lines("\x1b[31msrc/a.c:3:5: warning: unused [-Wunused]\x1b[0m\nsrc/a.c:4:5: warning: unused [-Wunused]\n")
    assert continuing_lines(lines) is None
    assert not stands_alone(lines, 0, None)
