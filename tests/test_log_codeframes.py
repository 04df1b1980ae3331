"""Framed records in any frame style (`log/codeframes.py`): one example per rule and
message, the others listed by location in one group line per rule; never merged line by
line with another record's lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Golden, render_preview
from tests.test_log import COARSE, FINE, assert_covered, assert_in_order, omissions
from tokenlab.classify import classify
from tokenlab.optimizers import ContentType
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.log import optimizer as log
from tokenlab.optimizers.log.codeframes import find_records
from tokenlab.optimizers.log.model import DEFAULT_LIMITS
from tokenlab.optimizers.log.templates import lines_and_templates

REAL = Path(__file__).parent.parent / "fixtures" / "real"
# Real captures of three linters, each printing 130 to 340 framed diagnostics.
REAL_FIXTURES = ("biome_lint_arborist.log", "eslint_codeframe_arborist_lib.log", "shellcheck_tty_apt_key_bashbug_more.log")


@pytest.mark.parametrize("name", REAL_FIXTURES)
def test_real_framed_output_golden(name: str, golden: Golden) -> None:
    golden.check(f"log/real__{name}.coarse.txt", render_preview(log.optimize((REAL / name).read_bytes(), COARSE)))


@pytest.mark.parametrize("name", REAL_FIXTURES)
def test_real_framed_output_keeps_its_signals_and_every_line(name: str) -> None:
    data = (REAL / name).read_bytes()
    result = log.optimize(data, FINE)
    shown = render_preview(result)
    signals = (REAL / f"{name}.signals").read_text(encoding="utf-8").splitlines()
    assert line_shown.not_shown((*filter(None, signals), *result.signals), shown) == ()
    assert_covered(data, result)
    assert len(shown) < 0.35 * len(data)


# --- the shapes of three tools, written out --------------------------------------------


def _box_record(path: str, line: int, rule: str, marker: str, message: str, source: str) -> str:
    """A header with the location first and a drawn rule, a message, a `│` frame with a
    `>` on the line pointed at, a note and a fix diff (biome's shape)."""
    return (
        f"{path}:{line}:7 {rule}  FIXABLE  {'━' * (60 - len(path))}\n\n"
        f"  {marker} {message}\n  \n"
        f"    {line - 1} │   const before = 1\n"
        f"  > {line} │   {source}\n"
        f"       │   {'^' * len(source)}\n"
        f"    {line + 1} │   const after = 2\n  \n"
        f"  i Unsafe fix: Rewrite it.\n  \n"
        f"    {line} │ - {source}\n"
        f"    {line} │ + {source.upper()}\n  \n\n"
    )


def _box_run(count: int) -> str:
    text = "".join(
        _box_record(f"src/mod{n % 5}.js", 10 + 3 * n, "lint/style/useTemplate", "i", "Template literals are preferred.", f"x{n} = a + b")
        for n in range(count)
    )
    text += _box_record("src/run.js", 88, "lint/suspicious/noDoubleEquals", "×", "Use === instead of ==.", "if (a == b)")
    return text + f"Checked 9 files in 20ms. No fixes applied.\nFound {count + 1} infos.\n"


def _codeframe_record(severity: str, message: str, rule: str, path: str, line: int, source: str) -> str:
    """A header ending with the location, then a `|` frame with a `>` and a caret (eslint's
    codeframe shape)."""
    return (
        f"{severity}: {message} ({rule}) at {path}:{line}:5:\n"
        f"  {line - 1} |   let a = 1\n"
        f"> {line} |   {source}\n"
        f"    |   ^\n"
        f"  {line + 1} | }}\n\n\n"
    )


def _codeframe_run(count: int) -> str:
    text = "".join(
        _codeframe_record("error", f"Assignment to function parameter 'p{n}'", "no-param-reassign", f"lib/f{n // 10}.js", 20 + n, f"p{n} += 1")
        for n in range(count)
    )
    text += _codeframe_record("warning", "Unnecessary 'else' after 'return'", "no-else-return", "lib/g.js", 7, "} else {")
    return text + f"{count} errors and 1 warning found.\n"


def _caret_record(path: str, line: int, labels: list[str], fix: str | None) -> str:
    """A location said in words, the source line, a labelled caret line per diagnostic and
    maybe a `Did you mean:` block (shellcheck's tty shape)."""
    text = f"\nIn {path} line {line}:\n  exit $r $s\n" + "".join(f"       ^-- {label}\n" for label in labels)
    if fix is not None:
        text += f"\nDid you mean: \n  {fix}\n"
    return text + "\n"


_QUOTE = "SC2086 (info): Double quote to prevent globbing and word splitting."
_BACKTICKS = "SC2006 (style): Use $(...) notation instead of legacy backticks `...`."


def _caret_run(count: int, files: int = 3) -> str:
    text = "".join(
        _caret_record(f"script{n % files}", 10 + n, [_QUOTE, _BACKTICKS] if n % 2 else [_QUOTE], 'exit "$r"' if n % 2 else None)
        for n in range(count)
    )
    text += _caret_record("zdiff", 138, ["SC1105 (error): Shells disambiguate (( differently."], None)
    return text + "For more information:\n  https://www.shellcheck.net/wiki/SC1105 -- Shells disambiguate\n"


def _group_lines(shown: str) -> list[str]:
    return [line for line in shown.splitlines() if line.startswith("[×")]


# --- one example per rule, every location listed -------------------------------------------


def test_a_box_drawn_frame_shows_one_example_per_rule_with_its_fix() -> None:
    data = _box_run(30).encode()
    shown = render_preview(log.optimize(data, COARSE))
    assert shown.count("  > 10 │   x0 = a + b") == 1 and "    10 │ + X0 = A + B" in shown
    assert "src/run.js:88:7 lint/suspicious/noDoubleEquals" in shown and "  × Use === instead of ==." in shown
    (group,) = _group_lines(shown)
    assert group.startswith("[×29 more of this rule, 30 in all] lint/style/useTemplate FIXABLE … i Template literals are preferred. {")
    headers = [line.split(" FIXABLE")[0] for line in data.decode().splitlines() if "FIXABLE" in line]
    assert line_shown.not_shown(tuple(headers), shown) == ()
    assert "Found 31 infos." in shown


def test_records_in_colour_are_found_by_their_text_without_escapes() -> None:
    data = "".join(f"\x1b[0m{line}\x1b[0m\n" for line in _box_run(30).splitlines()).encode()
    result = log.optimize(data, COARSE)
    (group,) = _group_lines(render_preview(result))
    assert group.startswith("[×29 more of this rule, 30 in all] lint/style/useTemplate FIXABLE")
    assert_covered(data, result)


def test_a_header_ending_with_its_location_lists_each_location_with_its_values() -> None:
    data = _codeframe_run(40).encode()
    result = log.optimize(data, COARSE)
    shown = render_preview(result)
    (group,) = _group_lines(shown)
    assert group.startswith("[×39 more of this rule, 40 in all] error: Assignment to function parameter '#' (no-param-reassign) at …: {")
    assert "{lib/f0.js:21:5 p1, :22:5 p2," in group and ", lib/f1.js:30:5 p10, :31:5 p11," in group  # a file named once per run
    assert "> 20 |   p0 += 1" in shown and "warning: Unnecessary 'else' after 'return' (no-else-return) at lib/g.js:7:5:" in shown
    # Every failure line the optimizer found is shown, by its values in the group line.
    assert line_shown.not_shown(result.signals, shown) == ()


def test_a_value_that_differs_only_from_the_example_is_still_listed() -> None:
    data = _codeframe_record("error", "Bad 'a'", "r", "lib/x.js", 4, "a") + _codeframe_record("error", "Bad 'b'", "r", "lib/x.js", 8, "b")
    data += _codeframe_record("warning", "Else", "e", "lib/y.js", 9, "c")
    (group,) = _group_lines(render_preview(log.optimize(data.encode(), COARSE)))
    assert group.endswith("error: Bad '#' (r) at …: {lib/x.js:8:5 b}")


def test_several_diagnostics_at_one_location_are_each_listed_under_their_rule() -> None:
    data = _caret_run(20).encode()
    shown = render_preview(log.optimize(data, COARSE))
    groups = _group_lines(shown)
    assert [group.split("] ")[1].split(" {")[0] for group in groups] == [_QUOTE, _BACKTICKS]
    assert groups[0].startswith("[×19 more of this rule, 20 in all]") and "{In script1 line 11, In script2 line 12, In script0 line 13" in groups[0]
    assert "{In script0 line 11, 12, 13," in _group_lines(render_preview(log.optimize(_caret_run(20, files=1).encode(), COARSE)))[0]
    assert groups[1].startswith("[×9 more of this rule, 10 in all]") and "In script0 line 13" in groups[1]
    # The first record of each rule is whole: its source, carets and suggested fix.
    assert "In script1 line 11:\n  exit $r $s\n       ^-- " + _QUOTE + "\n       ^-- " + _BACKTICKS in shown
    assert 'Did you mean: \n  exit "$r"' in shown
    assert "In zdiff line 138:" in shown and "^-- SC1105 (error): Shells disambiguate (( differently." in shown
    assert "For more information:" in shown
    assert "more lines]" not in shown  # the blank lines between folded records fold with them


def test_lines_of_different_records_never_fold_together() -> None:
    for data in (_box_run(30), _codeframe_run(40), _caret_run(20)):
        shown = render_preview(log.optimize(data.encode(), COARSE))
        assert all("more of this rule" in line for line in _group_lines(shown)), shown


def test_a_single_record_of_a_rule_is_shown_whole_and_not_grouped() -> None:
    shown = render_preview(log.optimize(_codeframe_run(3).encode(), COARSE))
    assert shown.count("(no-else-return)") == 1 and "> 7 |   } else {" in shown


# --- what is not a framed record of this kind ----------------------------------------------


def _records(text: str) -> list[tuple[int, int]]:
    lines, _ = lines_and_templates(text.encode())
    return [(record.start, record.stop) for record in find_records(lines, DEFAULT_LIMITS)]


def test_a_record_ends_before_a_paragraph_at_the_margin_that_no_other_record_holds() -> None:
    text = _codeframe_run(3)
    found = _records(text)
    assert len(found) == 4 and found[-1][1] == len(text.splitlines()) - 3  # the summary is not its


def test_a_paragraph_at_the_margin_that_records_repeat_belongs_to_each() -> None:
    text = _caret_run(6)
    lines = text.splitlines()
    found = _records(text)
    assert [lines[stop - 1] for _, stop in found[:2]] == ["       ^-- " + _QUOTE, '  exit "$r"']


def test_diagnostics_without_blank_lines_between_them_are_left_to_the_diagnostic_path() -> None:
    text = "\n" + "".join(f"src/a.c:{n}:5: warning: unused variable 'v{n}'\n    {n} |   int v{n};\n      |       ^~\n" for n in range(1, 9))
    assert _records(text) == []


def test_arrow_pointer_records_are_left_to_their_own_shape() -> None:
    text = "".join(f"warning: unused variable\n --> src/a.rs:{n}:9\n  |\n{n} |   let x = 1;\n  |       ^ help: remove it\n\n" for n in range(1, 6))
    assert _records(text) == []


def test_a_traceback_s_bare_carets_make_no_frame() -> None:
    text = "".join(f"\ninv.py:{n}: ZeroDivisionError\n___ test_{n} ___\n\n    def test_{n}():\n>       x = 1 / 0\n            ^^^^^\n" for n in range(1, 6))
    assert _records(text) == []


def test_the_three_shapes_classify_as_a_log() -> None:
    for text in (_box_run(10), _codeframe_run(10), _caret_run(10)):
        assert classify(text.encode()).content_type is ContentType.LOG


# --- restore ---------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(["box", "codeframe", "caret", "plain", "blank"]), min_size=3, max_size=30),
    st.integers(min_value=1, max_value=900),
    st.booleans(),
)
def test_every_line_is_shown_or_held_exactly(kinds: list[str], seed: int, fine: bool) -> None:
    parts = []
    for n, kind in enumerate(kinds):
        line = seed + n
        if kind == "box":
            parts.append(_box_record(f"a{n % 2}.js", line, f"lint/r{n % 3}", "!", f"Message {n % 2}.", f"y = {n}"))
        elif kind == "codeframe":
            parts.append(_codeframe_record("error", f"Bad '{n}'", f"rule-{n % 2}", f"b{n % 3}.js", line, f"z{n}"))
        elif kind == "caret":
            parts.append(_caret_record(f"s{n % 2}", line, [_QUOTE] * (1 + n % 2), "fix" if n % 3 else None))
        elif kind == "plain":
            parts.append(f"INFO step {n} done\n")
        else:
            parts.append("\n")
    data = "".join(parts).encode()
    result = log.optimize(data, FINE if fine else COARSE)
    assert_covered(data, result)
    for omission in omissions(result):
        assert_in_order(data, omission)
    assert not [line for line in _group_lines(render_preview(result)) if re.match(r"\[×\d+\]\s+[|│]", line)]
