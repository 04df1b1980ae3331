"""Search results optimizer: every file named with its hit count, definitions first,
a long list folded by file.

What a person wants from `grep -rn X` over a tree is where X is defined, which files use
it and how much; cutting the list by position (the first hundred lines) hides the few
lines that define X among call sites and folds files with one hit while dozens of hits in
test files stay. So the hits are grouped by file and the files are reordered: files that
define the searched name (see `names.py`) come first, then the other sources, then tests,
then docs, each kind in the order the tool printed them (a declaration, `class X`, ranks
before a binding); the header names the file the tool printed first. Under its heading
(`path (12 hits)`) a file shows its definition lines and its best other hits (whole-word
uses of the name before partial matches and comments), in line order; the rest of its
hits, with their context lines, are not shown. Hits printed alike and alone show once with
their places (see `views._shown_lines` and `views._alike_line`): a definition copied into
stubs or mocks costs one line. When many files import the name alike, each import line is
shown once, with the number of files that print it, after the files that define the name
(see `_imports_shared`). Neighbouring files that show no line share one line per folder
(`./test/ (5 files, 63 hits): test_a.py (53), …`), and the others one line of their own
(`[3 files, 4 hits, none shown] a.py (2), …`). A file is never dropped, and a definition
is never folded.

Where the hits not shown are: COARSE, one ref in the header holds all of them, as printed
(each after its file's heading line, when the tool printed headings), in input order, as
other families hold all their folded lines; a ref costs a short line's tokens, and most
files fold some hits. FINE, each file's (or folder line's) own ref, named on its heading.

How many hits each file shows is the largest number, alike for every file (every hit,
then `max_shown` down to none), whose rendering fits a share of the input's bytes; what
is left of that share shows one more level of the first files. Binary-file notices are
summarised by folder behind one ref, `grep -c` counts keep every file that has a hit and
fold the files with none. Lines that are no search output (errors) are shown first.
"""

from __future__ import annotations

from collections import Counter
from itertools import islice

from tokenlab.mapped import line_count
from tokenlab.optimizers import (
    Granularity,
    Omission,
    OptimizerConfig,
    OptimizeResult,
    Part,
    join_literals,
    visible,
)
from tokenlab.optimizers.lines.words import is_whole_word
from tokenlab.optimizers.search_results.messages import BOOKKEEPING
from tokenlab.optimizers.search_results.names import (
    Definitions,
    Kind,
    SearchedName,
    Strength,
    kind_of,
    searched_name,
)
from tokenlab.optimizers.search_results.parse import (
    DETECT_LINES,
    FileHits,
    Form,
    Hit,
    Listing,
    Notice,
    Printed,
    SearchLimits,
    form_of,
    lines_of,
    parse,
)
from tokenlab.optimizers.search_results.views import (
    FilePlan,
    alike_line,
    FileView,
    file_view,
    listing_omission,
    merged,
    name_at,
    render_files,
    run_parts,
    shown_printed,
)

DEFAULT_LIMITS = SearchLimits()
FINE_LIMITS = SearchLimits(budget_share=0.25, max_shown=6, ref_per_file=True)
_SAMPLE_BYTES = 64 * 1024
_MARKER_CHARS = 16  # `#ref:ctx_123abc`, for the budget
_COMMENT_STARTS = ("#", "//", "/*", "*", "--", ";", "<!--", '"""', "'''")
_MAX_SIGNALS = 50
_MAX_FOLDERS_NAMED = 5
_CONTEXT_NEAR = 3  # context lines this close to a hit are shown with it


def form_of_input(data: bytes) -> Form | None:
    """The search output form of `data`, read from its first lines."""
    sample = data[:_SAMPLE_BYTES]
    # Only the first DETECT_LINES are read; one more tells whether the sample's last
    # (possibly cut) line is among them.
    lines = [text for _, text in islice(lines_of(sample), DETECT_LINES + 1)]
    if len(sample) < len(data) and len(lines) > 1:
        lines.pop()  # the sample may end inside a line
    return form_of(lines[:DETECT_LINES])


def optimize(data: bytes, config: OptimizerConfig) -> OptimizeResult:
    limits = FINE_LIMITS if config.granularity is Granularity.FINE else DEFAULT_LIMITS
    return optimize_search_results(data, limits)


def optimize_search_results(data: bytes, limits: SearchLimits) -> OptimizeResult:
    form = form_of_input(data) if len(data) > limits.verbatim_bytes else None
    if form is None:
        return OptimizeResult((visible(data),))
    listing = parse(data, form)
    if form is Form.COUNTS:
        return OptimizeResult(tuple(join_literals(_counts(listing, data))))
    return _hits(listing, data, limits)


def _hits(listing: Listing, data: bytes, limits: SearchLimits) -> OptimizeResult:
    texts = [hit.line.text for found in listing.files for hit in found.hits]
    searched = searched_name(texts)
    definitions = Definitions.of(searched) if searched else None
    strengths = [
        [definitions.strength(hit.line.text, found.path) for hit in found.hits]
        if definitions
        else [Strength.USE] * len(found.hits)
        for found in listing.files
    ]
    shared = _imports_shared(listing.files, strengths, limits)
    if definitions and not shared:
        strengths = [
            [_import_in_place(strength, hit.line.text, definitions) for strength, hit in zip(row, found.hits)]
            for row, found in zip(strengths, listing.files)
        ]
    plans = sorted(
        (_plan(found, row, searched) for found, row in zip(listing.files, strengths)),
        key=lambda plan: (plan.kind, -plan.strength),
    )
    imports = _imports_block(plans, searched, limits) if shared else []
    budget = max(limits.budget_floor, int(len(data) * limits.budget_share)) - _size(list(imports))
    views = _views_within(plans, budget, searched, data, limits)
    defining = next((at for at, plan in enumerate(plans) if not plan.definitions), len(plans))
    behind = None if limits.ref_per_file else listing_omission(views, data)
    parts = _header(listing, searched, plans, line_count(data), behind, limits)
    if isinstance(parts[0], str) and definitions:
        parts[0] = _mentions_said(views, parts[0])
    parts += _other_parts(listing.other, data, limits)
    parts += render_files(views[:defining], data, limits)  # the files that define the name come first
    parts += imports
    kind = plans[defining - 1].kind if defining else Kind.SOURCE
    parts += render_files(views[defining:], data, limits, kind)
    parts += _binary_parts(listing.binary, data, limits)
    signals = [
        shown_printed(hit.line, searched, limits)
        for plan in plans
        for hit in (plan.found.hits[at] for at in plan.definitions)
    ]
    signals += [line.rstrip("\n") for line in imports[1:]]  # the forms shown
    return OptimizeResult(tuple(join_literals(parts)), tuple(dict.fromkeys(signals[:_MAX_SIGNALS])))


def _views_within(
    plans: list[FilePlan], budget: int, searched: SearchedName | None, data: bytes, limits: SearchLimits
) -> list[FileView]:
    """The most hits per file, alike for every file, whose rendering fits `budget`; the
    bytes left over show one level more of the first files (those defining the name, then
    sources). The levels: every hit, then `max_shown` down to none besides definitions, and
    last none however small the rest. A small search (its budget the floor) whose every hit
    fits the floor and `floor_slack` more shows them all: folding would hide a few hits,
    and not alike in every file, to save less than a look-up costs."""
    levels: list[tuple[int | None, int]] = [(None, limits.fold_min_bytes)]
    levels += [(cap, limits.fold_min_bytes) for cap in range(limits.max_shown, -1, -1)]
    levels.append((0, 0))
    slack = int(limits.budget_floor * limits.floor_slack) if budget <= limits.budget_floor else 0
    for at, (cap, fold_min_bytes) in enumerate(levels):
        views = [file_view(plan, cap, fold_min_bytes, searched, limits) for plan in plans]
        spare = budget + (slack if at == 0 else 0) - _size(render_files(views, None, limits))
        if spare >= 0 or at == len(levels) - 1:
            break
    if at == 0 or spare <= 0:
        return views
    richer_cap, richer_fold_min = levels[at - 1]
    sharing = Counter(_shared_key(view, limits) for view in views)
    for index, plan in enumerate(plans):
        richer = file_view(plan, richer_cap, richer_fold_min, searched, limits)
        extra = _richer_extra(views[index], richer, sharing, limits)
        if 0 < extra <= spare:
            sharing[_shared_key(views[index], limits)] -= 1
            views[index] = richer
            spare -= extra
    return views


def _shared_key(view: FileView, limits: SearchLimits) -> tuple[Kind, str] | None:
    """The line a view may share with other files that print it alike (see `views._runs`)."""
    text = alike_line(view, limits)
    return None if text is None else (view.plan.kind, text)


def _richer_extra(
    view: FileView, richer: FileView, sharing: Counter[tuple[Kind, str] | None], limits: SearchLimits
) -> int:
    """What showing `richer` instead of `view` adds, at most: a file that shares its line
    with others leaves its place on that line (counted as nothing saved), and the last
    other file on it then shows the line under its own heading (counted as this one's)."""
    current = _size(run_parts([view], None, limits))
    extra = _size(run_parts([richer], None, limits))
    key = _shared_key(view, limits)
    shared_by = sharing[key] if key is not None else 1
    return extra - current if shared_by == 1 else extra + (current if shared_by == 2 else 0)


def _imports_shared(files: list[FileHits], strengths: list[list[Strength]], limits: SearchLimits) -> bool:
    """Whether the files import the name alike: more than a handful of files, at least
    twice as many as the import lines differ (by line number and text)."""
    forms = {
        hit.line.shown
        for found, row in zip(files, strengths)
        for hit, strength in zip(found.hits, row)
        if strength is Strength.IMPORT
    }
    importing = sum(1 for row in strengths if Strength.IMPORT in row)
    return importing >= limits.min_import_files and importing >= 2 * len(forms)


def _import_in_place(strength: Strength, text: str, definitions: Definitions) -> Strength:
    """Few or unlike imports stay where they are: one that binds the name
    (`const X = require(…)`) shows under its file as a binding does; a statement
    (`import { X } from …`) is a use."""
    if strength is not Strength.IMPORT:
        return strength
    return Strength.BINDING if definitions.binding.match(text) else Strength.USE


def _plan(found: FileHits, strengths: list[Strength], searched: SearchedName | None) -> FilePlan:
    defining = [at for at, strength in enumerate(strengths) if strength >= Strength.BINDING]
    defining.sort(key=lambda at: -strengths[at])
    others = [at for at, strength in enumerate(strengths) if strength < Strength.IMPORT]
    others.sort(key=lambda at: (-strengths[at], -_score(found.hits[at].line.text, searched)))
    sizes = [sum(line.span[1] - line.span[0] for line in hit.printed) for hit in found.hits]
    near = [_near_lines(hit) for hit in found.hits]
    widths = [max(0 if line.shown_as else len(line.shown) for line in lines) for lines in near]
    # A mention orders a file's own hits, not the files.
    strongest = max((strength for strength in strengths if strength >= Strength.BINDING), default=Strength.USE)
    return FilePlan(found, kind_of(found.path), defining, others, strengths, strongest, sizes, widths, near)


def _near_lines(hit: Hit) -> list[Printed]:
    """The hit with the context lines printed within `_CONTEXT_NEAR` lines of it and the
    enclosing function's line (`=`): `git grep -W` prints whole functions as context, and a
    hit should not cost a function's length to show. A file's begin and end messages are
    never shown: the hit then goes behind the file's ref whole, with them."""
    if line_count := sum(1 for line in hit.printed if line.mark != BOOKKEEPING):
        if line_count <= 2 * _CONTEXT_NEAR + 1 or not hit.line.number.isdigit():
            return [line for line in hit.printed if line.mark != BOOKKEEPING]
    number = int(hit.line.number) if hit.line.number.isdigit() else 0
    return [
        line
        for line in hit.printed
        if line is hit.line
        or line.mark == "="
        or (line.mark != BOOKKEEPING and not line.number.isdigit())
        or (line.number.isdigit() and abs(int(line.number) - number) <= _CONTEXT_NEAR)
    ]


def _imports_block(plans: list[FilePlan], searched: SearchedName | None, limits: SearchLimits) -> list[str]:
    """The lines that import the name, each printed form (line number and text) once with
    the number of files that print it, the most shared first, at most `max_import_forms`;
    every file keeps its own imports behind its ref."""
    files: Counter[str] = Counter()
    for plan in plans:
        imports = (
            hit for hit, strength in zip(plan.found.hits, plan.strengths) if strength is Strength.IMPORT
        )
        files.update({shown_printed(hit.line, searched, limits) for hit in imports})
    importing = sum(1 for plan in plans if Strength.IMPORT in plan.strengths)
    forms = files.most_common(limits.max_import_forms)
    more = len(files) - len(forms)
    where = "the files' refs" if limits.ref_per_file else "the ref"
    rest = f", {more:,} more behind {where}" if more > 0 else ""
    name = f"`{searched.name}`" if searched else "the name"
    heading = f"[{name} imported in {importing:,} {_files_word(importing)}; each import line once{rest}]\n"
    lines = [form + (f"  ({count:,} files)" if count > 1 else "") + "\n" for form, count in forms]
    return [heading, *lines]


def _files_word(count: int) -> str:
    return "file" if count == 1 else "files"


def _score(text: str, searched: SearchedName | None) -> int:
    """Whole-word uses of the name before partial matches; code before comments."""
    code = 0 if text.lstrip().startswith(_COMMENT_STARTS) else 1
    if searched is None:
        return code
    at = name_at(text, searched)
    whole = at >= 0 and is_whole_word(text, at, at + len(searched.name))
    return 2 * whole + code


def _size(parts: list[Part]) -> int:
    return sum(len(part) if isinstance(part, str) else _MARKER_CHARS for part in parts)


def _header(
    listing: Listing,
    searched: SearchedName | None,
    plans: list[FilePlan],
    lines: int,
    behind: Omission | None,
    limits: SearchLimits,
) -> list[Part]:
    """What was searched and how much of it there is: hits and files, and the input's lines
    when it holds more than its hits (context lines of `-C`, `-W`; headings); and where the
    hits not shown are."""
    size = f", {lines:,} lines" if lines != listing.hit_count else ""
    binary = f" and {len(listing.binary):,} binary files" if listing.binary else ""
    defined = sum(len(plan.definitions) for plan in plans)
    if searched is None:
        name = "no searched name found"
    elif not defined:
        name = f"`{searched.name}`, not defined in these hits"
    else:
        name = f"`{searched.name}` defined on {defined:,} line{'s' if defined != 1 else ''}, listed first"
    first = listing.files[0].path if listing.files else ""
    printed = f"; printed first: {_first_printed(listing)}" if plans and plans[0].found.path != first else ""
    said = (
        f"[search results: {listing.hit_count:,} hits in {len(listing.files):,} files{binary}{size}; {name}; "
        f"then sources, tests, docs{printed}"
    )
    if limits.ref_per_file:
        return [f"{said}; other hits behind each file's ref]\n"]
    return [f"{said}; hits not shown: ", behind, "]\n"] if behind else [f"{said}]\n"]


def _mentions_said(views: list[FileView], header: str) -> str:
    """The header says when every declaration of another name that names this one
    (`class Path(PurePath):`, a signature) is shown: a reader asking what subclasses it
    then knows no such line is behind the ref."""
    mentions = [view.plan.strengths.count(Strength.MENTION) for view in views]
    hidden = sum(1 for view in views for at in view.folded if view.plan.strengths[at] is Strength.MENTION)
    count = sum(mentions)
    if not count or hidden:
        return header
    said = f"; all {count:,} declarations naming it" if count > 1 else "; the one declaration naming it"
    said += " shown"
    at = header.find("; then sources")
    return header[:at] + said + header[at:] if at >= 0 else header


def _first_printed(listing: Listing) -> str:
    """The first two files in the tool's order, the second after the folder they share
    (`docs/cmd/npm-install.html, npm-update.html`): one alone does not say where the
    hits began once sorted by kind."""
    paths = [found.path for found in listing.files[:2]]
    if len(paths) == 2:
        folder = paths[0].rpartition("/")[0] + "/"
        paths[1] = paths[1].removeprefix(folder) if folder != "/" else paths[1]
    return ", ".join(paths)


def _other_parts(other: list[Notice], data: bytes, limits: SearchLimits) -> list[Part]:
    """Lines that are no hits (a tool's errors), as printed; past a few, behind a ref."""
    parts: list[Part] = [notice.text + "\n" for notice in other[: limits.max_other_lines]]
    rest = other[limits.max_other_lines :]
    if rest:
        spans = merged([notice.span for notice in rest])
        omission = Omission(b"".join(data[s:e] for s, e in spans), "other output", tuple(spans))
        parts += [f"[{len(rest):,} more lines of other output: ", omission, "]\n"]
    return parts


def _binary_parts(binary: list[Notice], data: bytes, limits: SearchLimits) -> list[Part]:
    """Binary-file notices as printed, or, past a few, a count per folder and one ref."""
    if len(binary) <= limits.max_binary_shown:
        return [visible(data[notice.span[0] : notice.span[1]]).rstrip("\r\n") + "\n" for notice in binary]
    folders = Counter(notice.text.rpartition("/")[0] + "/" for notice in binary)
    named = ", ".join(f"{folder} ({count})" for folder, count in folders.most_common(_MAX_FOLDERS_NAMED))
    more = len(folders) - _MAX_FOLDERS_NAMED
    named += f" and {more:,} more folders" if more > 0 else ""
    spans = merged([notice.span for notice in binary])
    omission = Omission(b"".join(data[s:e] for s, e in spans), "binary file notices", tuple(spans))
    return [f"[binary file matches: {len(binary):,} files in {named}; as printed: ", omission, "]\n"]


def _counts(listing: Listing, data: bytes) -> list[Part]:
    """`grep -c` output: files with hits as printed, sources first; files without, behind a ref."""
    hits = sorted((notice for notice in listing.counts if notice.count), key=lambda n: kind_of(n.text))
    empty = [notice for notice in listing.counts if not notice.count]
    total = sum(notice.count for notice in hits)
    header = f"[search counts: {total:,} hits in {len(hits):,} of {len(listing.counts):,} files; "
    parts: list[Part] = [header + "sources, then tests, then docs]\n"]
    parts += [notice.text + "\n" for notice in listing.other]
    parts += [visible(data[n.span[0] : n.span[1]]).rstrip("\r\n") + "\n" for n in hits]
    if empty:
        spans = merged([notice.span for notice in empty])
        omission = Omission(b"".join(data[s:e] for s, e in spans), "files with no hit", tuple(spans))
        parts += [f"[{len(empty):,} files with no hit: ", omission, "]\n"]
    parts += _binary_parts(listing.binary, data, DEFAULT_LIMITS)
    return parts
