"""One line under an outlined listing says the largest size its folds hide."""

from __future__ import annotations

import random
import re

import pytest

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.text.optimizer import optimize

COARSE = OptimizerConfig(Granularity.COARSE)
FINE = OptimizerConfig(Granularity.FINE)
_NOTE_RE = re.compile(r"^\[largest (\S+) of the folded rows: (\S+)(?: (\S+))?\]$", re.MULTILINE)


def _sizes(count: int) -> list[int]:
    rng = random.Random(count)
    return [int(10 ** rng.uniform(2, 5)) for _ in range(count)]


def _unzip_listing(count: int = 400) -> tuple[str, list[tuple[int, str]]]:
    rows = [(size, f"org/eclipse/p{n // 20}/C{n}.class") for n, size in enumerate(_sizes(count))]
    lines = [f"{size:>9}  2025-09-02 09:14   {name}" for size, name in rows]
    head = "Archive:  x.jar\n  Length      Date    Time    Name\n---------  ---------- -----   ----\n"
    total = sum(size for size, _ in rows)
    foot = f"---------                     -------\n{total:>9}                     {count} files\n"
    return head + "\n".join(lines) + "\n" + foot, rows


def _tar_listing(count: int = 400) -> tuple[str, list[tuple[int, str]]]:
    rows = [(size, f"src/m{n // 25}/file{n}.c") for n, size in enumerate(_sizes(count))]
    lines = [f"-rw-r--r-- dev/staff {size:>8} 2025-09-02 09:14 {name}" for size, name in rows]
    return "\n".join(lines) + "\n", rows


def _hidden_largest(text: str, rows: list[tuple[int, str]]) -> int:
    rows_shown = (re.sub(r" … \+\d+.*$", "", line).split() for line in text.splitlines())
    shown = {words[-1] for words in rows_shown if words}
    return max(size for size, name in rows if name not in shown)


@pytest.mark.parametrize("config", [COARSE, FINE], ids=["coarse", "fine"])
def test_the_note_says_the_largest_size_the_folds_hide(config: OptimizerConfig) -> None:
    data, rows = _unzip_listing()
    text = render_preview(optimize(data.encode(), config))
    notes = _NOTE_RE.findall(text)
    assert len(notes) == 1, text[-400:]
    said_label, said, name = notes[0]
    assert said_label == "Length"
    assert int(said) == _hidden_largest(text, rows)
    # A row shown is larger, so none is named.
    assert not name and max(size for size, _ in rows) > int(said)


def test_plain_numbers_without_a_header_get_no_note() -> None:
    # `tar -tv`: the rows' numbers are sizes, but nothing says so (ids look alike).
    data, _ = _tar_listing()
    assert "[largest" not in render_preview(optimize(data.encode(), COARSE))


def test_a_listing_without_sizes_gets_no_note() -> None:
    lines = [f"drwxr-xr-x module{n} owner{n % 3} since-{n % 5}-days" for n in range(400)]
    text = render_preview(optimize(("\n".join(lines) + "\n").encode(), COARSE))
    assert "[largest" not in text


def test_line_numbers_are_no_sizes() -> None:
    lines = [f"{n + 1:>5}  entry_{n}  of_the  listing" for n in range(400)]
    text = render_preview(optimize(("\n".join(lines) + "\n").encode(), COARSE))
    assert "[largest" not in text
