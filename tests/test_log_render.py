"""log render: a group's heads read as one batch say what each head says alone."""

from __future__ import annotations

from tokenlab.optimizers.log.model import DEFAULT_LIMITS
from tokenlab.optimizers.log.optimizer import _split
from tokenlab.optimizers.log.render import with_heading, with_headings


def test_heads_read_in_a_batch_are_each_heads_text_with_its_heading() -> None:
    data = (
        b"src/app/a.js\n"
        b"  12:5  error  'x' is not defined  no-undef\n"
        b"  14:1  warning  Unexpected console  no-console\n"
        b"\x1b[31merror\x1b[0m: bad byte \xff here\n"
        + b"x" * (DEFAULT_LIMITS.line_bytes + 10)
        + b"\n  3:3  error  no heading above within reach\n"
        b"src/b.c:3:4: error: caf\xc3\xa9 \x00 undeclared\r\n"
    )
    lines, _ = _split(data)
    indexes = list(range(len(lines)))
    shown = with_headings(lines, indexes, DEFAULT_LIMITS)
    assert shown == [with_heading(lines, i, DEFAULT_LIMITS) for i in indexes]
    assert shown[1].startswith("src/app/a.js:12:5")
    assert shown[2].startswith("src/app/a.js:14:1")
    assert with_headings(lines, indexes[1:3], DEFAULT_LIMITS) == shown[1:3]
