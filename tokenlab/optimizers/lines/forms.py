"""The form of a listing's rows, and the forms few rows have: what a long listing must say.

A long listing is mostly rows of one or two forms (`# code object from '…'`, `import
'x' # …`), and a reader skims them; a form that few rows have (`# extension module 'x'
loaded from '….so'` among hundreds) is what the listing says beyond its routine, and is
asked about. Folding by position hides it with the majority.

A row's form is its words, each word that few rows of the listing hold (a name, a path,
an address) and each quoted value (`"<CC> <FLAGS> -c"`: data, not the tool's words)
written as one slot `*` (slots next to one another as one), so that `# clear sys.path`
and `# clear sys.audit hooks` share the form `# clear *`. What is common is learnt from
the listing itself: no tool's words are known here.

A form is rare when at most `rare_share` of the rows have it (at least two rows may, as
before), and only when the common forms make up most of the listing (`common_share`):
where most forms are rare, none stands out. A rare form is chosen for the words it has
that no common form has (`extension module … loaded` among `code object from` and
`import` rows), those with most such words first, then the rarest, up to `rows_kept`
rows a listing; rows the listing's note names already (`[ignored] ×3 (-Whsa, …)`) are
not said again.

A chosen form is said once, its rows' values after it (`described`): what its rows share
is written out, down to the common start and end of a slot's values (`'/usr/…/*.so'`), and
each row gives its slot's varying middle, a value repeated within a row given once
(`_json`, not `_json _json`). Rows that differ only in a word that varies among them (a
module's name the listing holds thrice) are one form here; forms whose rows give the
same values share their list (`loaded`, `executed` each ×5: …). A form's rows cost a
line then, not a line each.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from os.path import commonprefix

from tokenlab.patterns import compile_on_use

SLOT = b"*"
_QUOTES = (b"'", b'"')
_CLOSE_RE = {quote: re.compile(rb"(?<!\\)%s[^\w\s]*$" % quote) for quote in _QUOTES}  # `'x'>`, `"y",`
_START_CUT_RE = compile_on_use(rb"[^\w.-]")  # where a slot's shared start may end: after a `/`, a quote
_END_CUT_RE = compile_on_use(rb"\W")  # where its shared end may start: at a `.`, a quote


@dataclass(frozen=True)
class FormLimits:
    common_word_rows: int = 3  # a word that fewer rows hold is a value (a name, a path), not part of a form
    rare_share: float = 0.05  # a form this share of rows have (or fewer) is rare...
    rare_least_rows: int = 2  # ...and one of at most this many rows in any listing
    common_share: float = 0.75  # rare forms stand out only where common ones fill this share
    rows_kept: int = 12  # at most this many rows of rare forms are said per listing, rarest forms first


DEFAULT_FORM_LIMITS = FormLimits()

_Part = bytes | list[bytes]  # a word of a row's form, or the values of one of its slots


def _held(rows: Sequence[bytes]) -> Counter[bytes]:
    """How many rows hold each word (a long listing repeats rows: each distinct one is read once)."""
    held: Counter[bytes] = Counter()
    for row, count in Counter(rows).items():
        for word in set(row.split()):
            held[word] += count
    return held


def _words(row: bytes) -> list[tuple[bytes, bool]]:
    """A row's words, each with whether it is a quoted value: a word that opens a quote
    runs, with the words after it, to the one that closes it (`"<CC> <FLAGS> -c"`, one
    value; a quote escaped by a backslash does not close), or to the row's end."""
    if b"'" not in row and b'"' not in row:
        return [(word, False) for word in row.split()]  # most rows: no quote to read
    words: list[tuple[bytes, bool]] = []
    opened: list[bytes] = []
    for word in row.split():
        if not opened and word[:1] not in _QUOTES:
            words.append((word, False))
            continue
        opened.append(word)
        if _CLOSE_RE[opened[0][:1]].search(word, 1 if len(opened) == 1 else 0):
            words.append((b" ".join(opened), True))
            opened = []
    return [*words, (b" ".join(opened), True)] if opened else words


def _parts(row: bytes, held: Counter[bytes], limits: FormLimits) -> list[_Part]:
    """A row's words in order, the common ones as they are, each run of values (rare
    words, quoted values) as a list."""
    parts: list[_Part] = []
    for word, quoted in _words(row):
        if not quoted and held[word] >= limits.common_word_rows:
            parts.append(word)
        elif parts and isinstance(parts[-1], list):
            parts[-1].append(word)
        else:
            parts.append([word])
    return parts


def row_forms(rows: Sequence[bytes], limits: FormLimits = DEFAULT_FORM_LIMITS) -> list[bytes]:
    """Each row's form: its indentation, then its words, those held by fewer than
    `common_word_rows` rows as a slot."""
    held = _held(rows)
    # Forms are shared objects (rows of one form are most of a listing), each row's split
    # is dropped once its form is known: a large listing's words are never all held.
    shared: dict[bytes, bytes] = {}
    forms: dict[bytes, bytes] = {}
    least = limits.common_word_rows
    for row in dict.fromkeys(rows):
        said: list[bytes] = []
        for word, quoted in _words(row):
            word = word if not quoted and held[word] >= least else SLOT
            if word is not SLOT or not said or said[-1] is not SLOT:
                said.append(word)
        form = row[: len(row) - len(row.lstrip())] + b" ".join(said)
        forms[row] = shared.setdefault(form, form)
    return [forms[row] for row in rows]


def rare_form_rows(
    rows: Sequence[bytes], named: AbstractSet[int] = frozenset(), limits: FormLimits = DEFAULT_FORM_LIMITS
) -> list[int]:
    """Positions of the rows whose form is rare, of the forms chosen (see the module doc);
    `named` holds the positions of the rows the listing's note already names with their
    value (`[ignored] ×3 (-Whsa, …)`): a form of such rows only is not said again."""
    forms = row_forms(rows, limits)
    counts = Counter(forms)
    most = max(limits.rare_least_rows, int(limits.rare_share * len(rows)))
    rare = {form for form, count in counts.items() if count <= most}
    if sum(count for form, count in counts.items() if form not in rare) < limits.common_share * len(rows):
        return []
    first_at: dict[bytes, int] = {}
    for position, form in enumerate(forms):
        first_at.setdefault(form, position)
    known = {word for form in counts if form not in rare for word in form.split()}
    unsaid = {forms[at] for at in range(len(rows)) if forms[at] in rare and at not in named}

    def novel(form: bytes) -> int:
        return sum(1 for word in set(form.split()) if word != SLOT and word not in known)

    chosen: set[bytes] = set()
    kept = 0
    for form in sorted(unsaid, key=lambda form: (-novel(form), counts[form], first_at[form])):
        if kept + counts[form] <= limits.rows_kept:
            chosen.add(form)
            kept += counts[form]
    return [position for position, form in enumerate(forms) if form in chosen]


def described(
    listing: Sequence[bytes], positions: Sequence[int], limits: FormLimits = DEFAULT_FORM_LIMITS
) -> list[str]:
    """The rows of `listing` at `positions` said one line a form: the form, what its
    slots' values share written out, then each row's varying values (see the module doc)."""
    if not positions:
        return []
    held = _held(listing)
    split = [_parts(listing[at], held, limits) for at in positions]
    # Forms whose rows give the same values (a module `loaded`, then `executed`) share
    # one list of them; a form of one row has none to share.
    forms: dict[str, list[str]] = {}
    for group in _alike(split, limits):
        form, values = _described([split[row] for row in group])
        forms.setdefault(values or form, []).append(form)
    return [
        ", ".join(said) + (" each" if len(said) > 1 else "") + (values if values != said[0] else "")
        for values, said in forms.items()
    ]


def _alike(split: list[list[_Part]], limits: FormLimits) -> list[list[int]]:
    """Rows grouped by form, once a word that varies among rows alike in all else is a
    value too: rows that differ only in a name (`'_json'`, `'math'`), each one's form among
    the listing's rows but one form here, are one form. A place with `common_word_rows`
    distinct words among rows alike elsewhere varies; one with two (`loaded`, `executed`)
    tells two forms apart."""
    while varied := _most_varied(split, limits.common_word_rows):
        place, rows = varied
        for row in rows:
            word = split[row][place]
            split[row][place] = word if isinstance(word, list) else [word]
    groups: dict[tuple[bytes, ...], list[int]] = {}
    for row, parts in enumerate(split):
        groups.setdefault(_form_of(parts), []).append(row)
    return list(groups.values())


def _form_of(parts: list[_Part], skipped: int = -1) -> tuple[bytes, ...]:
    return tuple(SLOT if isinstance(part, list) or at == skipped else part for at, part in enumerate(parts))


def _most_varied(split: list[list[_Part]], least: int) -> tuple[int, list[int]] | None:
    """The place and rows (alike at every other place) where rows hold the most distinct
    words there, if `least` or more."""
    best: tuple[int, list[int]] | None = None
    most = least - 1
    for place in range(max(map(len, split), default=0)):
        alike: dict[tuple[bytes, ...], list[int]] = {}
        for row, parts in enumerate(split):
            if len(parts) > place and isinstance(parts[place], bytes):
                alike.setdefault(_form_of(parts, place), []).append(row)
        for rows in alike.values():
            distinct = len({split[row][place] for row in rows})  # type: ignore[misc]
            if distinct > most:
                best, most = (place, rows), distinct
    return best


def _described(split: list[list[_Part]]) -> tuple[str, str]:
    """Rows of one form: the form (`` `…` ``), and ` ×rows: each row's varying values`."""
    pieces: list[bytes] = []
    middles: list[list[bytes]] = [[] for _ in split]
    for column, part in enumerate(split[0]):
        if not isinstance(part, list):
            pieces.append(part)
            continue
        values = [b" ".join(parts[column]) for parts in split]  # type: ignore[arg-type]
        if len(set(values)) == 1:
            pieces.append(values[0])
            continue
        start, end = _shared_ends(values)
        pieces.append(values[0][:start] + SLOT + values[0][len(values[0]) - end :])
        for row_middles, value in zip(middles, values):
            row_middles.append(value[start : len(value) - end])
    form = b" ".join(pieces).decode(errors="replace")
    if not middles[0]:
        return f"`{form}`", f" ×{len(split)}" if len(split) > 1 else ""
    shown = ", ".join(b" ".join(dict.fromkeys(row)).decode(errors="replace") for row in middles)
    return f"`{form}`", f" ×{len(split)}: {shown}"


def _shared_ends(values: list[bytes]) -> tuple[int, int]:
    """How long a start and an end all `values` share, each cut at a boundary (a `/`, a
    quote, before a `.`), so that a slot never splits a name's letters."""
    start = len(commonprefix(values))
    cuts = [match.end() for match in _START_CUT_RE.finditer(values[0], 0, start)]
    start = cuts[-1] if cuts else 0
    reversed_rests = [value[start:][::-1] for value in values]
    end = len(commonprefix(reversed_rests))
    tail = values[0][len(values[0]) - end :]
    boundaries = [match.start() for match in _END_CUT_RE.finditer(tail)]
    return start, end - boundaries[0] if boundaries else 0
