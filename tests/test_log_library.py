"""Log optimizer: frames of a chain in library code fold; the reader's own frames and every
error stay."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig, log
from tokenlab.optimizers.log import LogLimits

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
    assert "[… 4 frames in library code]" in visible
    assert "std::__insertion_sort" not in visible
    for line in _CHAIN[4:]:
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
