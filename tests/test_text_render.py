"""Spans of a text document: which folds are worth their marker."""

from __future__ import annotations

from tokenlab.optimizers.text.render import SpanKind, TextSpan, unfold_small


def test_a_small_fold_is_shown_unless_it_carries_its_listings_note() -> None:
    data = b"kept row\nx\nkept row\n" + b"folded row\n" * 20
    spans = [
        TextSpan(SpanKind.KEEP, 0, 9),
        TextSpan(SpanKind.FOLD, 9, 11),
        TextSpan(SpanKind.KEEP, 11, 20),
        TextSpan(SpanKind.FOLD, 20, len(data)),
    ]
    assert [span.kind for span in unfold_small(spans, 24, data)] == [SpanKind.KEEP, SpanKind.FOLD]
    spans[1] = TextSpan(SpanKind.FOLD, 9, 11, "22 rows from the 1 above on: rows of rare forms: `x`")
    assert [span.kind for span in unfold_small(spans, 24, data)] == [
        SpanKind.KEEP,
        SpanKind.FOLD,
        SpanKind.KEEP,
        SpanKind.FOLD,
    ]
