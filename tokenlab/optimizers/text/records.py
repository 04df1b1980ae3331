"""Plain text that is a listing of line records, not prose: what each shape's reader needs.

The prose outline of `text.py` keeps a paragraph's first line and folds the rest, which
is right for documentation and wrong for a listing, where every line is a record of its
own and the first one is no summary of the others. A document of `min_lines` or more is
read as records when one of these shapes covers most of its lines (checked in order;
`text.py` asks only for documents it would outline, 2 KB and more):

- *key = value dump* (`env`, `git config --list`, `python -m sysconfig`, `.env` files):
  every key is what a reader looks for, so every record stays, its value cut after
  `value_bytes` when long (` …`); headings and other lines stay as written. A numbered
  family of keys (`SVC_1_URL`, `SVC_2_URL`, … or `worker.3.host`) of more than
  `few_lines` records shows its first and last records and those with its smallest and
  largest numbers; the folded ones are named by their numbers (`SVC_{11…59}_URL`), so
  every key can still be read and asked for.
- *sorted numeric listing* (`du -h | sort -h`, `sort -n`, `wc -l * | sort -n`, `nm
  --size-sort`, `ls -lS`): a number with an optional unit leads every line, or fills one
  of the first columns on every line, and the numbers only rise (or only fall). The first `sorted_head` lines and the `sorted_extremes` at the large end stay.
- *table with a header row* (`ps`, `docker ps`, `df`, `|`-separated reports such as
  `python -X importtime`): the header stays, and the rows holding the `table_top`
  largest values of each numeric column, the outermost rows of a column indented to show
  nesting (a process forest's roots), the first and last rows, each cut after `row_bytes`.
  The last column names each row (a command, a module, a mount point): the folded rows'
  names are listed after them, tallied, so that every row can be asked for by name; names
  that are paths (`lsof`'s `NAME`) are listed by folder, each folder once with its number
  of rows (`lines/folders.py`). A column before it whose values among the folded rows are
  few (`FD`: `mem ×81, 0r, 1w, 2w`; `STAT`), numbers aside, is counted per value: which
  rows are of which kind is read there, not in the names. A column the header names a
  size (`SIZE/OFF`, `RSS`) says the largest size among the folded rows (`lines/extremes`):
  the rows kept for their large values are then known to be the largest.
- *templated records* (`ld` undefined references, repeated diagnostics): three lines in
  four share a shape with two others once the words holding digits are set aside, and a
  failure line is among them (documentation repeats shapes too, but far less). Each
  shape shows its first and last line, a shape of at most `few_lines` lines (the `in
  function` line heading each unit's errors) all of them, each run of one shape its
  first line, and the last `closing_lines` stay; the folded rest of a run lists the value
  that varies most between its lines.

In the other shapes every failure line (`line_shapes.is_problem`: a severity word or a
phrase like `undefined reference`, `cannot`, `not found`; words inside paths set aside,
so a folder named `error_prone` is no failure) stays. In a sorted listing or a table, a
column whose values are nearly all distinct names its rows (a symbol, an address, a
file): it holds no status, so its words are set aside too (`nm`'s `D PyExc_ValueError`
is a symbol, not a failure; a `STATUS` column of few values still reports one). Failure
lines shown are declared signals. A sorted listing's last line counts its few-valued
columns over all its rows.
Folded runs leave a `[… N lines]` line in place. COARSE: one ref holds the whole
listing, named on the last line with what was folded. FINE: one ref per folded run (and
the whole listing when values were cut). `record_shapes.py` decides which shape a listing
has; this module folds it.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from tokenlab.optimizers import (
    Granularity,
    Omission,
    OptimizerConfig,
    OptimizeResult,
    Part,
    join_literals,
    visible,
)
from tokenlab.optimizers.lines import extremes, folders, numbered
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.text.listing_counts import column_summary
from tokenlab.optimizers.text.record_shapes import (
    DEFAULT_LIMITS,
    KEY_VALUE_RE,
    Columns,
    RecordsConfig,
    Shape,
    is_failure,
    number_of,
    records_shape,
    sort_key,
    sorted_values,
    table_columns,
    template,
)


def optimize_records(
    data: bytes, config: OptimizerConfig, limits: RecordsConfig = DEFAULT_LIMITS
) -> OptimizeResult | None:
    """The listing's kept records and refs, or None when the text is not a listing."""
    sample = data[: limits.sample_bytes]
    if len(data) > len(sample):
        sample = sample[: sample.rfind(b"\n") + 1]  # whole lines only
    shape = records_shape(visible(line_shapes.ANSI_RE.sub(b"", sample)), limits)
    if shape is None:
        return None
    text = visible(line_shapes.ANSI_RE.sub(b"", data))
    if shape is Shape.SORTED and sorted_values([line for line in text.splitlines() if line.strip()], limits) is None:
        return None  # sorted at its start only
    raw_lines = data.split(b"\n")
    lines = text.split("\n")
    if len(lines) != len(raw_lines):  # a stray escape ate a newline: keep to the prose path
        return None
    listing = _Listing(raw_lines, lines, limits)
    if shape in (Shape.SORTED, Shape.TABLE):
        listing.set_name_columns()
    if shape is Shape.TEMPLATED:
        listing.keep_templated()
    else:
        listing.keep_failures()
    if shape is Shape.KEY_VALUE:
        listing.keep_key_values()
    elif shape is Shape.SORTED:
        listing.keep_extremes()
    elif shape is Shape.TABLE:
        listing.keep_table_rows()
    return listing.render(shape, config.granularity is Granularity.FINE)


class _Listing:
    """Per line: kept whole, kept cut (key = value), or folded."""

    def __init__(self, raw_lines: list[bytes], lines: list[str], limits: RecordsConfig) -> None:
        self.raw_lines = raw_lines
        self.lines = lines
        self.limits = limits
        self.kept = [False] * len(lines)
        self.cut: dict[int, str] = {}  # kept lines shown shortened
        self.names: list[str] = []  # the folded table rows' names, in order
        self.name_column = ""
        self.state_columns = ""  # the folded table rows' few-valued columns, counted per value
        self.sized_rows: dict[int, list[str]] = {}  # a table's rows by line, up to their name
        self.size_column = ("", 0)  # the header and position of its column of sizes
        self.sort_column = -1  # a sorted listing's key column, left out of its column counts
        self.folded_lines = 0
        self.name_columns: tuple[int, frozenset[int]] = (0, frozenset())  # rows' width, its name columns
        self.templates = [template(line) for line in lines]
        # Each line's key family and number when it is a record of a numbered key (`SVC_12_URL=…`).
        self.keys = [_numbered_key(line) for line in lines]
        for index, line in enumerate(lines):
            if not line.strip() or line_shapes.is_summary(line):
                self.kept[index] = True

    @property
    def failures(self) -> tuple[str, ...]:
        """The failure lines shown: declared as signals."""
        lines = enumerate(self.lines)
        shown = (line.strip() for index, line in lines if self.kept[index] and self._fails(line))
        return tuple(dict.fromkeys(line for line in shown if line))

    def set_name_columns(self) -> None:
        """The columns that name the rows: among those nearly every row has, each whose
        values are nearly all distinct."""
        rows = [line.split() for line in self.lines if line.strip()]
        widths = sorted(map(len, rows))
        if len(rows) < self.limits.min_lines:
            return
        width = widths[int(len(widths) * (1 - self.limits.name_share))]
        full = [words for words in rows if len(words) >= width]
        names = frozenset(
            column
            for column in range(width)
            if len({words[column] for words in full}) >= self.limits.name_share * len(full)
        )
        self.name_columns = (width, names)

    def _fails(self, line: str) -> bool:
        """A failure line, its name columns set aside."""
        width, names = self.name_columns
        if names:
            words = line.split()
            if len(words) >= width:
                line = " ".join(word for column, word in enumerate(words) if column not in names)
        return is_failure(line)

    def keep_failures(self) -> None:
        for index, line in enumerate(self.lines):
            if line.strip() and self._fails(line):
                self.kept[index] = True

    def keep_templated(self) -> None:
        """Each shape's first and last line, every line of a shape with few lines (the
        `in function` line heading each unit's errors), the first line of each run of one
        shape, and the closing lines."""
        members: dict[str, list[int]] = {}
        for index, line_template in enumerate(self.templates):
            if self.lines[index].strip():
                members.setdefault(line_template, []).append(index)
        for indices in members.values():
            shown = indices if len(indices) <= self.limits.few_lines else (indices[0], indices[-1])
            for index in shown:
                self.kept[index] = True
        records = [index for index, line in enumerate(self.lines) if line.strip()]
        for index in records[-self.limits.closing_lines :]:
            self.kept[index] = True
        for previous, index in pairwise(records):  # a run of one shape starts with an example
            if self.templates[index] != self.templates[previous]:
                self.kept[index] = True

    def keep_key_values(self) -> None:
        cap = self.limits.value_bytes
        for index, line in enumerate(self.lines):
            self.kept[index] = True
            match = KEY_VALUE_RE.match(line)
            if match and len(line) - match.end() > cap + 8:
                cut = line.rfind(" ", match.end() + cap // 2, match.end() + cap)
                self.cut[index] = line[: cut if cut > 0 else match.end() + cap].rstrip() + " …"
        self._fold_key_families()

    def _fold_key_families(self) -> None:
        """Within a run of numbered keys, each family's records between its first and last
        fold (a failure line stays)."""
        families: dict[str, list[int]] = {}
        for index, key in enumerate(self.keys):
            if key is None:
                for members in families.values():
                    self._fold_family(members)
                families.clear()
            else:
                families.setdefault(key[0], []).append(index)
        for members in families.values():
            self._fold_family(members)

    def _fold_family(self, members: list[int]) -> None:
        """A family's first and last records stay, and those with its smallest and largest
        numbers (the ends of `SVC_1 … SVC_60`, sorted as text: `SVC_10` before `SVC_9`)."""
        if len(members) <= self.limits.few_lines:
            return
        by_number = sorted(members, key=lambda index: int(self._number(index)))
        ends = {members[0], members[-1], by_number[0], by_number[-1]}
        for index in members:
            if index not in ends and not is_failure(self.lines[index]):
                self.kept[index] = False

    def keep_extremes(self) -> None:
        records = [index for index, line in enumerate(self.lines) if line.strip()]
        key = sort_key([self.lines[index] for index in records], self.limits)
        if key is None:
            return
        self.sort_column, values = key
        rising = values[-1] >= values[0]
        head, extremes = self.limits.sorted_head, self.limits.sorted_extremes
        small_end, large_end = (head, extremes) if rising else (extremes, head)
        for index in records[:small_end] + records[-large_end:]:
            self.kept[index] = True

    def keep_table_rows(self) -> None:
        records = [index for index, line in enumerate(self.lines) if line.strip()]
        columns = table_columns([self.lines[index] for index in records], self.limits)
        if columns is None:
            return
        header, rows = records[0], records[1:]
        for index in (header, *rows[:3], rows[-1]):
            self.kept[index] = True
        cells = [_cells(self.lines[index], columns) for index in rows]
        for column in range(len(columns.header)):
            for position in _standouts([row[column] for row in cells], self.limits.table_top):
                self.kept[rows[position]] = True
        cap = self.limits.row_bytes
        for index in rows:  # a row kept for its values keeps its start; a long tail is cut
            line = self.lines[index]
            if self.kept[index] and len(line) > cap + 8:
                cut = line.rfind(" ", cap // 2, cap)
                self.cut[index] = line[: cut if cut > 0 else cap].rstrip() + " …"
        # The last named column names the rows (`| a | b |` ends in an empty cell).
        named = max((at for at, cell in enumerate(columns.header) if cell.strip()), default=-1)
        if named < 0:
            return
        self.name_column = columns.header[named].strip()
        self._read_sizes(columns.header, rows, cells, named)
        folded = [row for index, row in zip(rows, cells, strict=True) if not self.kept[index]]
        self.names = [row[named].strip() for row in folded]
        self.state_columns = _state_columns(columns.header[:named], folded, self.limits.states_listed)

    def _read_sizes(self, header: list[str], rows: list[int], cells: list[list[str]], named: int) -> None:
        """The rows' cells up to their name, when a column the header names a size holds
        sizes (see `extremes`)."""
        stripped = [[cell.strip() for cell in row[: named + 1]] for row in cells]
        column = extremes.size_column(stripped, [word.strip() for word in header[: named + 1]])
        if column is not None:
            self.size_column = (header[column].strip(), column)
            self.sized_rows = dict(zip(rows, stripped, strict=True))

    def _largest_folded(self) -> str:
        """``; largest SIZE/OFF of the folded rows: 3110760``: whether a larger row than
        those shown is folded, which the counts per value cannot say."""
        if not self.sized_rows:
            return ""
        label, column = self.size_column
        width = len(next(iter(self.sized_rows.values())))
        hidden = (row for index, row in self.sized_rows.items() if not self.kept[index])
        shown = (row for index, row in self.sized_rows.items() if self.kept[index])
        note = extremes.largest_note(
            [extremes.largest_row(hidden, width, column)], [extremes.largest_row(shown, width, column)]
        )
        return f"; largest {label} of the folded rows: {note.removeprefix('largest ')}" if note else ""

    def _keep_lone_lines(self) -> None:
        """A single folded line between kept ones costs no less than its marker: it stays."""
        kept = self.kept
        for index in range(1, len(kept) - 1):
            if not kept[index] and kept[index - 1] and kept[index + 1]:
                kept[index] = True

    def render(self, shape: Shape, fine: bool) -> OptimizeResult:
        self._keep_lone_lines()
        parts: list[Part] = []
        folded: list[bytes] = []
        runs = 0
        index = 0
        count = len(self.lines)
        while index < count:
            if self.kept[index]:
                parts.append(self.cut.get(index, self.lines[index].rstrip()) + "\n")
                index += 1
                continue
            end = index
            while end < count and not self.kept[end]:
                end += 1
            run = b"\n".join(self.raw_lines[index:end]) + (b"\n" if end < count else b"")
            runs += 1
            said = self._run_keys(index, end) or self._run_values(index, end)
            if shape is Shape.SORTED:
                said += self._run_columns(index, end)
            shown = f"[… {_plural(end - index, 'line')}{said}"
            reason = f"{_plural(end - index, 'folded line')} of a {shape.value}"
            parts += [f"{shown}: ", Omission(run, reason), "]\n"] if fine else [f"{shown}]\n"]
            folded.append(run)
            self.folded_lines += end - index
            index = end
        if parts and isinstance(parts[-1], str) and not self.raw_lines[-1]:
            parts[-1] = parts[-1][:-1]  # the input ended with a newline: so does the view
        footer = self._footer(shape, folded, fine)
        if footer:
            ends = "".join(part for part in parts[-2:] if isinstance(part, str)).endswith("\n")
            parts += ["" if ends or not parts else "\n", *footer]
        return OptimizeResult(tuple(join_literals(parts)), signals=self.failures)

    def _number(self, index: int) -> str:
        key = self.keys[index]
        assert key is not None
        return key[1]

    def _run_keys(self, start: int, end: int) -> str:
        """``: SVC_{11…59}_URL, SVC_{11…59}_PORT`` when the folded lines are records of
        numbered keys: each family's keys, by their numbers."""
        families: dict[str, list[str]] = {}
        for key in self.keys[start:end]:
            if key is None:
                return ""
            families.setdefault(key[0], []).append(key[1])
        cap = self.limits.values_listed
        return ": " + ", ".join(numbered.spelled(family, numbers, cap) for family, numbers in families.items())

    def _run_columns(self, start: int, end: int) -> str:
        """``; column 2: T ×455, W ×3`` for a sorted listing's folded rows: the counts of
        their few-valued columns, which the rows kept at its ends cannot tell."""
        summary, _ = column_summary(self.raw_lines[start:end], 0, skip=self.sort_column)
        return f"; {summary}" if summary else ""

    def _whole_columns(self) -> str:
        """``; all 14,159 rows: column 3: d ×7128, t ×3973`` for a sorted listing: the counts
        of the whole listing, which the folded runs' counts and the rows shown only add up to."""
        rows = [line for line in self.raw_lines if line.strip()]
        summary, _ = column_summary(rows, 0, skip=self.sort_column)
        return f"; all {len(rows):,} rows: {summary}" if summary else ""

    def _run_values(self, start: int, end: int) -> str:
        """`` like the one above: calc_0_2, calc_0_3, …`` when the folded lines share the
        shape of the line shown before them: the value that varies most between them."""
        before = start - 1
        shape = self.templates[before] if before >= 0 else None
        if shape is None or any(self.templates[index] != shape for index in range(start, end)):
            return ""
        columns: list[list[str]] = []
        for index in range(start, end):
            values = line_shapes.slots(self.lines[index].strip())[1]
            if columns and len(values) != len(columns):
                return ""
            columns = columns or [[] for _ in values]
            for column, value in zip(columns, values, strict=True):
                column.append(value)
        if all(self.lines[index].strip() == self.lines[before].strip() for index in range(start, end)):
            return ", each the same as the one above"
        if not columns:
            return " like the one above"
        best = max(columns, key=lambda column: (len(set(column)), sum(map(len, column))))
        cap = self.limits.values_listed
        more = f", … +{len(best) - cap}" if len(best) > cap else ""
        return " like the one above: " + ", ".join(best[:cap]) + more

    def _footer(self, shape: Shape, folded: list[bytes], fine: bool) -> list[Part]:
        cut = [index for index in self.cut]
        if not folded and not cut:
            return []
        if folders.are_paths(self.names):
            named = f"; {self.name_column} of the folded rows, by folder: {folders.by_folder(self.names)}"
        else:
            names = _tally(self.names, self.limits.names_listed)
            named = f"; {self.name_column} of the folded rows: {names}" if names else ""
        named = self.state_columns + self._largest_folded() + named
        if shape is Shape.SORTED and folded:
            named += self._whole_columns()
        lines = self.folded_lines
        if fine and not cut:
            return [f"[{shape.value}: {lines} lines folded{named}]\n"]
        whole = b"\n".join(self.raw_lines)
        what = f"{lines} lines folded" if folded else f"{len(cut)} long values cut"
        return [f"[{shape.value}: {what}{named}; all of it: ", Omission(whole, f"the whole {shape.value}"), "]\n"]


def _cells(line: str, columns: Columns) -> list[str]:
    if columns.starts is None:
        cells = line.split("|")
        return cells if len(cells) == len(columns.header) else [""] * (len(columns.header) - 1) + [line]
    cells = line.split(None, len(columns.header) - 1)
    if len(cells) == len(columns.header):
        # The last cell keeps the spaces beyond one separator: a forest's nesting
        # (`ps -ef --forest`: `  \_ child` under its parent) is told by them.
        start = len(line) - len(cells[-1])
        gap = start - len(line[:start].rstrip())
        cells[-1] = " " * max(0, gap - 1) + cells[-1]
    return cells + [""] * (len(columns.header) - len(cells))


def _standouts(cells: list[str], top: int) -> list[int]:
    """Positions of the `top` largest numbers of a numeric column, and of the outermost
    rows of a column indented to show nesting (`  codecs` under `encodings`)."""
    numbers = [number_of(cell.strip()) for cell in cells]
    if sum(number is not None for number in numbers) >= 0.9 * len(cells):
        ranked = sorted(
            (position for position, number in enumerate(numbers) if number is not None),
            key=lambda position: -(numbers[position] or 0.0),
        )
        return ranked[:top]
    indents = [len(cell) - len(cell.lstrip(" ")) for cell in cells if cell.strip()]
    if len(set(indents)) < 3:
        return []
    outer = min(indents)
    return [position for position, cell in enumerate(cells) if cell.strip() and len(cell) - len(cell.lstrip(" ")) == outer]


def _numbered_key(line: str) -> tuple[str, str] | None:
    """The family and number of a `key = value` record's key, when the key holds a number."""
    match = KEY_VALUE_RE.match(line)
    return numbered.family(match[0].rstrip("= \t").strip()) if match else None


def _state_columns(header: list[str], rows: list[list[str]], most: int) -> str:
    """``; FD of the folded rows: mem ×81, 0r, 1w, 2w; TYPE of the folded rows: REG ×82,
    CHR ×3`` for the columns before the name column whose words take from two to `most`
    values among the folded rows, numbers aside (the largest rows are shown): which rows
    are of which kind, which the names alone cannot tell (mapped files from open ones)."""
    said = []
    for column, title in enumerate(header):
        values = [row[column].strip() for row in rows]
        counts = Counter(value for value in values if value)
        if not 2 <= len(counts) <= most or all(number_of(value) is not None for value in counts):
            continue
        listed = ", ".join(value if count == 1 else f"{value} ×{count}" for value, count in counts.most_common())
        said.append(f"; {title.strip() or f'column {column + 1}'} of the folded rows: {listed}")
    return "".join(said)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _tally(names: list[str], cap: int) -> str:
    """The first `cap` names, each with its count when it names several rows, and how
    many more names there are: in how many rows, when some of them name several (three
    rows of `/dev/null` read as one otherwise)."""
    tally = list(Counter(name for name in names if name).items())
    shown = [name if count == 1 else f"{name} ×{count}" for name, count in tally[:cap]]
    rest = tally[cap:]
    rows = sum(count for _, count in rest)
    more = f", … +{len(rest)}" + (f" names in {rows} rows" if rows != len(rest) else "") if rest else ""
    return ", ".join(shown) + more
