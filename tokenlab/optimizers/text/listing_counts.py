"""A listing's rows read by column, and what a folded listing's note says (see
`optimizer.py`, the note of a sampled listing): its rows counted per value of a few-valued
column or of `name  value` rows, naming the rows of rare values; the names its rows'
shared first word leads; its largest sizes. Whether rows are a table is read the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from os.path import commonprefix

from tokenlab.patterns import compile_on_use

_MOST_VALUES = 8  # a column with more distinct values than this names rows, not states
_ALNUM_RE = compile_on_use(rb"[A-Za-z0-9]")
_TABLE_COLUMNS = 3  # few-valued columns that make one-line records a table
_USUAL_SHARE = 0.9  # a value this many rows hold makes the other values of its column unusual
_COLUMNS_READ = 8
_PRESENT_SHARE = 0.9  # a column must be present in this share of the rows
_SIZE_SKEW = 10  # a column of sizes has its largest this many times its median or more


def _states(counts: Counter[bytes]) -> bool:
    """A column of states: few values, at most one of them held by a single row, each
    with a letter or digit (`=>` and `|` are a listing's punctuation)."""
    if len(counts) > _MOST_VALUES or sum(1 for count in counts.values() if count == 1) > 1:
        return False
    return all(_ALNUM_RE.search(value) for value in counts)


def _tally_rows(rows: Sequence[bytes]) -> dict[bytes, tuple[list[bytes], int]]:
    """Each distinct row -> its words and how many rows it is, in the order rows first
    occur. A listing repeats rows: what is counted of them is read once per distinct row
    and weighed; the rows themselves are read again only to say where a rare one stands."""
    return {row: (row.split(), count) for row, count in Counter(rows).items()}


def _column_counts(tally: dict[bytes, tuple[list[bytes], int]], column: int) -> Counter[bytes]:
    """How many rows hold each value of `column`, values in the order rows first hold them."""
    counts: Counter[bytes] = Counter()
    for words, count in tally.values():
        if len(words) > column:
            counts[words[column]] += count
    return counts


def is_table(rows: Sequence[bytes]) -> bool:
    """Rows of a table (`top`'s processes): several columns of few values each."""
    tally = _tally_rows(rows)
    few_valued = 0
    for column in range(_COLUMNS_READ):
        counts = _column_counts(tally, column)
        if counts.total() < _PRESENT_SHARE * len(rows):
            break
        few_valued += len(counts) <= _MOST_VALUES
    return few_valued >= _TABLE_COLUMNS




def column_summary(rows: Sequence[bytes], rare: int, skip: int = -1) -> tuple[str, list[int]]:
    """Counts per value of a listing's few-valued columns (`ii ×724`, `amd64 ×500, all
    ×224`), and the rows holding a value of such a column that at most `rare` rows hold
    (the one package in a bad state among 724 installed ones) in a column where one value
    is usual. Columns are whitespace-separated words; column `skip` (a listing's sort key)
    is not summarised."""
    tally = _tally_rows(rows)
    parts: list[str] = []
    rare_kinds: set[bytes] = set()
    for column in range(_COLUMNS_READ):
        counts = _column_counts(tally, column)
        present = counts.total()
        if present < _PRESENT_SHARE * len(rows):
            break
        if column == skip or not _states(counts):
            continue
        listed = ", ".join(f"{value.decode(errors='replace')} ×{count}" for value, count in counts.most_common())
        parts.append(f"column {column + 1}: {listed}")
        if len(counts) > 1 and counts.most_common(1)[0][1] >= _USUAL_SHARE * present:
            rare_kinds.update(
                row
                for row, (words, _) in tally.items()
                if len(words) > column and counts[words[column]] <= rare
            )
    return "; ".join(parts), [at for at, row in enumerate(rows) if row in rare_kinds] if rare_kinds else []


def size_extremes(rows: Sequence[bytes]) -> tuple[str, list[int]]:
    """The range of each column of sizes (`column 3: 7 to 2,928,411, largest shown`) and
    the row holding each largest value: counts per value cannot say which object is the
    largest, and that row is what a reader of a listing of sizes asks for. A column of
    sizes holds a whole number in every row, many distinct ones (a few are states: a
    section index, a version), skewed: the largest is `_SIZE_SKEW` times the median or
    more, where line numbers and offsets spread evenly (and offsets rise, so the rows
    kept around a fold already show their ends)."""
    tally = _tally_rows(rows)
    parts: list[str] = []
    largest_rows: set[int] = set()
    for column in range(_COLUMNS_READ):
        words = _column_counts(tally, column)
        present = words.total()
        if present < len(rows) or not all(word.isdigit() for word in words):
            if present < _PRESENT_SHARE * len(rows):
                break
            continue
        numbers: Counter[int] = Counter()
        for word, count in words.items():
            numbers[int(word)] += count
        if len(numbers) <= _MOST_VALUES or max(numbers) < _SIZE_SKEW * _median(numbers):
            continue
        top = max(numbers)
        largest = next(at for at, row in enumerate(rows) if int(tally[row][0][column]) == top)
        parts.append(f"column {column + 1}: {min(numbers):,} to {top:,}, largest shown")
        largest_rows.add(largest)
    return "; ".join(parts), sorted(largest_rows)


def _median(numbers: Counter[int]) -> int:
    """The upper median of numbers given with how often each occurs."""
    middle = numbers.total() // 2
    seen = 0
    for number in sorted(numbers):
        seen += numbers[number]
        if seen > middle:
            return number
    raise ValueError("no numbers")


# A row's value: what follows its name across a column gap (a tab, or two spaces and more),
# itself with no gap (a row of several columns is a table's): `  -Wabi   \t\t[disabled]`,
# `Cluster state:    in production`.
_VALUE_RE = compile_on_use(rb"[ \t]*\S(?:\S| (?=\S))*(?: *\t|  )[ \t]*(\S(?:\S| (?=\S))*)?[ \t\r]*")
_MOST_COMMON_VALUES = 12  # a listing whose rows mostly share this few values holds states...
_COMMON_SHARE = 0.75  # ...in this share of its rows at least


def value_summary(rows: Sequence[bytes], rare: int, named: int = 0) -> tuple[str, list[int], list[int]]:
    """Counts per value of a listing whose rows are `name  value` and whose values are
    mostly a few states (`[disabled] ×137, [enabled] ×74`), and the rows whose value at
    most `rare` rows hold (an alias among states, the one setting that differs): the rows
    that say something the counts do not. The values but the most common one name their
    rows, those of fewest rows first, `named` rows in all at most (`[ignored] ×3 (-Wa, -Wb,
    -Wc)`): which names differ from the usual is what such a listing is asked; where every
    other value's rows are named,
    the most common value is every other row's. Values may hold spaces, unlike a column of
    `column_summary`. Returns the summary, the rows of a rare value, and the rows named."""
    tally = Counter(rows)  # each distinct row is matched once (a listing repeats rows)
    match_of = {row: _VALUE_RE.fullmatch(row) for row in tally}
    value_of = {row: match.group(1) or b"" for row, match in match_of.items() if match}
    counts: Counter[bytes] = Counter()
    for row, value in value_of.items():
        counts[value] += tally[row]
    common = [(value, count) for value, count in counts.most_common() if count > rare]
    if len(common) > _MOST_COMMON_VALUES or sum(count for _, count in common) < _COMMON_SHARE * len(rows):
        return "", [], []
    names: dict[bytes, list[bytes]] = {}
    named_rows: list[int] = []
    rare_values = {value for value, count in counts.items() if count <= rare}
    named_values = _values_named(counts, common[0][0], rare, named)
    for at, row in enumerate(rows) if named_values else ():
        match = match_of[row]
        if match and value_of[row] in named_values:
            name = match[0][: match.start(1) if match.group(1) else None].strip()
            names.setdefault(value_of[row], []).append(name)
            named_rows.append(at)
    said = {value: f" ({_names_sharing_start(names[value])})" for value in names}
    # Every other value's rows named (or shown, a rare value's), the rows of the usual
    # value are the rest: said so, each row's value can be read (`-Wunused [disabled]`).
    if len(common) > 1 and named_values.union(rare_values).issuperset(counts.keys() - {common[0][0]}):
        said[common[0][0]] = " (every row not named or shown)"
    listed = ", ".join(
        f"{value.decode(errors='replace') or '(empty)'} ×{count}{said.get(value, '')}"
        for value, count in common
    )
    rare_rows = [at for at, row in enumerate(rows) if value_of.get(row) in rare_values] if rare_values else []
    return f"column 2: {listed}", rare_rows, named_rows


def _values_named(counts: Counter[bytes], usual: bytes, rare: int, named: int) -> set[bytes]:
    """The values whose rows are named: not the usual one nor a rare one (its rows stay),
    those of fewest rows first while `named` rows in all are not passed."""
    values: set[bytes] = set()
    for value, count in sorted(counts.items(), key=lambda item: item[1]):
        if value == usual or count <= rare:
            continue
        if count > named:
            break
        values.add(value)
        named -= count
    return values


def _names_sharing_start(names: list[bytes]) -> str:
    """The names, comma-separated; a long list says the start all its names share once
    (`-W…: abi, address, …`): on a listing's hundred names, a quarter of their tokens."""
    said = b", ".join(names)
    start = commonprefix(names) if len(names) >= _SHARED_START_NAMES else b""
    start = start.rstrip(b"0123456789")  # `m1` and `m10` share `m`, not `m1`
    if len(start) >= 2 and all(len(name) > len(start) for name in names):
        said = start + "…: ".encode() + b", ".join(name[len(start) :] for name in names)
    return said.decode(errors="replace")


_SHARED_START_NAMES = 10  # a list of this many names says their shared start once
_NAMING_SHARE = 0.25  # rows led by one word, this share of a listing at least, name a thing each...
_DISTINCT_NAMES_SHARE = 0.9  # ...when this share of them name a thing of their own


def lead_names(rows: Sequence[bytes], most: int) -> str:
    """``import ×52: 'types', 'operator', …`` for a listing of which a good share of rows
    are led by one word and name a thing each after it (`import 'json' # …`, `Compiling
    serde v1.0`), other rows between: the things in their order, what such a listing is
    read for (which modules were loaded before a failure, in what order). Past `most`
    names, the first third and the last ones are listed: the last came just before
    whatever followed the listing."""
    tally = _tally_rows(rows)
    leads: Counter[bytes] = Counter()
    for words, count in tally.values():
        if len(words) > 1 and words[0][:1].isalpha():
            leads[words[0]] += count
    for lead, count in leads.most_common():
        if count < _NAMING_SHARE * len(rows):
            break
        names = list(
            dict.fromkeys(words[1] for words, _ in tally.values() if len(words) > 1 and words[0] == lead)
        )
        if len(names) >= _DISTINCT_NAMES_SHARE * count:
            return f"{lead.decode(errors='replace')} ×{count}: {_names_listed(names, most)}"
    return ""


def _names_listed(names: list[bytes], most: int) -> str:
    """The names, or past `most` the first third of them and the last ones."""
    said = [name.decode(errors="replace") for name in names]
    if len(said) > most:
        head = most // 3
        said = [*said[:head], f"… +{len(said) - most}", *said[head - most :]]
    return ", ".join(said)
