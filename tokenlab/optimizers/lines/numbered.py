"""Names that differ in one number (`api_001.py` … `api_046.py`, `SVC_1_URL` …
`SVC_60_URL`), said once per family with their numbers as runs: `api_{001…046}.py`.

A family is the names equal but for their last number; a name's other numbers are part of
its family (`node2_disk{1…4}` and `node3_disk{1…4}` are two families), so that a run never
stands for a combination the input does not hold. Every member stays named: a reader
can still read, and ask for, each one.
"""

from __future__ import annotations

from collections.abc import Iterable

from tokenlab.patterns import compile_on_use

_NUMBER_RE = compile_on_use(r"\d+")
# Stands for the number in a family's key: no name holds it.
_SLOT = "\0"


def family(name: str) -> tuple[str, str] | None:
    """The name's family (the name with its last number taken out) and that number; None
    for a name without a number."""
    last = None
    for last in _NUMBER_RE.finditer(name):
        pass
    if last is None:
        return None
    return name[: last.start()] + _SLOT + name[last.end() :], last[0]


def number_runs(numbers: Iterable[str], cap: int | None = None) -> str:
    """`11…59` for consecutive numbers, else their runs: `1…4,7,9,12…20` (numbers keep their
    zero padding: `001…046`); past `cap` runs, `,… +N`."""
    values = sorted(set(numbers), key=lambda number: (int(number), number))
    runs: list[list[str]] = []
    for number in values:
        if runs and int(number) == int(runs[-1][-1]) + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    shown = runs if cap is None else runs[:cap]
    said = ",".join(f"{run[0]}…{run[-1]}" if len(run) > 2 else ",".join(run) for run in shown)
    return said + (f",… +{len(runs) - len(shown)}" if len(shown) < len(runs) else "")


def spelled(key: str, numbers: Iterable[str], cap: int | None = None) -> str:
    """A family's members in one word: `api_{001…046}.py`."""
    before, after = key.split(_SLOT)
    return f"{before}{{{number_runs(numbers, cap)}}}{after}"


def said_once(names: list[str], min_members: int = 3) -> list[str]:
    """The names in order, each family of at least `min_members` said once where its first
    member stood (`api_{001…046}.py`); other names as they are."""
    members: dict[str, list[str]] = {}
    for name in names:
        found = family(name)
        if found is not None:
            members.setdefault(found[0], []).append(found[1])
    said: list[str] = []
    done: set[str] = set()
    for name in names:
        found = family(name)
        if found is None or len(members[found[0]]) < min_members:
            said.append(name)
        elif found[0] not in done:
            done.add(found[0])
            said.append(spelled(found[0], members[found[0]]))
    return said
