"""Record bounds: blank lines and rules, read through a prefix the tool puts on each line."""

from __future__ import annotations

from tokenlab.optimizers.lines import bounds


def _lines(text: str) -> bounds.Lines:
    data = text.encode()
    return bounds.split_lines(data, [at for at, byte in enumerate(data) if byte == 10])


def _texts(lines: bounds.Lines, data: str, blocks: list[tuple[int, int]]) -> list[list[str]]:
    raw = data.encode()
    return [[raw[lines.texts[at] : lines.ends[at]].decode().rstrip("\n") for at in range(first, last)] for first, last in blocks]


PREFIXED = "==41== Report one\n==41==    at f (a.c:1)\n==41== \n==41== Report two\n==41==    at g (a.c:2)\n"


def test_a_line_holding_only_the_prefix_is_blank_and_the_prefix_is_read_through() -> None:
    lines = _lines(PREFIXED)
    assert _texts(lines, PREFIXED, lines.blank_blocks()) == [["Report one", "   at f (a.c:1)"], ["Report two", "   at g (a.c:2)"]]


def test_a_prefix_holds_a_digit() -> None:
    text = "[INFO] one\n[INFO] \n[INFO] two\n"
    lines = _lines(text)
    assert lines.texts == lines.starts
    assert len(lines.blank_blocks()) == 1  # `[INFO] ` is text, not a blank line


def test_a_prefix_is_read_through_only_where_most_lines_show_it() -> None:
    text = "[pid 7] a\nb\nc\nd\n\ne\n"
    assert _lines(text).texts == _lines(text).starts
    text = "[pid 7] a\n[pid 8] b\n[pid 7] c\nprogram output\n"
    assert _lines(text).texts[:3] == [8, 18, 28]


def test_timestamps_are_a_prefix() -> None:
    text = "2024-05-01T10:00:00.123Z first\n2024-05-01T10:00:01.456Z \n2024-05-01T10:00:02.789Z second\n"
    lines = _lines(text)
    assert _texts(lines, text, lines.blank_blocks()) == [["first"], ["second"]]


RULED = "head\n-----------\nRace one\n  at f\n\nConflict\n  at g\n-----------\nRace two\n  at h\n\nConflict\n  at i\n"


def test_between_rules_a_blank_line_belongs_to_its_record() -> None:
    lines = _lines(RULED)
    assert _texts(lines, RULED, lines.ruled_blocks()) == [
        ["head"],
        ["Race one", "  at f", "", "Conflict", "  at g"],
        ["Race two", "  at h", "", "Conflict", "  at i"],
    ]
    assert lines.paragraphs(*lines.ruled_blocks()[1]) == [(2, 4), (5, 7)]


def test_a_rule_is_part_of_a_blank_bounded_block() -> None:
    lines = _lines(RULED)
    assert _texts(lines, RULED, lines.blank_blocks())[0] == ["head", "-----------", "Race one", "  at f"]


def test_a_titled_rule_is_a_rule_and_a_short_one_is_not() -> None:
    text = "a\n---Thread-Announcement---\nb\n=========\nc\n---x---\nd\n"
    lines = _lines(text)
    assert _texts(lines, text, lines.ruled_blocks()) == [["a"], ["b"], ["c", "---x---", "d"]]


def test_fewer_than_two_rules_make_no_ruled_blocks() -> None:
    text = "a\n\nb\n==========\nc\n"
    assert _lines(text).ruled_blocks() == []


def test_an_input_may_hold_records_after_a_separator_or_with_a_prefix() -> None:
    assert bounds.may_hold_records(b"a\nb\n\nc\n")
    assert bounds.may_hold_records(PREFIXED.encode())
    assert not bounds.may_hold_records(b"a\nb\nc\n")
    assert not bounds.may_hold_records(b"[INFO] a\n[INFO] \n[INFO] b\n")
    assert not bounds.may_hold_records(b"a\n  b\nc\n")
    assert bounds.may_hold_records(b"a\n  b\nc\n", by_headline=True)


def _skeleton(text: str):  # type: ignore[no-untyped-def]
    return lambda at: "".join("#" if c.isdigit() else c for c in text.splitlines()[at].strip())


TRACE = "Reading\n  rules\nBuild 1\n  consider a1\n  ok\ncc a1\nBuild 2\n  consider a2\n  ok\ncc a2\nBuild 3\n  consider a3\n  ok\ncc a3\ndone\n"


def test_a_repeated_headline_heads_each_record_up_to_the_next() -> None:
    lines = _lines(TRACE)
    blocks = lines.headline_blocks(TRACE.encode(), _skeleton(TRACE), 3)
    assert _texts(lines, TRACE, blocks) == [
        ["Reading", "  rules"],
        ["Build 1", "  consider a1", "  ok", "cc a1"],
        ["Build 2", "  consider a2", "  ok", "cc a2"],
        ["Build 3", "  consider a3", "  ok"],  # the last: what is indented under it
        ["cc a3", "done"],
    ]


def test_a_headline_seen_too_few_times_heads_nothing() -> None:
    lines = _lines(TRACE)
    assert lines.headline_blocks(TRACE.encode(), _skeleton(TRACE), 4) == []


# Boxed records, no blank line between boxes: a corner-only box in colour, as a plan or a
# validator draws each diagnostic, and a ruled box as a linter or a test runner draws one.
COLOURED_BOXES = (
    "Plan: 3 to add.\n"
    "\x1b[31m╷\x1b[0m\x1b[0m\n"
    "\x1b[31m│\x1b[0m \x1b[0m\x1b[1mError: \x1b[0mcheck failed\n"
    "\x1b[31m│\x1b[0m \x1b[0m\n"
    "\x1b[31m│\x1b[0m \x1b[0m  on main.tf line 3\n"
    "\x1b[31m╵\x1b[0m\x1b[0m\n"
    "\x1b[31m╷\x1b[0m\x1b[0m\n"
    "\x1b[31m│\x1b[0m \x1b[0m\x1b[1mError: \x1b[0mcheck failed\n"
    "\x1b[31m│\x1b[0m \x1b[0m\n"
    "\x1b[31m│\x1b[0m \x1b[0m  on main.tf line 9\n"
    "\x1b[31m╵\x1b[0m\x1b[0m\n"
)
RULED_BOXES = "┌──────\n│ FAIL a.test.ts\n│   expected 1\n└──────\n╭──────\n│ FAIL b.test.ts\n│   expected 2\n╰──────\n"


def test_each_box_is_a_record_read_through_its_gutter() -> None:
    lines = _lines(COLOURED_BOXES)
    texts = _texts(lines, COLOURED_BOXES, lines.blank_blocks())
    assert [[line.replace("\x1b[1m", "").replace("\x1b[0m", "") for line in block] for block in texts] == [
        ["Plan: 3 to add."],
        ["Error: check failed", "", "  on main.tf line 3"],  # the gutter-only line stays inside
        ["Error: check failed", "", "  on main.tf line 9"],
    ]
    lines = _lines(RULED_BOXES)
    assert _texts(lines, RULED_BOXES, lines.blank_blocks()) == [
        ["FAIL a.test.ts", "  expected 1"],
        ["FAIL b.test.ts", "  expected 2"],
    ]


def test_a_gutter_outside_a_closed_box_is_text() -> None:
    tree = "deps\n│ ├── a\n│ └── b\n│\nnext\n"  # a tree's branches: no corner opens a box
    assert _lines(tree).texts == _lines(tree).starts
    unclosed = "╷\n│ Error: one\n│ two\nplain line\n│ three\n"  # no closing corner: no box
    assert _lines(unclosed).texts == _lines(unclosed).starts
    assert len(_lines(unclosed).blank_blocks()) == 1
