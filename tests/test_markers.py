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


LAUNCHER = "'/opt/my env/bin/python' -m tokenlab"


def test_the_footers_hint_can_name_tokenlab_as_the_agents_shell_runs_it() -> None:
    body = "the tool said: tokens show-ref ID --grep RE | --lines A-B]\n"  # content, left alone
    visible = body + markers.footer(20480, "ctx_abcdef", folded=True)
    named = markers.with_opener(visible, LAUNCHER)
    assert named.startswith(body)
    hint = f"open a ref in part: {LAUNCHER} show-ref ID --grep RE | --lines A-B"
    assert named.endswith(f"#ref:ctx_abcdef; {hint}]\n")
    assert markers.parse_footer(named) == (20480, "ctx_abcdef") and markers.has_expand_hint(named)
    assert markers.with_opener(visible, "tokens") == visible


def test_a_footer_without_the_hint_or_an_opener_that_would_break_it_stays() -> None:
    short = "body\n" + markers.footer(3, "ctx_abcdef", folded=False)
    assert markers.with_opener(short, LAUNCHER) == short and not markers.has_expand_hint(short)
    folded = "body\n" + markers.footer(3, "ctx_abcdef", folded=True)
    assert markers.with_opener(folded, "/x]/python -m tokenlab") == folded
    assert markers.with_opener(folded, "'/x\n/python' -m tokenlab") == folded
    content_only = f"{markers.EXPAND_HINT}]\nno footer\n"
    assert not markers.has_expand_hint(content_only)
