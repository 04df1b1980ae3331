"""A column of values said once, when its values follow a rule a reader can replay.

A family of records (`lines.families`) lists each record's varying values as a row. Some
columns need no row: generated records number themselves (`worker[1]`, `worker[2]`, …),
deal values out in turn (`eu-west-1`, `us-east-1`, `eu-west-1`, …), or keep one value for
a stretch of records. Each rule here is lossless: replayed in the rows' order it gives back every value, and
every value it stands for occurs (a range `02–16,18–24` names no shard that is missing).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from decimal import Decimal

from tokenlab.patterns import compile_on_use

# A value with one run of digits between a prefix and a suffix: `worker-7`, `[10-DE]`.
_NUMBERED_RE = compile_on_use(r"(\D*?)(\d+)(\D*)")
# A sign before the number (`-34`, `= +5`): runs would read as `-13 to 34 step 3`.
_SIGN_RE = compile_on_use(r"(?:^|[^\w])[-+]$")
# A column of so many records or more is worth a rule; fewer are as short listed.
MIN_ROWS = 3


def sorted_order(values: Sequence[str]) -> list[int] | None:
    """The rows in the order of their numbers, when the values are out of order and,
    sorted, are a `progression` (each once): records numbered by a run, listed in the
    order they finished."""
    if len(set(values)) != len(values) or progression(values) is not None or progression(values, any_order=True) is None:
        return None
    numbers = [int(match[2]) for value in values if (match := _NUMBERED_RE.fullmatch(value))]
    return sorted(range(len(values)), key=numbers.__getitem__)


def progression_but(values: Sequence[str]) -> tuple[str, list[int]] | None:
    """`progression` of all values but a few that are printed otherwise (`Migrate-Tenant-22`
    among `migrate-tenant-NN`), and those rows; None unless one in ten rows or fewer
    (at least one) stands out and the others are a progression."""
    found = [_NUMBERED_RE.fullmatch(value) for value in values]
    shapes = Counter((match[1], match[3]) for match in found if match)
    if not shapes:
        return None
    usual = shapes.most_common(1)[0][0]
    others = [row for row, match in enumerate(found) if match is None or (match[1], match[3]) != usual]
    if not 0 < len(others) <= max(1, len(values) // 10):
        return None
    said = progression([value for row, value in enumerate(values) if row not in others])
    return (said, others) if said is not None else None


def progression(values: Sequence[str], any_order: bool = False) -> str | None:
    """The values as runs of one step between their constant prefix and suffix
    (`orders-shard-02–16,18–24`, `net = 10 to 150 step 7`), when each holds one number,
    printed alike (the same zero padding), and the numbers advance by one step in a few
    runs (once sorted, with `any_order`); None otherwise."""
    if len(values) < MIN_ROWS:
        return None
    found = [_NUMBERED_RE.fullmatch(value) for value in values]
    if any(match is None for match in found):
        return None
    prefixes = {match[1] for match in found if match}
    suffixes = {match[3] for match in found if match}
    if len(prefixes) != 1 or len(suffixes) != 1 or _SIGN_RE.search(next(iter(prefixes))):
        return None
    digits = [match[2] for match in found if match]
    width = len(digits[0]) if digits[0].startswith("0") and len(digits[0]) > 1 else 0
    numbers = [int(text) for text in digits]
    if any_order:
        numbers.sort()
    if any(_printed(int(text), width) != text for text in digits):
        return None
    steps = Counter(b - a for a, b in zip(numbers, numbers[1:]))
    step = steps.most_common(1)[0][0]
    runs: list[list[int]] = [[numbers[0]]]
    for number in numbers[1:]:
        if number - runs[-1][-1] == step:
            runs[-1].append(number)
        else:
            runs.append([number])
    if step <= 0 or len(runs) > 1 + len(values) // 10:
        return None
    said = ",".join(_run(run, step, width) for run in runs)
    return f"{prefixes.pop()}{said}{suffixes.pop()}"


def _printed(number: int, width: int) -> str:
    return str(number).zfill(width)


# A run of another step than one is listed up to this many numbers; a longer one is said
# by its ends and step in words: readers took an elided `10,17,…,150` for values hidden.
_MOST_LISTED = 4


def _run(run: list[int], step: int, width: int) -> str:
    first, last = _printed(run[0], width), _printed(run[-1], width)
    if len(run) == 1:
        return first
    if len(run) == 2 or len(run) <= _MOST_LISTED and step != 1:
        return ",".join(_printed(number, width) for number in run)
    if step == 1:
        return f"{first}–{last}"
    return f"{first} to {last} step {step}"


def cycle(values: Sequence[str]) -> list[str] | None:
    """The values dealt out in turn, when they repeat a shortest cycle at least twice
    (`eu-west-1, us-east-1, eu-central-1`); None otherwise."""
    for period in range(2, len(values) // 2 + 1):
        if all(values[at] == values[at % period] for at in range(period, len(values))):
            return list(values[:period])
    return None


def stretches(values: Sequence[str], most: int = 3) -> list[tuple[str, int]] | None:
    """(value, count) for each stretch of records holding one value, when there are
    `most` stretches or fewer, each of two records or more; None otherwise."""
    found: list[tuple[str, int]] = []
    for value in values:
        if found and found[-1][0] == value:
            found[-1] = (value, found[-1][1] + 1)
        else:
            found.append((value, 1))
    if len(values) < MIN_ROWS or len(found) > most or any(count < 2 for _, count in found):
        return None
    return found


# How `progression` prints its runs: `02–16,18–24`, `10 to 150 step 7`, `3,5`.
RUNS_RE = compile_on_use(r"\d+(?:–\d+| to \d+ step \d+)?(?:,\d+(?:–\d+| to \d+ step \d+)?)*")
# One run of `RUNS_RE` said by its ends and step.
_STEPPED_RE = compile_on_use(r"(\d+) to (\d+) step (\d+)")


# Numbers longer than this are ids, never a range's ends (and `int` of thousands of digits fails).
_MAX_DIGITS = 18


def holds(runs: str, value: str) -> bool:
    """Whether a `RUNS_RE` text stands for `value`, printed as `progression` printed it.
    Decided by arithmetic, not by listing: a text in the input may name any range."""
    for token in runs.split(","):
        if "–" in token:
            first, last = token.split("–")
            if _within(value, first, last, 1):
                return True
        elif stepped := _STEPPED_RE.fullmatch(token):
            first, last, step = stepped.groups()
            if len(step) <= _MAX_DIGITS and _within(value, first, last, int(step)):
                return True
        elif token == value:
            return True
    return False


def _within(value: str, first: str, last: str, step: int) -> bool:
    if max(len(value), len(first), len(last)) > _MAX_DIGITS or not (value.isascii() and value.isdigit()) or step <= 0:
        return False
    width = len(first) if first.startswith("0") and len(first) > 1 else 0
    if _printed(int(value), width) != value:
        return False
    number = int(value)
    return int(first) <= number <= int(last) and (number - int(first)) % step == 0


# A value said by its difference from the number compared with it, in a group line's head
# (`assert # == #+1: 11 19 …`, `record_columns.Column.with_offset`).
_OFFSET_RE = compile_on_use(r"(?<!\S)(?:==|!=|<=|>=|<|>|->|=>|→|vs\.?) #([-+]\d+(?:\.\d+)?)(?![\d.])")
_NUMBER_WORD_RE = compile_on_use(r"(?<![\w.\-])-?\d+(?:\.\d+)?(?![\w.])")


def said_by_offset(value: str, group_line: str) -> bool:
    """Whether a group line says `value` as a number it lists plus the difference its head
    names (`12` by `assert # == #+1: 11`)."""
    if "#" not in group_line or not _NUMBER_WORD_RE.fullmatch(value):
        return False
    amounts = {Decimal(found[1]) for found in _OFFSET_RE.finditer(group_line)}
    if not amounts:
        return False
    listed = {found[0] for found in _NUMBER_WORD_RE.finditer(group_line)}
    return any(str(Decimal(number) + amount) == value for number in listed for amount in amounts)
