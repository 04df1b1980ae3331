"""The form of a listing's rows, and the rows of a rare form: what a long listing must not fold away.

A long listing is mostly rows of one or two forms (`# code object from '…'`, `import
'x' # …`), and a reader skims them; a form that few rows have (`# extension module 'x'
loaded from '….so'` among hundreds) is what the listing says beyond its routine, and is
asked about. Folding by position hides it with the majority.

A row's form is its words, each word that few rows of the listing hold (a name, a path,
an address) written as one slot `*` (slots next to one another as one), so that
`# clear sys.path` and `# clear sys.audit hooks` share the form `# clear *`. What is
common is learnt from the listing itself: no tool's words are known here.

A form is rare when at most `rare_share` of the rows have it (at least two rows may, as
before); its rows stay, up to `rows_kept` rows, and only when the common forms make up
most of the listing (`common_share`): where most forms are rare, none stands out. The
forms least like the common ones come first, by the words no common form has (`extension
module … loaded` among `code object from` and `import` rows outranks `import 'abc' #
<class '…FrozenImporter'>`, a common form with one word changed), then the rarest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

SLOT = b"*"


@dataclass(frozen=True)
class FormLimits:
    common_word_rows: int = 3  # a word that fewer rows hold is a value (a name, a path), not part of a form
    rare_share: float = 0.05  # a form this share of rows have (or fewer) is rare...
    rare_least_rows: int = 2  # ...and one of at most this many rows in any listing
    common_share: float = 0.75  # rare forms stand out only where common ones fill this share
    rows_kept: int = 12  # at most this many rows of rare forms stay per listing, rarest forms first


DEFAULT_FORM_LIMITS = FormLimits()


def row_forms(rows: Sequence[bytes], limits: FormLimits = DEFAULT_FORM_LIMITS) -> list[bytes]:
    """Each row's form: its indentation, then its words, those held by fewer than
    `common_word_rows` rows as a slot."""
    copies = Counter(rows)  # a long listing repeats rows: each distinct one is read once
    held: Counter[bytes] = Counter()
    for row, count in copies.items():
        for word in set(row.split()):
            held[word] += count
    # Forms are shared objects (rows of one form are most of a listing), each row's split
    # is dropped once its form is known: a large listing's words are never all held.
    shared: dict[bytes, bytes] = {}
    forms: dict[bytes, bytes] = {}
    for row in copies:
        said: list[bytes] = []
        for word in row.split():
            word = word if held[word] >= limits.common_word_rows else SLOT
            if word is not SLOT or not said or said[-1] is not SLOT:
                said.append(word)
        form = row[: len(row) - len(row.lstrip())] + b" ".join(said)
        forms[row] = shared.setdefault(form, form)
    return [forms[row] for row in rows]


def rare_form_rows(rows: Sequence[bytes], limits: FormLimits = DEFAULT_FORM_LIMITS) -> list[int]:
    """Positions of the rows whose form is rare, of the forms chosen (see the module doc)."""
    forms = row_forms(rows, limits)
    counts = Counter(forms)
    most = max(limits.rare_least_rows, int(limits.rare_share * len(rows)))
    rare = {form for form, count in counts.items() if count <= most}
    if sum(count for form, count in counts.items() if form not in rare) < limits.common_share * len(rows):
        return []
    first_at: dict[bytes, int] = {}
    for position, form in enumerate(forms):
        first_at.setdefault(form, position)
    common_words = {word for form in counts if form not in rare for word in form.split()}

    def unlike_first(form: bytes) -> tuple[int, int, int]:
        novel = sum(1 for word in set(form.split()) if word != SLOT and word not in common_words)
        return -novel, counts[form], first_at[form]

    chosen: set[bytes] = set()
    kept = 0
    for form in sorted(rare, key=unlike_first):
        if kept + counts[form] <= limits.rows_kept:
            chosen.add(form)
            kept += counts[form]
    return [position for position, form in enumerate(forms) if form in chosen]
