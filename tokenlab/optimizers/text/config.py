"""The text optimizer's limits and the words it keeps lines for (see `optimizer.py`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TextConfig:
    small_doc_bytes: int = 2048  # smaller documents only get whitespace and repeat folding
    long_line_bytes: int = 200  # a kept line longer than this shows its first sentence
    cut_bytes: int = 160  # where a long line with no early sentence end is cut (at a space)
    word_list_doc_bytes: int = 4096  # a labelled list of words stays whole in a document this small
    repeat_min_bytes: int = 160  # repeated paragraphs at least this long are folded
    coarse_min_fold_bytes: int = 24  # smaller folds are not worth a " …"
    fine_min_fold_bytes: int = 120  # smaller folds are not worth a marker
    signal_line_max_bytes: int = 2000  # longer lines are cut even if they hold a signal
    list_items_kept: int = 8  # items shown per list in a large document; the rest fold
    sample_run_lines: int = 40  # a folded run this long shows its first and last lines...
    sample_lines: int = 2  # ...this many of each, so no large block hides behind one line
    listing_indent_share: float = 0.95  # a run with this share of its lines at one indentation is a listing
    entry_share: float = 0.9  # a document with this share of `name - summary` lines is a listing of entries...
    entry_listing_bytes: int = 32768  # ...shown whole up to this size (about 8k tokens)
    # Case-insensitive whole words; a trailing "*" also matches longer words (warn* → warning).
    signal_words: tuple[str, ...] = (
        "warn*", "deprecat*", "must", "mustn't", "never", "do not", "does not",
        "don't", "unsafe", "insecure", "vulnerab*", "danger*", "caution*", "breaking",
        "not supported", "removed in",
    )  # fmt: skip
    # What tools print when something went wrong: kept like the words above, and the kept
    # lines holding one are declared as signals, which the pipeline checks are shown.
    failure_words: tuple[str, ...] = (
        "error*", "fatal*", "fail*", "invalid", "lost", "killed", "abort*", "panic*", "denied",
        "refused", "timed out", "segmentation fault", "core dumped", "exited with", "exit status",
        "exit code", "sigsegv", "sigabrt", "sigbus", "sigfpe", "sigill", "sigkill", "sigterm",
        "uninitialised", "uninitialized",
    )  # fmt: skip
    summary_line_max_bytes: int = 160  # a longer line counting things is prose, not a total
    rare_shape_lines: int = 2  # a line of a sampled listing whose shape occurs this rarely stays
    value_rows_named: int = 250  # a listing's values but the usual one name this many rows at most, fewest first
    lead_names_listed: int = 60  # names a sampled listing's rows give after their common first word
    slight_share: float = 0.1  # folds of listing rows hiding less than this share of a document are shown
    ranking_rows: int = 10  # a ranking's top rows kept whole (what a profile's reader reads first)...
    ranking_min_rows: int = 5  # ...in a run of at least this many rows led by falling numbers

    @property
    def words_kept(self) -> tuple[str, ...]:
        return self.signal_words + self.failure_words


DEFAULT_LIMITS = TextConfig()
