"""The fold loop and census head shared by the line-per-record families."""

from __future__ import annotations

from tokenlab.optimizers import Omission
from tokenlab.optimizers.lines.folds import fold_unkept, headed

DATA = b"keep\n" + b"".join(b"long folded line number %d\n" % i for i in range(5)) + b"x\nkeep\n"
BOUNDS = []
_at = 0
for _line in DATA.splitlines(keepends=True):
    BOUNDS.append((_at, _at + len(_line)))
    _at += len(_line)
KEEP = [True, False, False, False, False, False, False, True]


def label(first: int, stop: int) -> str:
    return f"... {stop - first} lines"


def test_a_run_folds_behind_its_marker_and_a_lone_line_stays() -> None:
    data_one = b"keep\nlone\nkeep\n"
    body, folded = fold_unkept(data_one, [(0, 5), (5, 10), (10, 15)], [True, False, True], label, False, "w")
    assert "".join(part for part in body if isinstance(part, str)) == "keep\nlone\nkeep\n"
    assert folded == []
    body, folded = fold_unkept(DATA, BOUNDS, KEEP, label, False, "w")
    assert body == ["keep\n", "... 6 lines\n", "keep\n"]
    assert folded == [(BOUNDS[1][0], BOUNDS[6][1])]


def test_fine_gives_each_run_its_ref_and_coarse_one_ref_in_the_head() -> None:
    body, folded = fold_unkept(DATA, BOUNDS, KEEP, label, True, "what")
    omission = body[2]
    assert isinstance(omission, Omission) and omission.data == DATA[BOUNDS[1][0] : BOUNDS[6][1]]
    assert headed("[t: 8 lines", DATA, folded, True, "what") == ["[t: 8 lines]\n"]
    head = headed("[t: 8 lines", DATA, folded, False, "what")
    assert head[0] == "[t: 8 lines; folded lines, in order: " and head[2] == "]\n"
    assert isinstance(head[1], Omission) and head[1].reason == "folded what, in order"
    assert head[1].data == DATA[BOUNDS[1][0] : BOUNDS[6][1]]
