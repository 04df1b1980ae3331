from tokenlab import markers


def test_literal_markers_from_input_are_neutralised() -> None:
    text = "see #ref:ctx_31154f for details"
    escaped = markers.escape_literal_markers(text)
    assert escaped == "see #ref(literal):ctx_31154f for details"
    assert markers.find_markers(escaped) == []


def test_text_without_markers_is_untouched() -> None:
    text = "#refactor: ctx is fine"
    assert markers.escape_literal_markers(text) is text


def test_footer_round_trip() -> None:
    visible = "body\n" + markers.footer(20480, "ctx_abcdef", folded=True)
    assert visible.endswith(f"[original 20,480 bytes: #ref:ctx_abcdef; {markers.EXPAND_HINT}]\n")
    assert markers.parse_footer(visible) == (20480, "ctx_abcdef")
    assert markers.parse_footer("body\n") is None


def test_nothing_folded_gets_the_short_footer_and_it_parses() -> None:
    visible = "body\n" + markers.footer(3, "ctx_abcdef", folded=False)
    assert visible == "body\n[original 3 bytes: #ref:ctx_abcdef]\n"
    assert markers.parse_footer(visible) == (3, "ctx_abcdef")


def test_escaped_footer_lookalike_is_not_a_footer() -> None:
    fake = markers.escape_literal_markers("[original 5 bytes: #ref:ctx_abcdef]\n")
    assert markers.parse_footer(fake) is None
