"""Plain text and rendered documentation: keep the outline, fold the bodies behind refs.

A document of 2 KB and more that is mostly rows printed one field a line (`key = value`
records between blank lines or under numbered rules) is folded by `lines/fields.py`; one
whose lines are records rather than prose (a key = value dump, a sorted numeric listing, a table with a header row, templated diagnostics) is
handed to `text_records.py`, and one whose rows are long-listing rows led by an inode and
a block count (`find -ls`, `ls -lis`) to `long_listing.py`; what follows is about prose.

What stays visible, and why:

- Every document: trailing whitespace is stripped, runs of blank lines collapse to one,
  lines holding only a pydoc `|` gutter are dropped, and ANSI colour codes and man-page
  overstrike (`X\\bX`) are removed. The exact original of any region changed this way is
  behind a ref: its section's ref when it has one (COARSE), else one ref holding the
  whole original document, named on the last line.
- Paragraphs of `repeat_min_bytes` or more that occur again later are shown once; each
  later copy becomes one line quoting its start, with a ref to its exact bytes.
- Documents of `small_doc_bytes` and more become an outline. Kept: headings (Markdown
  `#`, setext underlines, capitalised man/pydoc headings); the first line of every
  paragraph at the document's base indentation; the first line of every indented block
  (a docstring's summary under its signature, an example's first line) unless the same
  summary was already shown; lines that start an item (bullets, options, `name(…)`
  signatures, short `Label:` lines); the opening, first and closing lines of fenced code;
  and the first copy of any line holding a signal word (`signal_words`: warning,
  deprecated, must, never, do not, unsafe, breaking…) or a failure word (`failure_words`:
  error, fail…, invalid, killed, SIGSEGV…) outside a path, a code span or a quoted source
  line (`checkers/deprecated.py` warns of nothing), or a security advisory's identifier
  (`CVE-2023-47038`, `GHSA-…`) even in a name (`fixes/CVE-2023-47038`), because those are
  the lines a reader must not miss. Status fields stay too: a `Key: value` or `key = value` line next to
  another one (a `pip show` header, the `Severity:` and `Location:` lines indented under a
  finding's heading, the counts of a metrics block), unless it holds a link or two
  sentences; the top `ranking_rows` rows of a ranking (a run of rows led by falling
  numbers: a profile's functions by cost), whole however long; and what a tool's report
  is read for: HTTP status lines, lines counting
  things, column headers, the last line. Folded: paragraph continuation lines, later
  paragraphs of nested prose (docstring bodies), the rest of code examples, quoted source
  lines led by their line number (`54\timport x`), and pydoc's listings of inherited
  members. A folded listing (`sample_run_lines` lines or more at one indentation, no blank
  line) keeps its first and last `sample_lines` lines and its lines of a rare shape, so
  that no block hides behind the line before it; its note says the rows of a form few
  of its rows have (`lines/forms.py`: `# extension module … loaded from …` among `# code
  object from …` rows), a bounded number, one line a form; a listing of `name  value`
  rows whose values are mostly a few states keeps the rows of a rare value and counts
  the others per value, naming the rows of its other values, `value_rows_named` at most
  (see `blocks`); one of whose rows a good share are led by one word naming a thing
  each (`import 'json'`, `Unpacking libfoo`) lists those things in order. In an output
  that is a listing of entries (`name - summary`, a search by keyword) each entry is an
  item, never a paragraph's continuation; `#` lines
  next to one another are a listing's comments, not headings. In a large series of alike
  sections, a line led by a word that few members have (`no symbols`) stays: it marks the
  members that differ. A kept line longer than `long_line_bytes` shows its first sentence
  and any sentence holding a signal word; a line cut inside brackets (a statement's
  argument list) keeps them to their close when it is near. A long line listing words
  after its label (`Flags: fpu vme …`, no item ending in `.,;!?`) stays whole in a
  document of at most `word_list_doc_bytes`: its items are what a reader searches, and
  no sentence sums them.
- Folded text is marked ` …`, followed by the number of whole lines it hides (` … +5`),
  or inside a line by the number of words (` … +79 words`).
  COARSE: one ref per top-level section holds the section's complete original bytes,
  named after its heading. FINE: one ref per folded run, right after its marker; runs
  shorter than `fine_min_fold_bytes` stay visible instead. The failure, summary and
  4xx/5xx lines kept are declared as signals.
- A numbered stack (`#0 0x… in f file:line`, `#1 …`) shows the line above it and its
  frames up to the reader's own code; the library frames after them fold, as do a
  legend's entries under its title (`reports`).

Speed: headings, fences and signal words are found by whole-document passes (regexes led
by a literal newline, `bytes.find`), the per-line loop does a few comparisons, and runs of
equal per-line states are cut with one regex over a bytearray. This module picks the way
a document is folded; `document.py` decides what each of its lines becomes (with
`outliner.py`, `listings.py`, `long_line.py` and `signal_words.py`), and `render.py` turns
the resulting byte spans into text and refs.
"""

from __future__ import annotations

from tokenlab.mapped import as_bytes
from tokenlab.optimizers import Granularity, OptimizerConfig, OptimizeResult
from tokenlab.optimizers.file_list.long_listing import looks_like_counted_long_listing, optimize_long
from tokenlab.optimizers.lines.fields import fold_fields
from tokenlab.optimizers.lines.members import fold_members
from tokenlab.optimizers.lines.records import TEXT_LIMITS, fold_records
from tokenlab.optimizers.text.config import DEFAULT_LIMITS, TextConfig
from tokenlab.optimizers.text.document import Document, repeated_paragraphs
from tokenlab.optimizers.text.json_lines import fold_json_lines, looks_like_json_lines
from tokenlab.optimizers.text.line_states import KEEP
from tokenlab.optimizers.text.records import optimize_records
from tokenlab.optimizers.text.render import Renderer, unfold_slight, unfold_small, unfold_unprofitable
from tokenlab.optimizers.text.sizes import largest_folded


def optimize(
    raw: bytes, config: OptimizerConfig, limits: TextConfig = DEFAULT_LIMITS
) -> OptimizeResult:
    """`raw` is the input's bytes or, for a large input, a mapping of them (`mapped.py`)."""
    if looks_like_json_lines(raw):
        # Large JSON lines (a mapped input's size) are folded by shape in one bounded pass:
        # the outline below holds the lines of its input, several times over.
        by_shape = fold_json_lines(raw, config)
        if by_shape is not None:
            return by_shape
    data = as_bytes(raw)  # a mapped input of any other kind is read as bytes, as before
    if not data:
        return OptimizeResult(())
    if len(data) >= limits.small_doc_bytes:
        if looks_like_counted_long_listing(data):
            return optimize_long(data, config)
        folded = (
            fold_members(data, config.granularity)
            or fold_fields(data, config.granularity)
            or fold_records(data, config.granularity, TEXT_LIMITS)
        )
        if folded is not None:  # mostly blocks of one skeleton: a plan's resources
            return OptimizeResult(folded)
        records = optimize_records(data, config)
        if records is not None:
            return records
    doc = Document(data, limits)
    repeats = repeated_paragraphs(data, limits)
    if len(data) >= limits.small_doc_bytes:
        states = doc.outline(repeats)
    else:
        states = bytearray([KEEP]) * len(doc.lines)
        doc.mark_repeats(states, repeats)
    fine = config.granularity is Granularity.FINE
    minimum = limits.fine_min_fold_bytes if fine else limits.coarse_min_fold_bytes
    # In a dump, ` … +1` hides a record too small to be worth the look-up; prose folds
    # the rest of a paragraph, however short.
    one_line_minimum = 0 if doc.is_documentation else limits.fine_min_fold_bytes
    spans = unfold_small(doc.spans(states), minimum, data, one_line_minimum)
    if doc.folds_listing_rows_only(spans):
        spans = unfold_slight(spans, len(data), limits.slight_share)
    sections = [(0, len(data))] if fine else doc.sections()
    if not fine:
        spans = unfold_unprofitable(spans, sections)
    shown = Renderer(data, fine).render(spans, sections).parts
    largest = largest_folded(doc.lines, doc.starts, spans)
    if largest:  # said once under the listing: its folds are many and short
        ends = "".join(part for part in shown[-1:] if isinstance(part, str)).endswith("\n")
        shown = (*shown, ("" if ends else "\n") + largest + "\n")
    return OptimizeResult(shown, signals=doc.declared_signals(states))
