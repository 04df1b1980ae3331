"""Log optimizer: failure sections, assertion detail, values that vary together, notes.

Each rule on short inputs shaped like several tools' output, then on the survey captures
in `fixtures/real/` that showed the problem.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.log import optimizer as log
from tokenlab.optimizers.log.optimizer import LogLimits
from tokenlab.optimizers.log.sections import failure_sections, told_names
from tokenlab.optimizers.log.templates import lines_and_templates

FIXTURES = Path(__file__).parent.parent / "fixtures" / "real"
COARSE = OptimizerConfig(Granularity.COARSE)
FOLDING = LogLimits(small_input_bytes=0, closing_lines_default=0)


def shown(text: str, limits: LogLimits = FOLDING) -> str:
    return render_preview(log.optimize(text.encode(), COARSE, limits))


def section_of(visible: str, line: str) -> str:
    """The last failure heading above `line` in the visible text."""
    lines = visible.splitlines()
    at = next(i for i, text in enumerate(lines) if line in text)
    return next(text for text in reversed(lines[:at]) if "●" in text or "----" in text or "not ok" in text)


# --- a failure's own lines stay under its heading ------------------------------------------


def _jest(failures: int) -> str:
    out = ["FAIL __tests__/a.test.js"]
    out += [f"    ✕ case {n} (2 ms)" for n in range(failures)]
    for n in range(failures):
        out += ["", f"  ● suite › case {n}", "", "    expect(received).toBe(expected) // Object.is equality", ""]
        out += [f"    Expected: {n}", f"    Received: {n + 1}", ""]
        out += [f"      {n + 3} | describe('suite', () => {{", f"    > {n + 4} |   test('case {n}', () => expect(f({n})).toBe({n}));"]
        out += ["        |                                      ^", f"      {n + 5} | }});", ""]
        out += [f"      at Object.toBe (__tests__/a.test.js:{n + 4}:38)"]
    out += ["", f"Tests:       {failures} failed, {failures} total", "Ran all test suites."]
    return "\n".join(out) + "\n"


def test_assertion_detail_stays_with_its_failure_and_frames_are_not_merged() -> None:
    text = _jest(3)
    visible = shown(text)
    for n in range(3):
        assert f"    Expected: {n}" in visible and f"    Received: {n + 1}" in visible
        assert section_of(visible, f"    Received: {n + 1}") == f"  ● suite › case {n}"
    # No group line holds lines of two failures (`[×3] {3, 4, 5} | describe(…`).
    assert not any(line.startswith("[×") for line in visible.splitlines())


def test_diff_lines_and_an_expected_actual_block_are_shown_whole() -> None:
    out = ["TAP version 13"]
    for n in range(40):
        out += [f"    # Subtest: case {n}", f"    ok {n + 1} - case {n}", "      ---", f"      duration_ms: 0.0{n}", "      ..."]
    for n, (want, got) in enumerate((("c", "b"), ("e", "d"))):
        out += [f"    not ok {41 + n} - case {40 + n}", "      ---", "      error: |-", "        + actual - expected"]
        out += ["          [", "            'a',", f"        +   '{got}'", f"        -   '{want}'", "          ]"]
        out += ["      expected:", "        tags:", "          0: 'a'", f"          1: '{want}'"]
        out += ["      actual:", "        tags:", "          0: 'a'", f"          1: '{got}'", "      ..."]
    out += ["1..42", "# tests 42", "# pass 40", "# fail 2"]
    visible = shown("\n".join(out) + "\n")
    for want, got in (("c", "b"), ("e", "d")):
        assert f"        +   '{got}'" in visible and f"        -   '{want}'" in visible
        assert f"          1: '{want}'" in visible and f"          1: '{got}'" in visible
    assert "# tests 42" in visible


def test_a_line_under_a_section_heading_is_never_shown_under_another() -> None:
    out = ["running 12 tests"] + [f"test tests::ok_{n} ... ok" for n in range(6)]
    names = [f"case_{n}" for n in range(6)]
    out += [f"test tests::{name} ... FAILED" for name in names] + ["", "failures:", ""]
    for n, name in enumerate(names):
        out += [f"---- tests::{name} stdout ----", "", f"thread 'tests::{name}' ({100 + n}) panicked at src/lib.rs:{10 + n}:5:"]
        out += [f"assertion failed: x == {n}", ""]
    out += ["", "test result: FAILED. 6 passed; 6 failed; 0 ignored", ""]
    visible = shown("\n".join(out) + "\n")
    for n, name in enumerate(names):
        panic = f"thread 'tests::{name}' ({100 + n}) panicked at src/lib.rs:{10 + n}:5:"
        assert panic in visible
        assert section_of(visible, panic) == f"---- tests::{name} stdout ----"
    assert "[×" not in visible.split("failures:")[1]


def test_many_failure_sections_keep_heading_detail_and_failure_lines() -> None:
    out = ["=" * 20 + " FAILURES " + "=" * 20]
    for n in range(12):
        out += ["_" * 10 + f" test_total_{n} " + "_" * 10, "", f"    def test_total_{n}():"]
        out += [f">       assert total([{n}, 1]) == {n + 2}", f"E       assert {n + 1} == {n + 2}", ""]
        out += [f"tests/test_mod.py:{10 + 7 * n}: AssertionError"]
    out += ["=" * 10 + " short test summary info " + "=" * 10]
    out += [f"FAILED tests/test_mod.py::test_total_{n} - assert {n + 1} == {n + 2}" for n in range(12)]
    out += ["12 failed in 0.5s"]
    visible = shown("\n".join(out) + "\n")
    for n in range(12):
        # Sections of one skeleton: the first whole, the others by their values, paired.
        failed = (f"E       assert {n + 1} == {n + 2}", f"tests/test_mod.py:{10 + 7 * n}: AssertionError")
        assert line_shown.not_shown(failed, visible) == ()
        # Each failed line's values named: these lines differ in the id and two numbers,
        # folded into one line of their shape and their values (the signal check reads it).
        summary = f"FAILED tests/test_mod.py::test_total_{n} - assert {n + 1} == {n + 2}"
        assert line_shown.not_shown((summary,), visible) == ()
    assert "    def test_total_0():" in visible  # the first section in full
    assert "    def test_total_11():" not in visible
    assert "[×11 more like the one above] ___ # ___ … E assert # == # … #: AssertionError {" in visible


# --- values that vary together stay paired ------------------------------------------------


def test_two_values_that_vary_together_split_into_one_group_each() -> None:
    out = []
    for f in range(20):
        out += [f"src/file{f:02}.ts({3},{53}): error TS2322: Type 'string' is not assignable to type 'number'."]
        out += [f"src/file{f:02}.ts({3},{61}): error TS2322: Type 'number' is not assignable to type 'string'."]
    visible = shown("\n".join(out) + "\n")
    # Every file has them at the same place, the shared folder named once in the header:
    # `{file00 … file19}.ts(3,53)`.
    assert "}.ts(3,53): error TS2322: Type 'string' is not assignable to type 'number'." in visible
    assert "}.ts(3,61): error TS2322: Type 'number' is not assignable to type 'string'." in visible
    assert "{string" not in visible and "{number" not in visible
    assert "; locations in src/" in visible and " file19}" in visible  # errors list every location
    assert line_shown.not_shown(tuple(out), visible) == ()


def test_a_test_id_varying_in_two_places_is_listed_whole() -> None:
    lines = [f"FAILED tests/test_m{n % 4}.py::test_store_{n} - ValueError: negative quantity" for n in range(12)]
    text = "\n".join(["collected 12 items", *lines, "12 failed in 0.3s"]) + "\n"
    visible = shown(text)
    assert "[×9] FAILED {tests/test_m3.py::test_store_3, tests/test_m0.py::test_store_4, " in visible
    assert "tests/{" not in visible
    assert line_shown.not_shown(tuple(lines), visible) == ()


def test_a_single_repeat_is_shown_as_itself_not_counted() -> None:
    out = [f"gcc -c src/u{n}.c" for n in range(30)]
    out += ["src/a.c:3:5: error: unknown type name ‘foo’", "    3 |     foo x;", "      |     ^~~"]
    out += ["src/b.c:9:5: error: unknown type name ‘foo’", "make: *** [Makefile:3: all] Error 1"]
    visible = shown("\n".join(out) + "\n")
    assert "[×1" not in visible
    assert "src/b.c:9:5: error: unknown type name ‘foo’" in visible


def test_when_every_repeat_is_listed_the_count_says_so_without_more() -> None:
    out = [f"2026-01-01 10:00:0{n} ERROR [db] connection refused to 10.0.0.{n}:5432" for n in range(6)]
    visible = shown("\n".join(out) + "\n")
    assert "[×3] 2026-01-01 {10:00:03 … 10:00:05} ERROR [db] connection refused to {10.0.0.3 10.0.0.4 10.0.0.5}:5432" in visible


# --- a note belongs to the diagnostic before it -------------------------------------------


def test_notes_fold_with_their_own_diagnostic_never_with_another() -> None:
    out = []
    for op, line in (("<", 408), ("==", 378)):
        out += [f"/usr/include/stl_function.h:{line}:20: error: no match for ‘operator{op}’ (operand types are ‘const P’ and ‘const P’)"]
        out += [f"  {line} |       {{ return __x {op} __y; }}", "      |                ~~~~^~~~~"]
        for candidate in range(12):
            out += [f"/usr/include/stl_iterator.h:{400 + candidate}:5: note: candidate: ‘template<class _It> bool std::operator{op}(const It{candidate}&)’"]
            out += [f"/usr/include/stl_function.h:{line}:20: note:   ‘const P’ is not derived from ‘const It{candidate}’"]
    visible = shown("\n".join(out) + "\n")
    first, _ = visible.split("stl_function.h:378:20: error", 1)
    assert ":378:20" not in first  # no note of the second error is grouped into the first's
    assert "[+" in first or "more line" in first


# --- the survey captures -------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "jest_verbose_snapshot.log",
        "node_test_tap_1500.log",
        "cargo_test_panics_color.log",
        "pytest_q_many_failures.log",
        "tsc_many_errors_plain.log",
        "gpp_stl_template_errors.log",
        "mocha_failures.log",
        "rustc_borrowck_errors.log",
        "mypy_pretty_stevedore.log",
        "javac_30_errors.log",
        "prove_v_merge_ledger_failures.log",
        "prove_v_stderr_first_ledger_failures.log",
        "pytest_tap_combined_invoice.tap",
        "node_test_tap_money.log",
    ],
)
def test_survey_captures_show_every_signal(name: str) -> None:
    signals = tuple(line for line in (FIXTURES / f"{name}.signals").read_text(encoding="utf-8").splitlines() if line)
    visible = render_preview(log.optimize((FIXTURES / name).read_bytes(), COARSE))
    assert line_shown.not_shown(signals, visible) == ()


def test_jest_assertion_detail_is_verbatim_under_its_heading() -> None:
    visible = render_preview(log.optimize((FIXTURES / "jest_verbose_snapshot.log").read_bytes(), COARSE))
    for line in ('    -   "total": 7,', '    +   "total": 8,', '    Expected substring: "bad qty"', "    Received length: 2"):
        assert line in visible
    assert section_of(visible, '    +   "total": 8,') == "  ● cart › snapshot of order"


def _code_frame_failure() -> str:
    """A failure whose code frame points at one line between four lines of context."""
    frame = [
        "      38 | describe('cart', () => {",
        "      39 |   const cart = [{ sku: 'A1', qty: 2, price: 5 }];",
        "    > 40 |   test('total', () => expect(total(cart)).toBe(9));",
        "         |                                           ^",
        "      41 |   test('empty', () => expect(total([])).toBe(0));",
        "      42 | });",
    ]
    return "\n".join(["FAIL a.test.js", "", "  ● cart › total", "", "    Expected: 9", "    Received: 10", "", *frame, "", "Tests: 1 failed, 1 total"]) + "\n"


def test_a_code_frame_shows_the_line_it_points_at_and_folds_its_context() -> None:
    visible = shown(_code_frame_failure())
    assert "    > 40 |   test('total', () => expect(total(cart)).toBe(9));" in visible
    assert "         |                                           ^" in visible
    assert "describe('cart'" not in visible and "test('empty'" not in visible  # context, behind the ref


def test_a_per_file_tally_names_every_file_with_its_count() -> None:
    rows = "".join(f"     {4 if n % 3 == 0 else 5}  src/file{n:02d}.ts:1\n" for n in range(30))
    visible = shown("Found 140 errors in 30 files.\n\nErrors  Files\n" + rows)
    tally = next(line for line in visible.splitlines() if line.startswith("[×30]"))
    fours, fives = tally.split("; ")
    assert all(f"file{n:02d}" in (fours if n % 3 == 0 else fives) for n in range(30))


# --- a numbered failure's message printed at the margin stays in its section ----------------


def test_a_failure_message_at_the_margin_keeps_the_stack_below_it_in_its_section() -> None:
    out = [f"    ✔ case {n}" for n in range(30)] + ["", "  30 passing (5ms)", "  3 failing", ""]
    for n in range(1, 4):
        out += [f"  {n}) suite", f"       case {n}:", "     AssertionError: values differ", "", "Error message:", ""]
        out += [f"value {n} is wrong", f"      at Context.<anonymous> (test/a.test.js:{10 * n}:5)"]
        out += ["      at process.processImmediate (node:internal/timers:483:21)", ""]
    visible = shown("\n".join(out) + "\n")
    for n in range(1, 4):
        frame = f"      at Context.<anonymous> (test/a.test.js:{10 * n}:5)"
        assert frame in visible  # never one `[×3]` line under the first failure
        lines = visible.splitlines()
        at = lines.index(frame)
        assert next(text for text in reversed(lines[:at]) if ") suite" in text) == f"  {n}) suite"


def test_a_nested_section_ends_at_its_next_sibling_even_if_deeper_lines_follow() -> None:
    out = ["TAP version 13", "    # Subtest: a", "    not ok 1 - a", "      ---", "      error: boom", "      ..."]
    out += ["    # Subtest: b", "    ok 2 - b", "      ---", "      duration_ms: 0.1", "      ..."]
    sections = failure_sections_of("\n".join(out) + "\n")
    assert sections[2:6] == [1, 1, 1, 1] and sections[6:] == [0] * 5


def failure_sections_of(text: str) -> list[int]:
    lines, _ = lines_and_templates(text.encode())
    found = failure_sections(lines)
    return list(found) if found is not None else []


def test_a_thread_record_keeps_its_frames_and_locks_under_its_header() -> None:
    # Each thread has its own number of frames: no two records share a shape, so no
    # frame may fold into a group line under another thread.
    threads = [
        b'"worker-%d" #%d prio=5\n   java.lang.Thread.State: BLOCKED\n\tat App.run%d(App.java:%d)\n' % (n, n, n, n)
        + b"\t- waiting to lock <0x%x> (a java.lang.Object)\n" % n
        + b"\tat java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)\n" * n
        + b"\n"
        for n in range(1, 8)
    ]
    data = b"Full thread dump:\n\n" + b"".join(threads) + b"Found 1 deadlock.\n"
    shown = render_preview(log.optimize(data, OptimizerConfig(granularity=Granularity.COARSE)))
    for n in range(1, 8):
        assert f'"worker-{n}" #{n} prio=5\n   java.lang.Thread.State: BLOCKED\n\tat App.run{n}(App.java:{n})\n' in shown
        assert f"\t- waiting to lock <0x{n:x}> (a java.lang.Object)" in shown


_CALLERS = ["pop", "take", "serve", "loop", "main"]


def _leak_records(sites: list[tuple[int, int, str, int]]) -> str:
    out = ["==7==ERROR: LeakSanitizer: detected memory leaks", ""]
    for size, objects, function, line in sites:
        out += [
            f"Direct leak of {size} byte(s) in {objects} object(s) allocated from:",
            "    #0 0x7f64 in __interceptor_malloc ../../src/libsanitizer/asan/asan_malloc_linux.cpp:69",
            f"    #1 0x556c in {function} /src/leaks.c:{line}",
            "    #2 0x7f65 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58",
            "",
        ]
    return "\n".join([*out, "SUMMARY: AddressSanitizer: 5579 byte(s) leaked in 27 allocation(s)."]) + "\n"


def test_a_numbered_stack_under_its_header_is_a_record_whose_frames_stay_with_it() -> None:
    # A memory checker's leak records: the size and the allocation site are read together;
    # no frame may fold into a group line with another record's (sizes beside sites).
    sites = [(4096, 1, "render_report", 28), (578, 7, "open_session", 14), (200, 1, "main", 38), (144, 6, "open_session", 10)]
    text = shown(_leak_records(sites))
    for size, objects, function, line in sites:
        assert f"Direct leak of {size} byte(s) in {objects} object(s) allocated from:\n    #0 0x7f64 in __interceptor_malloc" in text
        assert f"    #1 0x556c in {function} /src/leaks.c:{line}\n" in text
    # A debugger's backtrace of each thread, each as deep as its own calls: the same way.
    threads = "".join(
        f"Thread {n} (LWP {100 + n}) waits:\n  #0  0x7fff{n:04x} in futex_wait () from /lib/libc.so.6\n"
        + "".join(f"  #{depth}  0x5555{n:04x} in {_CALLERS[depth - 1]} () at pool.c:{10 * n + depth}\n" for depth in range(1, n + 1))
        + "\n"
        for n in range(1, 6)
    )
    text = shown(threads + "Done: 5 threads.\n")
    for n in range(1, 6):
        assert f"  #0  0x7fff{n:04x} in futex_wait () from /lib/libc.so.6\n  #1  0x5555{n:04x} in pop () at pool.c:{10 * n + 1}" in text


def _tap_diagnostics(dates: list[tuple[str, int, int]]) -> str:
    out = []
    for date, got, expected in dates:
        out += ["", f"#   Failed test 'iso_week({date})'", "#   at t/iso_week.t line 16.", f"#          got: '{got}'", f"#     expected: '{expected}'"]
    out += ["# Looks like you failed 9 tests of 20.", "t/iso_week.t .. ", "Result: FAIL"]
    return "\n".join(out) + "\n"


def test_failed_tap_diagnostics_fold_as_records_with_their_values_paired() -> None:
    got = [52, 53, 1, 1, 16, 53, 1, 52, 1]
    expected = [1, 1, 53, 52, 17, 52, 53, 1, 52]
    dates = [(f"20{10 + n}-12-31", got[n], expected[n]) for n in range(9)]
    visible = shown(_tap_diagnostics(dates))
    group = next(line for line in visible.splitlines() if line.startswith("[×"))
    # The date, what it got and what was expected, together; the call they share said once.
    assert "test 'iso_week(#)' | got: '#' | expected: '#': " in group
    assert "; 2015-12-31 53 52;" in group
    assert "got: ×" not in visible  # never a census of one column


def _parametrised_run(params: list[tuple[str, str]], rule: str) -> str:
    """A test runner's verbose run of one parametrised test (label line, then the case's
    parameters and verdict), then each failure's section: heading, parameters, rule."""
    out = []
    for number, (param, verdict) in enumerate(params, 1):
        out += [f"test_mod.test_parse:{number}", f"'{param}' ... {verdict}"]
    for number, (param, verdict) in enumerate(params, 1):
        if verdict != "ok":
            out += ["", "=" * 70, f"{verdict}: test_mod.test_parse:{number}", f"'{param}'", rule * 70, "Traceback (most recent call last):", f'  File "t.py", line {number}, in test_parse', f"ValueError: bad version {param}"]
    return "\n".join([*out, "", f"Ran {len(params)} tests in 0.01s", "", "FAILED (failures=1, errors=4)"]) + "\n"


PARAMS = [("1.2.3", "ok"), ("1.2", "ERROR"), ("2.0.0", "ok"), ("1.2.3.4", "ERROR"), ("0.0.1", "ok"), ("x1", "ERROR"), ("3.1.4", "ok"), ("v2", "ERROR"), ("9.9.9", "ok"), ("01.2", "FAIL")]


def test_a_failing_cases_label_stays_above_it_when_its_verdict_repeats() -> None:
    # The fourth `'…' ... ERROR` repeats the first's shape past the verbatim repeats; shown
    # after all (it is seen once more), it keeps its label, not grouped with passing labels.
    for rule in ("-", "~"):
        text = shown(_parametrised_run(PARAMS, rule))
        for number, (param, verdict) in enumerate(PARAMS, 1):
            if verdict != "ok":
                assert f"test_mod.test_parse:{number}\n'{param}' ... {verdict}" in text


def test_a_failure_headings_parameters_stay_under_it() -> None:
    for rule in ("-", "~"):
        text = shown(_parametrised_run(PARAMS, rule))
        for number, (param, verdict) in enumerate(PARAMS, 1):
            if verdict != "ok":
                assert f"{verdict}: test_mod.test_parse:{number}\n'{param}'\n{rule * 70}" in text
# Diagnostics of eight failures, each of another shape (as a real run's are).
_DIAGNOSTICS = [
    ["#          got: '2.44'", "#     expected: '2.45'"],
    ["#     Structures begin differing at:", "#          $got->[2] = 'coffee'", "#     $expected->[2] = 'tea'"],
    ["#     '4'", "#         >", "#     '5'"],
    ["#          got: undef", "#     expected: 'EUR'"],
    ["#                   'abc'", "#     doesn't match '(?^:^x)'"],
    ["#     died: Can't locate object method \"total\" via package \"Ledger\""],
    ["#          got: 'USD'", "#     expected: 'GBP'"],
    ["#          'same'", "#         ne", "#     'same'"],
]
_NAMES = ["rounds half up", "lists memos", "orders amounts", "reads currency", "matches codes", "calls total", "keeps currency", "differs"]


def _tap_failures(blank_after_heading: bool) -> str:
    """A TAP stream of failed tests, each with its diagnostics as comments directly under
    it, among passing tests; each failure's last comment is a long aside."""
    out = ["t/money.t .. "]
    for n, diagnostics in enumerate(_DIAGNOSTICS, start=1):
        name = _NAMES[n - 1]
        out += [f"ok {2 * n - 1} - step {n} runs", f"not ok {2 * n} - {name}"]
        out += [""] if blank_after_heading else []
        out += [f"#   Failed test '{name}'", f"#   at t/money.t line {10 + n}.", *diagnostics]
        out += ["#     (context)", "#     (more context)", f"#     aside on step {n} for the curious"]
    out += [f"1..{2 * len(_DIAGNOSTICS)}", f"# Looks like you failed {len(_DIAGNOSTICS)} tests of {2 * len(_DIAGNOSTICS)}.", "Result: FAIL"]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("blank_after_heading", [True, False])
def test_comment_diagnostics_under_a_failed_test_are_its_detail(blank_after_heading: bool) -> None:
    visible = shown(_tap_failures(blank_after_heading))
    # Past `sections_in_full`, every failure keeps the first comments under it.
    for n, diagnostics in enumerate(_DIAGNOSTICS, start=1):
        name = _NAMES[n - 1]
        assert f"not ok {2 * n} - {name}" in visible
        assert f"#   Failed test '{name}'\n#   at t/money.t line {10 + n}.\n{diagnostics[0]}\n" in visible
    assert "#     Structures begin differing at:\n#          $got->[2] = 'coffee'\n#     $expected->[2] = 'tea'\n" in visible
    # Beyond them, a condensed failure keeps only what reads as detail.
    assert "#     aside on step 8 for the curious" not in visible


def test_a_failed_test_line_without_a_body_heads_only_the_comments_under_it() -> None:
    text = "\n".join(["not ok 1 - opens the ledger", "ok 2 - counts", "cannot open ledger.csv", "ok 3 - sums"]) + "\n"
    data = text.encode()
    sections = failure_sections(lines_and_templates(data)[0])
    assert sections is not None and list(sections) == [1, 0, 0, 0]
    commented = "\n".join(["not ok 1 - opens the ledger", "# got: 1", "# expected: 2", "ok 2 - counts"]) + "\n"
    sections = failure_sections(lines_and_templates(commented.encode())[0])
    assert sections is not None and list(sections) == [1, 1, 1, 0]


def test_one_line_failures_cut_at_several_widths_fold_into_one_line_naming_each_value() -> None:
    out = ["=" * 20 + " short test summary info " + "=" * 20]
    failed = []
    for n in range(20):
        weight, got = 250 + 400 * n, 649 + 156 * n
        line = f"FAILED test_rates.py::test_zone_b_cost[{weight}] - AssertionError: "
        line += f"assert {got} == {got + 156}"
        failed.append(line[:77] + "..." if len(line) > 80 else line)
    visible = shown("\n".join([*out, *failed, "20 failed in 0.5s"]) + "\n")
    assert line_shown.not_shown(tuple(failed), visible) == ()
    group = next(line for line in visible.splitlines() if line.startswith("[×"))
    # The weights by their rule, each failure's own value in a row: every value named.
    assert "test_zone_b_cost[1450 to 7850 step 400]" in group and "assert 1117 to 3613 step 156" in group
    # Shown whole: the two lines short enough to print uncut, and the first of those cut.
    assert sum(line.startswith("FAILED") for line in visible.splitlines()) == 3


def test_many_one_line_diagnostics_with_paired_values_fold_into_rows_counted_alone() -> None:
    # A type checker's redefinitions: the location, the name and the earlier line vary
    # together; none is shown whole above, so the group line counts them alone.
    names = ["load", "save", "parse", "emit", "fetch", "close", "open", "merge", "split"]
    out = [
        f'pkg/mod_{n:02}.py:{10 + n * 7}: error: Name "{name}" already defined on line {n * 3}  [no-redef]'
        for n, name in enumerate(names)
    ]
    visible = shown("\n".join([*out, "Found 9 errors in 9 files (checked 9 source files)"]) + "\n")
    assert line_shown.not_shown(tuple(out), visible) == ()
    group = next(line for line in visible.splitlines() if line.startswith("[×"))
    assert group.startswith("[×9] ") and "more like the one above" not in group
    assert "pkg/mod_04.py:38 fetch" in group  # each record's values side by side


# --- a run's closing list of failures its sections told ------------------------------------


def _told_then_listed(ids: list[str], summary: str) -> str:
    """Failure sections of one test per id (pytest's shape), then the run's closing list of
    them in `summary`'s form (`FAILED t.py::{name} - …`, `ERROR t.py::{name} - …`)."""
    out = ["=" * 20 + " FAILURES " + "=" * 20]
    for n, case in enumerate(ids):
        out += ["_" * 10 + f" test_rate[{case}] " + "_" * 10, "", "    def test_rate(case):"]
        out += [">       assert convert(case) == expected(case)", f"E       assert {n} == {n + 1}", ""]
        out += ["tests/test_rates.py:14: AssertionError"]
    out += ["=" * 10 + " short test summary info " + "=" * 10]
    out += [summary.format(name=f"test_rate[{case}]") for case in ids]
    return "\n".join([*out, f"{len(ids)} failed in 0.5s"]) + "\n"


@pytest.mark.parametrize(
    "summary",
    ["FAILED tests/test_rates.py::{name} - Error: ass...", "ERROR tests/test_rates.py::{name} - K..."],
    ids=["failed", "error"],
)
def test_failures_a_run_lists_after_telling_them_are_one_group_line_of_their_shape(summary: str) -> None:
    ids = [f"{currency}-{amount}" for currency in ("EUR", "GBP", "CHF") for amount in (10, 25, 40)]
    visible = shown(_told_then_listed(ids, summary))
    listed = [summary.format(name=f"test_rate[{case}]") for case in ids]
    # No example is shown, and no id listed a third time: each was told in its section,
    # whose heading or group line names it above.
    assert not any(line in visible for line in listed)
    head, tail = summary.format(name="test_rate[#]").split(" - ")
    assert f"[×9] {head} - {tail} {{{line_shown.TOLD_ABOVE}}}" in visible
    assert visible.index("test_rate[EUR-10]") < visible.index(line_shown.TOLD_ABOVE)
    assert line_shown.not_shown(tuple(listed), visible) == ()


def test_a_few_failures_a_run_lists_after_telling_them_are_one_group_line_too() -> None:
    visible = shown(_told_then_listed(["EUR-10", "GBP-25"], "FAILED tests/test_rates.py::{name} - assert 0"))
    told = f"[×2] FAILED tests/test_rates.py::test_rate[#] - assert 0 {{{line_shown.TOLD_ABOVE}}}"
    assert told in visible
    # One alone is no group: it stays as printed.
    visible = shown(_told_then_listed(["EUR-10"], "FAILED tests/test_rates.py::{name} - assert 0"))
    assert "\nFAILED tests/test_rates.py::test_rate[EUR-10] - assert 0\n" in visible


@pytest.mark.parametrize(
    "progress",
    ["tests/test_rates.py::{name} FAILED", "test tests::{name} ... FAILED"],
    ids=["pytest-v", "cargo-test"],
)
def test_failures_a_run_names_before_telling_them_are_not_told_above(progress: str) -> None:
    ids = ["EUR-10", "GBP-25"]
    lines = [progress.format(name=f"test_rate[{case}]") for case in ids]
    run = "\n".join(["collected 2 items", *lines]) + "\n"
    visible = shown(run + _told_then_listed(ids, "FAILED t.py::{name} - x"))
    assert all(line in visible for line in lines)  # a few progress lines, each as printed
    assert visible.count(line_shown.TOLD_ABOVE) == 1  # the closing list alone


def test_failure_lines_naming_no_told_failure_keep_their_examples() -> None:
    text = _told_then_listed(["EUR-10", "GBP-25"], "FAILED tests/test_rates.py::{name} - assert 0")
    cases = ("a-1", "b-2", "c-3", "d-4", "e-5")
    others = [f"FAILED tests/test_cost.py::test_cap[{case}] - assert 0" for case in cases]
    visible = shown(text + "\n".join(others) + "\n")
    assert all(line in visible for line in others[:3])  # three examples, as any anomaly's
    assert "[×2] FAILED tests/test_cost.py::test_cap[{d-4, e-5}] - assert 0" in visible


def test_a_failure_is_told_by_its_headings_id_never_by_a_plain_word() -> None:
    text = [
        "_" * 10 + " test_rate[EUR-10] " + "_" * 10, "E   assert 1 == 2", "",
        "---- tests::parse stdout ----", "thread panicked", "",
        "--- FAIL: TestParse (0.00s)", "    parse_test.go:12: got 1", "",
        "not ok 3 - rounds", "#   Failed test 'round'", "#   at t/r.t line 4.", "",
    ]
    lines, _ = lines_and_templates(("\n".join(text) + "\n").encode())
    sections = failure_sections(lines)
    assert sections is not None
    assert told_names(lines, sections) == {b"test_rate[EUR-10]", b"tests::parse", b"TestParse"}
