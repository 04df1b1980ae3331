"""JSON paths over a ref's bytes: the span found is the subtree `json.loads` finds, byte for byte.

Every walk is run three ways: as it runs on small refs, with the structure scan forced and
cut into chunks of a few bytes (so strings, escapes and brackets straddle chunk edges),
and with that scan's patterns made shallow (so its slow path for deep nesting runs too).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenlab.errors import InputError
from tokenlab.refs import json_path
from tokenlab.refs.expand import RefQuery, expand_data
from tokenlab.refs.json_path import Walker, parse_path, path_name

MODES = ("plain", "chunked", "shallow")


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    json_path._r_patterns.cache_clear()
    if request.param != "plain":
        monkeypatch.setattr(json_path, "_CHUNK", 5)
        monkeypatch.setattr(json_path, "_SMALL_WINDOW", 0)
        monkeypatch.setattr(json_path, "_STEP_LIMIT", 0)
        monkeypatch.setattr(json_path, "_BATCH", 5)
        monkeypatch.setattr(json_path, "_FEW", 2)
    if request.param == "shallow":
        monkeypatch.setattr(json_path, "_R_DEPTH", 1)
    yield request.param
    json_path._r_patterns.cache_clear()


TEXT = st.text(st.sampled_from('ab"\\[]{},:é€😀 \n\t\x00/'), max_size=8)
SCALARS = st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.floats(allow_nan=False) | TEXT
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(TEXT, inner, max_size=5),
    max_leaves=30,
)


def dump(value: Any, rng: random.Random) -> str:
    """JSON text with random whitespace between tokens and random escaping of non-ASCII."""

    def ws() -> str:
        return "".join(rng.choice(" \t\n\r") for _ in range(rng.choice((0, 0, 1, 3))))

    if isinstance(value, list):
        return "[" + ws() + ",".join(ws() + dump(item, rng) + ws() for item in value) + ws() + "]"
    if isinstance(value, dict):
        members = (
            ws() + scalar(key, rng) + ws() + ":" + ws() + dump(item, rng) + ws()
            for key, item in value.items()
        )
        return "{" + ws() + ",".join(members) + ws() + "}"
    return scalar(value, rng)


def scalar(value: Any, rng: random.Random) -> str:
    return json.dumps(value, ensure_ascii=rng.random() < 0.5)


def paths(value: Any, rng: random.Random) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Paths into `value` (negative indexes too) with the subtree at each."""
    path: tuple[str | int, ...] = ()
    yield path, value
    while isinstance(value, (list, dict)) and value:
        if isinstance(value, list):
            index = rng.randrange(len(value))
            path += (index if rng.random() < 0.5 else index - len(value),)
            value = value[index]
        else:
            key = rng.choice(list(value))
            path += (key,)
            value = value[key]
        yield path, value


def same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(max_examples=150, deadline=None)
@given(value=VALUES, seed=st.integers(0, 2**32))
def test_every_path_is_the_exact_span_of_its_subtree(value: Any, seed: int) -> None:
    for name in MODES:
        with pytest.MonkeyPatch.context() as patch:
            if name != "plain":
                patch.setattr(json_path, "_CHUNK", 5)
                patch.setattr(json_path, "_SMALL_WINDOW", 0)
                patch.setattr(json_path, "_STEP_LIMIT", 0)
                patch.setattr(json_path, "_BATCH", 5)
                patch.setattr(json_path, "_FEW", 2)
            if name == "shallow":
                patch.setattr(json_path, "_R_DEPTH", 1)
            json_path._r_patterns.cache_clear()
            rng = random.Random(seed)
            data = (dump(value, rng) + rng.choice(("", "\n", " \r\n"))).encode()
            for path, expected in paths(value, rng):
                start, end = Walker(data, "ctx_t").locate(path)
                span = data[start:end]
                assert same(json.loads(span), expected), (name, path)
                assert span == span.strip(b" \t\r\n")
    json_path._r_patterns.cache_clear()


@settings(max_examples=150, deadline=None)
@given(value=VALUES, seed=st.integers(0, 2**32), cut=st.integers(0, 10**6), byte=st.integers(0, 255))
def test_damaged_json_gives_an_answer_or_a_one_line_input_error(
    value: Any, seed: int, cut: int, byte: int
) -> None:
    rng = random.Random(seed)
    data = bytearray(dump(value, rng).encode())
    if data:
        at = cut % len(data)
        data = data[:at] if byte % 2 else data[:at] + bytes([byte]) + data[at + 1 :]
    for path, _ in paths(value, rng):
        try:
            expand_data(bytes(data), RefQuery(json_path=path_name(path)), ref_id="ctx_t")
        except InputError as error:
            assert "\n" not in str(error)


def test_a_key_with_a_line_break_is_quoted_in_paths_and_errors() -> None:
    assert path_name(("a\nb", 0)) == '$["a\\nb"][0]'
    with pytest.raises(InputError) as error:
        expand_data(b"[1]", RefQuery(json_path=path_name((-1, ':::"\n\U0001f600'))), ref_id="ctx_t")
    assert "\n" not in str(error.value)


BIG = (
    b'{"meta": {"note": "a \\"quoted\\" ] } [ { text, with \\\\ escapes"},\n'
    + b'"items": ['
    + b",\n".join(
        b'{"id": %d, "tags": ["x", "y,]"], "error": %s}' % (n, b'{"code": %d}' % n if n % 7 == 0 else b"null")
        for n in range(500)
    )
    + b'],\n"numbers": ['
    + b", ".join(b"%d" % n for n in range(1000))
    + b'],\n"deep": '
    + b'{"a": [' * 150
    + b'"bottom"'
    + b"]}" * 150
    + b',\n"tail": "\\u00e9t\xc3\xa9 \\ud83d\\ude00"}\n'
)


@pytest.mark.parametrize(
    "path",
    [
        "items[0]",
        "items[63]",
        "items[64]",
        "items[497].error",
        "items[-1]",
        "items[-500].tags[-1]",
        "numbers[999]",
        "numbers[-1000]",
        "numbers[512]",
        "meta.note",
        "deep" + ".a[0]" * 149,
        "deep" + ".a[0]" * 150,
        "tail",
        "items",
    ],
)
def test_large_shapes_in_every_mode(path: str, mode: str) -> None:
    expected: Any = json.loads(BIG)
    for segment in parse_path(path):
        expected = expected[segment]
    start, end = Walker(BIG, "ctx_t").locate(parse_path(path))
    shown = expand_data(BIG, RefQuery(json_path=path, budget_tokens=10**6), ref_id="ctx_t")
    assert shown.raw == BIG[start:end] and same(json.loads(shown.raw), expected)
    first, last = BIG.count(b"\n", 0, start) + 1, BIG.count(b"\n", 0, end - 1) + 1
    assert shown.ranges == ((first, last),)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("items[500]", "$.items has 500 elements; [500] is out of range"),
        ("items[-501]", "$.items has 500 elements; [-501] is out of range"),
        ("numbers[1000]", "$.numbers has 1000 elements"),
        ("meta.nope", "no key 'nope' in $.meta (keys: note)"),
        ("tail[0]", "$.tail is a scalar"),
    ],
)
def test_out_of_range_in_every_mode(path: str, message: str, mode: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        expand_data(BIG, RefQuery(json_path=path), ref_id="ctx_t")


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (b"", "a"),
        (b"   ", "[0]"),
        (b'{"a": [1, 2}', "a"),
        (b'{"a": [1, 2, {"b": "unterminated}]}', "a"),
        (b'{"a" 1}', "a"),
        (b'{"a": [1, 2]', "b"),
        (b'{"a": tru}', "a"),
        (b'{"a": [1,, 2]}', "a"),
        (b'["\xff"]', "[0]"),
        (b'{"\xff": 1, "a": 2}', "a"),
        (b"[" * 5000, "[0]"),
        (b"[" * 5000, "[-1]"),
        (b'{"a": "x' + b"\\" * 3 + b'"}', "a"),
        (b"[1, 2, 3" + b", 4" * 100, "[-1]"),
    ],
)
def test_malformed_json_is_a_one_line_input_error(data: bytes, path: str, mode: str) -> None:
    with pytest.raises(InputError, match="is not JSON") as raised:
        expand_data(data, RefQuery(json_path=path), ref_id="ctx_t")
    assert "\n" not in str(raised.value)


def test_deep_nesting_beyond_the_old_recursion_limit() -> None:
    data = b"[" * 3000 + b"7" + b"]" * 3000
    shown = expand_data(data, RefQuery(json_path="[0]" * 3000))
    assert shown.raw == b"7"
    assert expand_data(data, RefQuery(json_path="[0]" * 10, budget_tokens=10**5)).raw == data[10:-10]


def test_an_element_counted_from_the_end_of_a_damaged_array_gives_an_answer_or_an_input_error() -> None:
    # Two arrays with no comma between them: the walk back from the end stops short of
    # the element counted by the commas (found by hypothesis; it once raised AssertionError).
    data = b"[1,[],[null,[null,null],false,[null]], [] \x00 [] ]"
    for index in (-1, -2, -3, -4, 2):
        try:
            expand_data(data, RefQuery(json_path=f"$[{index}]"), ref_id="ctx_t")
        except InputError as error:
            assert "\n" not in str(error)
