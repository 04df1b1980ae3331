"""Log optimizer: a linter's diagnostics are counted by rule code, every code with its
count in one line under the header, whichever groups its lines fold into."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.log import optimizer as log
from tokenlab.optimizers.log.codes import MAX_CODES_SHOWN, census, code_of
from tokenlab.optimizers.log.optimizer import LogLimits

FIXTURES = Path(__file__).parent.parent / "fixtures" / "real"
FOLDING = LogLimits(small_input_bytes=0, closing_lines_default=0)
_ANSI_RE = re.compile(rb"\x1b\[[0-9;]*m")


def shown(data: bytes) -> str:
    return render_preview(log.optimize(data, OptimizerConfig(Granularity.COARSE), FOLDING))


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"click/__init__.py:10:1: F401 '.core.Argument' imported but unused", "F401"),
        (b"jsonschema/cli.py:15:0: E0401: Unable to import 'attrs' (import-error)", "E0401"),
        (b'pkg/a.py:28: [R1705(no-else-return), f] Unnecessary "else" after "return"', "R1705"),
        (b"Dockerfile:3 DL3008 warning: Pin versions in apt get install", "DL3008"),
        (b"src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.", "TS2322"),
        (b"x.sh:3:6: note: Double quote to prevent globbing and word splitting. [SC2086]", "SC2086"),
        (b"a.c:3:5: warning: unused variable 'x' [-Wunused-variable]", "-Wunused-variable"),
        (b"pkg/a.py:3: error: Missing return statement  [return]", "return"),
    ],
)
def test_the_code_of_each_linter_s_line(line: bytes, code: str) -> None:
    assert code_of(line) == code


@pytest.mark.parametrize(
    "line",
    [
        b"a.c:3:5: error: expected ';' before '}' token",
        b"2024-05-01 12:00:01 INFO started worker 3",
        b"  3:5  error  Unexpected var  no-var",
        b"Found 3 errors in 2 files (checked 5 source files)",
    ],
)
def test_lines_without_a_code_have_none(line: bytes) -> None:
    assert code_of(line) is None


def _flake8(counts: dict[str, int]) -> bytes:
    """flake8's output: each code's lines spread over files, one message naming an error."""
    messages = {
        "E501": "line too long ({} > 79 characters)",
        "F401": "'pkg.mod{}' imported but unused",
        "E231": "missing whitespace after ','",
        "F811": "redefinition of unused 'ValueError' from line {}",
    }
    lines = []
    for code, count in counts.items():
        for i in range(count):
            lines.append(f"pkg/m{i % 7}.py:{10 + i}:{1 + i % 5}: {code} {messages[code].format(80 + i)}")
    lines.sort(key=lambda line: (line.split(":")[0], int(line.split(":")[1])))
    return ("\n".join(lines) + "\n").encode()


def test_every_code_is_named_with_its_count() -> None:
    counts = {"E501": 40, "F401": 12, "E231": 7, "F811": 3}
    visible = shown(_flake8(counts))
    assert visible.splitlines()[1] == "[codes: E501 ×40, F401 ×12, E231 ×7, F811 ×3]"  # under the header


def test_a_few_diagnostics_each_with_its_own_code_need_no_census() -> None:
    visible = shown(_flake8({"E501": 1, "F401": 1, "F811": 1}) + b"idle\n" * 40)
    assert "[codes:" not in visible


def test_the_census_names_the_most_frequent_codes_and_counts_the_rest() -> None:
    counts = Counter({f"E{100 + i}": 200 - i for i in range(MAX_CODES_SHOWN + 3)})
    line = census(counts)
    assert line.startswith("[codes: E100 ×200, E101 ×199, ")
    assert f"E{100 + MAX_CODES_SHOWN - 1} ×" in line and f"E{100 + MAX_CODES_SHOWN} ×" not in line
    rest = sum(200 - i for i in range(MAX_CODES_SHOWN, MAX_CODES_SHOWN + 3))
    assert line.endswith(f", … +3 more codes ({rest:,} lines: E… ×{rest:,})]\n")


def test_the_codes_not_named_are_counted_by_the_letters_they_start_with() -> None:
    """Whether an error's code hides among them is what a reader asks of the rest."""
    counts = Counter({f"C{100 + i}": 100 for i in range(MAX_CODES_SHOWN)}) + Counter({"R0911": 3, "W0311": 2, "R0801": 1})
    assert census(counts).endswith(", … +3 more codes (6 lines: R… ×4, W… ×2)]\n")
    unnumbered = Counter({f"C{100 + i}": 100 for i in range(MAX_CODES_SHOWN)}) + Counter({"-Wshadow": 3})
    assert census(unnumbered).endswith(", … +1 more codes (3 lines)]\n")


@pytest.mark.parametrize(
    "name",
    [
        "flake8_dill_4_modules.log",
        "pycodestyle_platformdirs.log",
        "pylint_parseable_platformdirs.log",
        "pylint_colorized_tomlkit.log",
        "shellcheck_gcc_git_contrib.log",
        "gcc_wextra_python_ext.log",
        "mypy_strict.log",
    ],
)
def test_real_linter_output_counts_match_the_raw_lines(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    expected = Counter(code for line in data.splitlines() if (code := code_of(_ANSI_RE.sub(b"", line))))
    visible = shown(data)
    found = re.search(r"^\[codes: (.*)\]$", visible, re.MULTILINE)
    assert found is not None
    counted = dict(re.findall(r"(\S+) ×([\d,]+)", found[1]))
    named = {code: count for code, count in counted.items() if not code.endswith("…")}
    assert named, found[1]
    for code, count in named.items():
        assert int(count.replace(",", "")) == expected[code], code
    assert list(named) == [code for code, _ in expected.most_common(len(named))]
    rest = Counter({code: count for code, count in expected.items() if code not in named})
    for family, count in counted.items() - named.items():  # the rest, by the letters they start with
        letters = family.rstrip("…")
        in_family = sum(n for code, n in rest.items() if re.match(rf"{letters}\d", code))
        assert int(count.replace(",", "")) == in_family, family


def test_codes_that_differ_only_in_digits_are_counted_apart() -> None:
    """`N801` and `N802` lines with one message share a template (digits become `#`)."""
    lines = [f"pkg/m{i}.py:{i + 1}:1: N80{1 + i % 2} name 'X' should be lowercase" for i in range(9)]
    visible = shown(("\n".join(lines) + "\n").encode())
    assert "[codes: N801 ×5, N802 ×4]" in visible


def test_no_census_when_every_diagnostic_is_shown() -> None:
    """Lines of progress fold; the six diagnostics stay whole and count themselves."""
    progress = "".join(f"12:00:{i:02} building module {i}\n" for i in range(40))
    diagnostics = "".join(
        f"src/m{i}.ts({i + 1},5): error TS2{300 + i % 2}: Type 'x{i}' is wrong.\n" for i in range(6)
    )
    visible = shown((progress + diagnostics).encode())
    assert "building module" in visible and "[×" in visible  # the progress lines fold
    assert "src/m5.ts(6,5): error TS2301" in visible
    assert "[codes:" not in visible


@pytest.mark.parametrize(
    ("line", "rare"),
    [
        ("pkg/m{n:02}.py:{n}:4: C{code}: Name {word} breaks the naming style (invalid-name)",
         "pkg/tests/t.py:1897:12: E0213: Method 'resolving' should have \"self\" as first argument (no-self-argument)"),
        ("pkg/m{n:02}.py:{n}:1: E{code} line about {word} too long",
         "pkg/tests/t.py:44:5: B006 Do not use mutable data structures for argument defaults"),
    ],
)
def test_every_code_the_census_counts_shows_an_example(line: str, rare: str) -> None:
    # A long run of distinct lines folds to its head and tail: the one line of a code seen
    # nowhere else, in its middle, stays visible.
    words = [chr(97 + n % 26) + chr(97 + n // 26) + "x" for n in range(40)]  # one template each
    lines = [line.format(n=n, code=501 + n % 2 * 100, word=word) for n, word in enumerate(words)]
    data = ("\n".join([*lines[:20], rare, *lines[20:]]) + "\n").encode()
    visible = shown(data)
    code = code_of(rare.encode())
    assert code is not None and f"{code} ×1" in visible
    assert rare in visible
    assert "more lines]" in visible  # the run still folds around it
