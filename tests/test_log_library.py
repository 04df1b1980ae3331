"""Log optimizer: frames of a chain in library code fold; the reader's own frames and every
error stay."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.log import library
from tokenlab.optimizers.log import optimizer as log
from tokenlab.optimizers.log.optimizer import LogLimits
from tokenlab.optimizers.log.templates import lines_and_templates

FIXTURES = Path(__file__).parent.parent / "fixtures" / "real"
FOLDING = LogLimits(small_input_bytes=0, closing_lines_default=0)


def shown(text: str) -> str:
    return render_preview(log.optimize(text.encode(), OptimizerConfig(Granularity.COARSE), FOLDING))


_STL = "/usr/include/c++/12/bits"
_CHAIN = [
    f"{_STL}/stl_uninitialized.h: In instantiation of ‘void std::f() [with T = W]’:",
    f"{_STL}/stl_algo.h:1809:14:   required from ‘void std::__insertion_sort(I, I, C)’",
    f"{_STL}/stl_algo.h:1849:25:   required from ‘void std::__final_insertion_sort(I, I, C)’",
    f"{_STL}/stl_algo.h:4853:18:   required from ‘void std::sort(I, I, C)’",
    "registry.cpp:18:18:   required from ‘std::vector<K> Registry<K, V>::keys() const’",
    "registry.cpp:31:39:   required from here",
    "registry.cpp:19:70: error: no match for ‘operator<’ (operand types are ‘const W’ and ‘const W’)",
]


def test_an_instantiation_chain_folds_its_library_steps_and_keeps_the_reader_s() -> None:
    visible = shown("\n".join(_CHAIN) + "\n")
    assert "[… 3 frames in library code]" in visible
    assert "std::__insertion_sort" not in visible
    for line in [_CHAIN[0], *_CHAIN[4:]]:  # the chain's first frame, the reader's, the error
        assert line in visible


def test_a_python_traceback_folds_library_frames_and_keeps_where_it_was_raised() -> None:
    library = "/usr/lib/python3.11/json"
    traceback = [
        "Traceback (most recent call last):",
        '  File "/srv/app/io.py", line 12, in load',
        "    return json.load(f)",
        "           ^^^^^^^^^^^^",
        f'  File "{library}/__init__.py", line 293, in load',
        "    return loads(fp.read(),",
        f'  File "{library}/__init__.py", line 346, in loads',
        "    return _default_decoder.decode(s)",
        f'  File "{library}/decoder.py", line 337, in decode',
        "    obj, end = self.raw_decode(s, idx=_w(s, 0).end())",
        f'  File "{library}/decoder.py", line 355, in raw_decode',
        '    raise JSONDecodeError("Expecting value", s, err.value) from None',
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 13 (char 12)",
    ]
    visible = shown("\n".join(traceback) + "\n")
    assert "[… 3 frames in library code]" in visible and "_default_decoder" not in visible
    for line in [*traceback[:4], *traceback[-3:]]:
        assert line in visible


def test_a_stack_trace_folds_library_frames_between_the_reader_s() -> None:
    trace = [
        "  ● cart › total",
        "",
        "    TypeError: Cannot read properties of null (reading 'reduce')",
        "",
        "      at reduce (src/cart.js:1:32)",
        "      at Object.<anonymous> (node_modules/expect/build/index.js:1824:9)",
        "      at Object.throwingMatcher [as toThrow] (node_modules/expect/build/index.js:2235:93)",
        "      at Test.run (node:internal/test_runner/test:632:25)",
        "      at Object.toThrow (__tests__/cart.test.js:8:63)",
    ]
    visible = shown("\n".join(trace) + "\n")
    assert "[… 3 frames in library code]" in visible and "throwingMatcher" not in visible
    assert (
        "at reduce (src/cart.js:1:32)" in visible
        and "at Object.toThrow (__tests__/cart.test.js:8:63)" in visible
    )


def test_a_chain_all_in_library_code_stays_whole() -> None:
    visible = shown(
        "\n".join(_CHAIN[:4]) + "\n" + f"{_STL}/stl_algo.h:90:5: error: static assertion failed\n"
    )
    assert "library code" not in visible and "std::__insertion_sort" in visible


def test_the_template_error_capture_keeps_its_errors_and_own_frames() -> None:
    visible = render_preview(
        log.optimize((FIXTURES / "gpp_template_error.log").read_bytes(), OptimizerConfig(Granularity.COARSE))
    )
    for line in (FIXTURES / "gpp_template_error.log.signals").read_text().splitlines():
        assert line in visible
    assert visible.count("frames in library code") == 2


def test_a_chained_traceback_folds_the_library_frames_of_its_cause_too() -> None:
    data = (FIXTURES / "python_urlopen_traceback.log").read_bytes()
    visible = render_preview(log.optimize(data, OptimizerConfig(Granularity.COARSE)))
    assert "[… 7 frames in library code]" in visible  # the cause: all in http.client, socket
    assert "[… 5 frames in library code]" in visible  # urllib, between fetch.py and the raise
    for line in (FIXTURES / "python_urlopen_traceback.log.signals").read_text().splitlines():
        assert line in visible


def test_pytest_short_tracebacks_fold_library_frames_between_the_test_and_the_raise() -> None:
    data = (FIXTURES / "pytest_tb_short_library_frames.log").read_bytes()
    visible = render_preview(log.optimize(data, OptimizerConfig(Granularity.COARSE)))
    assert "[… 2 frames in library code]" in visible and "json/__init__.py:346" not in visible
    assert "[… 3 frames in library code]" in visible and "_parser.py:326" not in visible
    for line in (FIXTURES / "pytest_tb_short_library_frames.log.signals").read_text().splitlines():
        assert line in visible


def test_tap_stack_frames_without_at_fold_like_any_other() -> None:
    stack = [
        "  stack: |-",
        "    parseDuration (file:///srv/app/duration.mjs:9:17)",
        "    TestContext.<anonymous> (file:///srv/app/duration.test.mjs:23:36)",
        "    Test.runInAsyncScope (node:async_hooks:206:9)",
        "    Test.run (node:internal/test_runner/test:796:25)",
        "    Suite.processPendingSubtests (node:internal/test_runner/test:526:18)",
        "    async Suite.processPendingSubtests (node:internal/test_runner/test:526:7)",
        "  ...",
    ]
    visible = shown("not ok 3 - hours\n  ---\n  error: 'bad duration: 1h'\n" + "\n".join(stack) + "\n")
    assert "[… 3 frames in library code]" in visible and "Test.runInAsyncScope" not in visible
    assert stack[1] in visible and stack[2] in visible and stack[-2] in visible


def test_rust_backtraces_and_jdk_frames_fold_their_standard_library_frames() -> None:
    std = "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src"
    rust = [
        "stack backtrace:",
        "   0: __rustc::rust_begin_unwind",
        f"             at {std}/panicking.rs:689:5",
        "   1: core::panicking::panic_fmt",
        f"             at {std}/panicking.rs:80:14",
        "   2: core::panicking::assert_failed_inner",
        f"             at {std}/panicking.rs:434:23",
        "   3: rangeset::tests::merges_adjacent",
        "             at ./src/lib.rs:66:9",
    ]
    visible = shown("\n".join(rust) + "\n")
    assert "[… 2 frames in library code]" in visible and "panic_fmt" not in visible
    assert "             at ./src/lib.rs:66:9" in visible
    java = [
        "java.lang.ArithmeticException: Invalid operation",
        "\tat java.base/java.math.BigDecimal.pow(BigDecimal.java:2482)",
        "\tat com.example.calc.Interest.compound(Interest.java:14)",
        "\tat java.base/java.lang.reflect.Method.invoke(Method.java:569)",
        "\tat java.base/java.util.stream.ReferencePipeline$3$1.accept(ReferencePipeline.java:197)",
        "\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1511)",
        "\tat java.base/java.lang.Thread.run(Thread.java:840)",
    ]
    visible = shown("\n".join(java) + "\n")
    assert "[… 3 frames in library code]" in visible and "ReferencePipeline" not in visible
    assert java[1] in visible and java[2] in visible and java[-1] in visible


_FRAME_PIECES = [
    b" ", b"\t", b"\x0b", b"\r", b"\n", b"\r\n", b"at ", b"from ", b"Test.run", b" (a.js:1:2)", b"x.c:12:3",
    b":", b",", b"required from ", b"recursively ", b"In file included from ", b'File "a.py", line 3',
    b"a.py:12: in f", b"4: x", b"C:\\x.h", b"x.h: In instantiation of", b"(", b")", b"word",
]


@given(st.lists(st.sampled_from(_FRAME_PIECES), max_size=60).map(b"".join))
@settings(max_examples=400, deadline=None)
def test_frames_found_by_one_scan_are_those_read_line_by_line(data: bytes) -> None:
    # `_chains` visits only the lines a scan of the whole input names; reading every line
    # must find the same chains.
    lines, _ = lines_and_templates(data)
    by_line: list[list[range]] = []
    i = 0
    while i < len(lines):
        frames = []
        while i < len(lines) and (frame := library._frame(lines, i)) is not None:
            frames.append(frame)
            i = frame.stop
        if frames:
            by_line.append(frames)
        else:
            i += 1
    assert library._chains(lines) == by_line
