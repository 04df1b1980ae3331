"""log render: a group's heads read as one batch say what each head says alone."""

from __future__ import annotations

import random
import re
import string

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.log.model import DEFAULT_LIMITS
from tokenlab.optimizers.log.optimizer import optimize
from tokenlab.optimizers.log.render import with_heading, with_headings
from tokenlab.optimizers.log.templates import lines_and_templates


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
    lines, _ = lines_and_templates(data)
    indexes = list(range(len(lines)))
    shown = with_headings(lines, indexes, DEFAULT_LIMITS)
    assert shown == [with_heading(lines, i, DEFAULT_LIMITS) for i in indexes]
    assert shown[1].startswith("src/app/a.js:12:5")
    assert shown[2].startswith("src/app/a.js:14:1")
    assert with_headings(lines, indexes[1:3], DEFAULT_LIMITS) == shown[1:3]


def _pack_listing(sizes: list[int]) -> bytes:
    """`npm pack --dry-run`'s shape: a size with its unit and a path per row, paths of
    many shapes, so that the rows fold as runs rather than as one template."""
    rng = random.Random(7)

    def word() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))

    def path() -> str:
        folders = "/".join(word() for _ in range(rng.randint(1, 4)))
        stem = rng.choice("-_.").join(word() for _ in range(rng.randint(1, 3)))
        return folders + stem + rng.choice([".js", ".md", ".1"])

    rows = [f"npm notice {size / 1000:.1f}kB {path()}" for size in sizes]
    head = ["npm notice", "npm notice Tarball Contents"]
    lines = [*head, *rows, "npm notice Tarball Details", "npm notice total files: 9"]
    return ("\n".join(lines) + "\n").encode()


def test_the_header_says_the_largest_size_the_folded_runs_hide() -> None:
    rng = random.Random(3)
    sizes = [int(10 ** rng.uniform(2, 4.5)) for _ in range(300)]
    shown = render_preview(optimize(_pack_listing(sizes), OptimizerConfig(Granularity.COARSE)))
    assert len(re.findall(r"^\[… \d+ more lines\]$", shown, re.MULTILINE)) > 3, shown[:600]
    said = re.match(r"\[log: [^\n]*; largest folded size (\S+):", shown)
    assert said, shown.splitlines()[0]
    sized = [words[2] for line in shown.splitlines() if len(words := line.split()) == 4]
    visible = {size for size in sized if size.endswith("kB")}
    hidden = {f"{size / 1000:.1f}kB" for size in sizes} - visible
    assert said[1] == max(hidden, key=lambda size: float(size.removesuffix("kB")))
    # The largest of all is shown, so the folded one is not named.
    assert f"{max(sizes) / 1000:.1f}kB" in visible


def test_the_header_names_a_folded_row_larger_than_any_shown() -> None:
    sizes = [1000 + 10 * n for n in range(300)]
    sizes[150] = 6000  # the largest, but not far enough beyond the others to be kept as an outlier
    shown = render_preview(optimize(_pack_listing(sizes), OptimizerConfig(Granularity.FINE)))
    head, body = shown.split("\n", 1)
    assert "6.0kB" not in body
    assert re.search(r"; largest folded size 6\.0kB \S+\.(js|md|1)\]$", head), head
