"""line_values: a group line never shows a varying field as constant."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from tokenlab.optimizers.lines import values as line_values

_FIELDS = st.fixed_dictionaries(
    {
        "status": st.sampled_from(["200", "201", "400", "404", "500"]),
        "path": st.sampled_from(["/api/orders", "/api/users", "/static/app.js"]),
        "id": st.integers(0, 99_999),
        "ms": st.floats(0, 2_000, allow_nan=False).map(lambda ms: f"{ms:.3f}"),
        "time": st.integers(0, 59).map(lambda s: f"10:00:{s:02d}"),
    }
)


@given(st.lists(_FIELDS, min_size=2, max_size=40), st.integers(1, 8))
def test_a_summarised_line_shows_as_constant_only_what_every_line_has(rows: list[dict[str, object]], cap: int) -> None:
    lines = [f"{r['time']} GET {r['path']}/{r['id']} status={r['status']} duration: {r['ms']} ms" for r in rows]
    shown = line_values.summarised(lines, cap)
    assert shown is not None
    # Everything outside braces must be on every line, in order, with a value where each brace is.
    pattern = re.compile(r"\S+".join(re.escape(text) for text in re.split(r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}", shown)))
    assert all(pattern.fullmatch(line) for line in lines), shown
    durations = [float(str(r["ms"])) for r in rows]
    if len(set(durations)) > 1:  # listed, tallied or a range: the greatest is always named
        assert f"{max(durations):.3f}" in shown


def test_a_status_that_varies_is_tallied_never_the_first_lines() -> None:
    lines = [f'"GET /a HTTP/1.1" {status} -' for status in ["200"] * 8 + ["500"] * 2]
    assert line_values.summarised(lines, 6) == '"GET /a HTTP/1.1" {200 ×8, 500 ×2} -'


def test_a_tally_of_a_few_names_names_every_one_whatever_the_cap() -> None:
    """A reader asked why imports fail must see each module, the rarest too."""
    modules = ["attrs"] * 6 + ["rpds"] * 3 + ["referencing"] * 4 + ["jsonschema_specifications"]
    lines = [f"E0401: Unable to import '{module}' (import-error)" for module in modules]
    shown = line_values.with_values(lines, 3)
    assert shown == "E0401: Unable to import '{attrs ×6, rpds ×3, referencing ×4, jsonschema_specifications ×1}' (import-error)"
    many = [f"E0401: Unable to import 'module_{'abcdefghijkl'[n % 12]}'" for n in range(60)]
    assert "… +" in str(line_values.with_values(many, 3))  # twelve names: the first few


def test_a_cut_list_of_locations_in_one_file_says_the_rest_are_there_too() -> None:
    """gcc, flake8, pylint alike: `{a.c:3:1 :5:1 :7:1 … +5 in this file}`."""
    gcc = [f"_wrappers.c:{n}:5: warning: cast [-Wcast-function-type]" for n in range(10, 30, 2)]
    assert line_values.with_values(gcc, 3) == "{_wrappers.c:10:5 :12:5 :14:5 … +7 in this file}: warning: cast [-Wcast-function-type]"
    flake8 = [f"{path}:{n}:1: F401 unused" for n, path in enumerate(["a/__init__.py", "a/core.py"] * 5, 1)]
    assert "in this file" not in str(line_values.with_values(flake8, 3))  # two files: not said
    assert "in this file" not in str(line_values.with_values(gcc[:3], 3))  # nothing cut


def test_a_field_with_its_own_value_on_each_line_shows_one_and_says_more() -> None:
    lines = [f"req={i:08x}g done in {i} ms" for i in range(20)]
    assert line_values.summarised(lines, 6) == "req={00000000g, …} done in {0 … 19} ms"


def test_a_line_whose_every_varying_word_is_one_example_is_left_to_the_caller() -> None:
    lines = [f"cc -c src/{name}_{n}.c -o build/{name}_{n}.o" for n in range(4) for name in ("lexer", "codec", "vm", "io", "gc")]
    assert line_values.summarised(lines, 6) is None  # shown as the first line, labelled `like`
    assert line_values.summarised(lines[:2], 6) == "cc -c src/{lexer_0, codec_0}.c -o build/{lexer_0, codec_0}.o"


def test_clock_times_show_their_range_without_the_shared_date() -> None:
    lines = ["2026-01-01T00:00:01Z ok", "2026-01-01T00:00:09Z ok", "2026-01-01T00:00:05Z ok"]
    assert line_values.summarised(lines, 6) == "{2026-01-01T00:00:01Z … 00:00:09Z} ok"


def test_varying_ids_say_they_vary_and_clock_times_give_their_range() -> None:
    lines = [f"10:00:{n:02d} req={n:04x}beef{n:03d}cafe done" for n in range(12)]
    assert line_values.summarised(lines, 6) == "{10:00:00 … 10:00:11} req={…} done"


def test_fields_read_batch_after_batch_keep_what_later_lines_change() -> None:
    """Past the first batch a field that can only count any more is not read again, but the
    rest still are: a later extreme, a later status, a later word of another shape."""
    lines = []
    for i in range(2500):  # three batches of `word_summaries`
        took = 999 if i == 2400 else i % 50
        status = "slow" if i in (1500, 2450) else "ok"
        peer = "peer=local" if i == 2300 else f"peer=node{i % 7}"
        lines.append(f"req={i:08x}g took {took}ms status={status} {peer} user-{'abcdefgh'[i % 8]}{i}")
    assert line_values.summarised(lines, 6) == (
        "req={00000000g, …} took {0ms … 999ms} {status=ok ×2498, status=slow ×2} {peer=node0, …} user-{a0, …}"
    )
    # Without the word of another shape, the peer's number shows as a range.
    lines[2300] = lines[2300].replace("peer=local", "peer=node3")
    assert "peer={node0 … node6}" in (line_values.summarised(lines, 6) or "")
