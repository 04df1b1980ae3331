"""Drill-down into refs: every option, exact line numbers, budgets never exceeded."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenlab.counting import tokens
from tokenlab.errors import InputError, RefNotFoundError
from tokenlab.refs.expand import (
    LineIndex,
    RefQuery,
    expand_data,
    expand_ref,
    find_matches,
    folded,
    parse_path,
)
from tokenlab.store import FolderStore

LOG = b"".join(
    b"ERROR disk full on node %d\n" % n if n % 50 == 0 else b"INFO request %d served\n" % n
    for n in range(1, 1001)
)
DOC = (
    b'{\n  "meta": {"count": 3},\n  "items": [\n    {"id": 1, "error": null},\n'
    b'    {"id": 2, "error": "timeout after 30 s"},\n    {"id": 3, "error": {"code": 7}}\n  ],\n'
    b'  "a.b": {"c d": [10, 20]}\n}\n'
)


def view(data: bytes, **options: object) -> object:
    return expand_data(data, RefQuery(**options), ref_id="ctx_test")  # type: ignore[arg-type]


def test_lines_are_the_exact_bytes_with_their_numbers() -> None:
    shown = expand_data(LOG, RefQuery(lines="49-51"))
    assert shown.raw == b"".join(LOG.splitlines(keepends=True)[48:51])
    assert shown.ranges == ((49, 51),) and shown.total_lines == 1000 and not shown.truncated
    assert shown.tokens == tokens.count(shown.text)
    assert expand_data(LOG, RefQuery(lines="999-2000")).ranges == ((999, 1000),)
    assert expand_data(LOG, RefQuery(lines="7")).text == "INFO request 7 served\n"


def test_head_and_tail() -> None:
    assert expand_data(LOG, RefQuery(head=2)).text == "INFO request 1 served\nINFO request 2 served\n"
    tail = expand_data(LOG, RefQuery(tail=2))
    assert tail.ranges == ((999, 1000),) and tail.text.endswith(
        "request 999 served\nERROR disk full on node 1000\n"
    )
    assert expand_data(b"a\nb", RefQuery(head=99)).text == "a\nb"


def test_a_range_that_does_not_fit_shows_a_prefix_and_says_how_to_continue() -> None:
    shown = expand_data(LOG, RefQuery(lines="10-900", budget_tokens=60))
    assert shown.truncated and shown.tokens <= 60
    first, last = shown.ranges[0]
    assert first == 10 and shown.next == f"--lines {last + 1}-900"
    assert shown.next_params == (("lines", f"{last + 1}-900"),)
    tail = expand_data(LOG, RefQuery(tail=500, budget_tokens=60))
    assert (
        tail.truncated and tail.ranges[0][1] == 1000 and tail.next == f"--lines 501-{tail.ranges[0][0] - 1}"
    )


def test_a_line_too_long_for_the_budget_is_cut_and_says_so() -> None:
    shown = expand_data(b"x" * 100_000 + b"\nshort\n", RefQuery(lines="1-2", budget_tokens=20))
    assert shown.truncated and shown.tokens <= 20 and shown.text.endswith("…")
    assert "L1 alone" in shown.note and shown.next == "--lines 2-2"


def test_grep_numbers_lines_counts_all_and_shows_what_fits() -> None:
    shown = expand_data(LOG, RefQuery(grep=r"ERROR disk"))
    assert shown.matches == 20 and shown.matches_shown == 20 and not shown.truncated
    assert shown.text.splitlines()[:3] == [
        "L50: ERROR disk full on node 50",
        "--",
        "L100: ERROR disk full on node 100",
    ]
    small = expand_data(LOG, RefQuery(grep="ERROR", budget_tokens=40))
    assert small.truncated and small.matches == 20 and 0 < small.matches_shown < 20 and small.tokens <= 40
    resume = small.ranges[-1][1] + 1
    assert small.next == f"--grep ERROR --lines {resume}-1000"
    rest = expand_data(LOG, RefQuery(grep="ERROR", lines=f"{resume}-1000"))
    assert rest.matches == 20 - small.matches_shown


def test_grep_context_ignore_case_and_no_match() -> None:
    shown = expand_data(LOG, RefQuery(grep="node 50$", context=1))
    assert (
        shown.text
        == "L49- INFO request 49 served\nL50: ERROR disk full on node 50\nL51- INFO request 51 served\n"
    )
    assert shown.ranges == ((49, 51),)
    assert expand_data(LOG, RefQuery(grep="error DISK", ignore_case=True)).matches == 20
    assert expand_data(LOG, RefQuery(grep=r"\Berror", ignore_case=True)).matches == 0
    none = expand_data(LOG, RefQuery(grep="nothing here"))
    assert none.matches == 0 and none.text == "" and none.note == "no line matches"


def test_crlf_no_trailing_newline_and_invalid_utf8() -> None:
    data = b"one\r\ntwo \xff\xfe bad\r\nthree"
    assert expand_data(data, RefQuery()).total_lines == 3
    assert expand_data(data, RefQuery(lines="3")).raw == b"three"
    middle = expand_data(data, RefQuery(lines="2"))
    assert middle.raw == b"two \xff\xfe bad\r\n" and "\ufffd" in middle.text
    assert expand_data(data, RefQuery(grep="bad$")).matches == 0  # `$` is before \n, after \r
    assert expand_data(data, RefQuery(grep="bad")).text == "L2: two \ufffd\ufffd bad\n"
    assert expand_data(data, RefQuery(grep="three$")).text == "L3: three\n"
    assert expand_data(b"a\n", RefQuery(grep="^")).matches == 1
    assert expand_data(b"", RefQuery()).total_lines == 0


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("items[1].error", b'"timeout after 30 s"'),
        ("$.items[-1].error.code", b"7"),
        ("meta", b'{"count": 3}'),
        ('["a.b"]["c d"][1]', b"20"),
        ("['a.b'].c d[0]", b"10"),
        ("items[0]", b'{"id": 1, "error": null}'),
    ],
)
def test_json_paths_return_the_original_bytes(path: str, expected: bytes) -> None:
    shown = expand_data(DOC, RefQuery(json_path=path))
    assert shown.raw == expected and json.loads(shown.text) == json.loads(expected)


def test_json_path_line_numbers_and_degrading() -> None:
    assert expand_data(DOC, RefQuery(json_path="items[1]")).ranges == ((5, 5),)
    big = json.dumps({"items": [{"id": n, "pad": "x" * 40} for n in range(300)]}, indent=2).encode()
    shown = expand_data(big, RefQuery(json_path="items", budget_tokens=100))
    assert shown.truncated and shown.tokens <= 100 and shown.json_path == "$.items"
    assert shown.ranges[0][0] == 2 and shown.next is not None and shown.next.startswith("--lines ")


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("items[9]", "has 3 elements"),
        ("nope", "no key 'nope' in $ (keys: meta, items, a.b)"),
        ("meta.count.x", "is a scalar"),
        ("items.id", "is an array"),
        ("items[", "bad --json-path"),
        ("a..b", "expected a key"),
    ],
)
def test_json_path_errors(path: str, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        expand_data(DOC, RefQuery(json_path=path))


def test_non_json_refs_and_bad_queries_are_input_errors() -> None:
    for data, query in (
        (b"plain text\n", RefQuery(json_path="a")),
        (b"\xff{}", RefQuery(json_path="a")),
        (LOG, RefQuery(grep="((")),
        (LOG, RefQuery(lines="5-2")),
        (LOG, RefQuery(lines="2000")),
        (LOG, RefQuery(head=0)),
        (LOG, RefQuery(head=1, tail=1)),
        (LOG, RefQuery(lines="1-2", json_path="a")),
        (LOG, RefQuery(context=2)),
        (LOG, RefQuery(budget_tokens=-1)),
    ):
        with pytest.raises(InputError):
            expand_data(data, query)


def test_parse_path() -> None:
    assert parse_path('$.a["b.c"][3].d') == ("a", "b.c", 3, "d")
    assert parse_path("[0]") == (0,)


def test_expand_ref_loads_from_the_store(tmp_path: Path) -> None:
    store = FolderStore(tmp_path / "s")
    ref_id = store.put(LOG, source="t", content_type="log", reason="test")
    shown = expand_ref(store, "#ref:" + ref_id, RefQuery(head=1))
    assert shown.id == ref_id and shown.text == "INFO request 1 served\n"
    assert shown.as_dict()["ranges"] == [[1, 1]] and shown.as_dict()["next"] is None
    with pytest.raises(RefNotFoundError):
        expand_ref(store, "ctx_000000", RefQuery(head=1))


LINE = st.text(alphabet=st.sampled_from(list("ab ERROR\r\t{}é😀\x00")), max_size=40)


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(LINE, max_size=30),
    budget=st.integers(0, 120),
    mode=st.sampled_from(["all", "lines", "head", "tail", "grep", "grep-context"]),
)
def test_answers_never_exceed_the_budget(lines: list[str], budget: int, mode: str) -> None:
    data = "\n".join(lines).encode()
    total = expand_data(data, RefQuery()).total_lines
    options: dict[str, object] = {
        "all": {},
        "lines": {"lines": "2-"} if total >= 2 else {},
        "head": {"head": 3},
        "tail": {"tail": 4},
        "grep": {"grep": "E|a"},
        "grep-context": {"grep": "R", "context": 1},
    }[mode]
    shown = expand_data(data, RefQuery(budget_tokens=budget, **options))  # type: ignore[arg-type]
    assert shown.tokens == tokens.count(shown.text) <= budget
    if not shown.truncated and mode in ("all", "head", "tail"):
        assert shown.raw is not None and shown.raw in data
    if shown.truncated:
        assert shown.next or shown.note


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.text(st.sampled_from("ab.*\\ \r"), max_size=6), max_size=30),
    pattern=st.text(st.sampled_from("ab.*\\ "), min_size=1, max_size=3),
    keep=st.integers(0, 3),
    ignore_case=st.booleans(),
)
def test_grep_counts_lines_past_the_shown_matches_exactly(
    lines: list[str], pattern: str, keep: int, ignore_case: bool
) -> None:
    data = "\n".join(lines).encode()
    try:
        regex, haystack = folded(pattern, ignore_case, data)
    except InputError:
        return
    index = LineIndex(data)
    total, found = find_matches(regex, index, (0, len(data)), keep, haystack)
    lines_of_ref = haystack.split(b"\n")[: index.total]  # a final newline ends the last line
    slow = [n for n, line in enumerate(lines_of_ref, 1) if regex.search(line)]
    assert total == len(slow) and [line for line, _, _ in found] == slow[:keep]
