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
hits, with their context lines, go behind one ref that the heading names with their
count. Hits printed alike and alone show once with their places (see `_shown_lines` and
`_alike_line`): a definition copied into stubs or mocks costs one line. When many
files import the name alike, each import line is shown once, with the number of files
that print it, after the files that define the name (see `_imports_shared`).
Neighbouring files that show no line share one line per folder and one ref
(`./test/ (5 files, 63 hits): test_a.py (53), …: #ref:ctx_…`). A file is never dropped,
and a definition is never folded.

How many hits each file shows is the largest number, alike for every file (every hit,
then `max_shown` down to none), whose rendering fits a share of the input's bytes; what
is left of that share shows one more level of the first files. Binary-file notices are
summarised by folder behind one ref, `grep -c` counts keep every file that has a hit and
fold the files with none. Lines that are no search output (errors) are shown first.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from itertools import islice

from tokenlab.mapped import line_count
from tokenlab.optimizers import (
    Granularity,
    Omission,
    OptimizerConfig,
    OptimizeResult,
    Part,
    Span,
    join_literals,
    visible,
)
from tokenlab.optimizers.lines.words import is_whole_word, window
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

DEFAULT_LIMITS = SearchLimits()
FINE_LIMITS = SearchLimits(budget_share=0.25, max_shown=6)
_SAMPLE_BYTES = 64 * 1024
_MARKER_CHARS = 16  # `#ref:ctx_123abc`, for the budget
_COMMENT_STARTS = ("#", "//", "/*", "*", "--", ";", "<!--", '"""', "'''")
_KIND_NAMES = {Kind.TEST: "tests", Kind.DOC: "docs"}
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


@dataclass
class _FilePlan:
    found: FileHits
    kind: Kind
    definitions: list[int]  # indexes of the hits that define the searched name
    ranked: list[int]  # the other hits, best first, without imports (shown apart)
    strengths: list[Strength]  # how surely each hit defines the name
    strength: Strength  # how surely its surest definition defines the name
    sizes: list[int]  # each hit's printed bytes
    widths: list[int]  # each hit's longest line under a heading, in characters
    near: list[list[Printed]]  # each hit's lines shown with it: see `_near_lines`


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
    parts: list[Part] = [_header(listing, searched, plans, line_count(data))]
    parts += _other_parts(listing.other, data, limits)
    parts += _render_files(views[:defining], data)  # the files that define the name come first
    parts += imports
    parts += _render_files(views[defining:], data, plans[defining - 1].kind if defining else Kind.SOURCE)
    parts += _binary_parts(listing.binary, data, limits)
    signals = [
        _shown_printed(hit.line, searched, limits)
        for plan in plans
        for hit in (plan.found.hits[at] for at in plan.definitions)
    ]
    signals += [line.rstrip("\n") for line in imports[1:]]  # the forms shown
    return OptimizeResult(tuple(join_literals(parts)), tuple(dict.fromkeys(signals[:_MAX_SIGNALS])))


def _views_within(
    plans: list[_FilePlan], budget: int, searched: SearchedName | None, data: bytes, limits: SearchLimits
) -> list[_FileView]:
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
        views = [_view(plan, cap, fold_min_bytes, searched, limits) for plan in plans]
        spare = budget + (slack if at == 0 else 0) - _size(_render_files(views, None))
        if spare >= 0 or at == len(levels) - 1:
            break
    if at == 0 or spare <= 0:
        return views
    richer_cap, richer_fold_min = levels[at - 1]
    for index, plan in enumerate(plans):
        richer = _view(plan, richer_cap, richer_fold_min, searched, limits)
        extra = _size(_run_parts([richer], None)) - _size(_run_parts([views[index]], None))
        if 0 < extra <= spare:
            views[index] = richer
            spare -= extra
    return views


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


def _plan(found: FileHits, strengths: list[Strength], searched: SearchedName | None) -> _FilePlan:
    defining = [at for at, strength in enumerate(strengths) if strength >= Strength.BINDING]
    defining.sort(key=lambda at: -strengths[at])
    others = [at for at, strength in enumerate(strengths) if strength < Strength.IMPORT]
    others.sort(key=lambda at: (-strengths[at], -_score(found.hits[at].line.text, searched)))
    sizes = [sum(line.span[1] - line.span[0] for line in hit.printed) for hit in found.hits]
    near = [_near_lines(hit) for hit in found.hits]
    widths = [max(0 if line.shown_as else len(line.shown) for line in lines) for lines in near]
    # A mention orders a file's own hits, not the files.
    strongest = max((strength for strength in strengths if strength >= Strength.BINDING), default=Strength.USE)
    return _FilePlan(found, kind_of(found.path), defining, others, strengths, strongest, sizes, widths, near)


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


def _imports_block(plans: list[_FilePlan], searched: SearchedName | None, limits: SearchLimits) -> list[str]:
    """The lines that import the name, each printed form (line number and text) once with
    the number of files that print it, the most shared first, at most `max_import_forms`;
    every file keeps its own imports behind its ref."""
    files: Counter[str] = Counter()
    for plan in plans:
        imports = (
            hit for hit, strength in zip(plan.found.hits, plan.strengths) if strength is Strength.IMPORT
        )
        files.update({_shown_printed(hit.line, searched, limits) for hit in imports})
    importing = sum(1 for plan in plans if Strength.IMPORT in plan.strengths)
    forms = files.most_common(limits.max_import_forms)
    more = len(files) - len(forms)
    rest = f", {more:,} more behind the files' refs" if more > 0 else ""
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
    at = _name_at(text, searched)
    whole = at >= 0 and is_whole_word(text, at, at + len(searched.name))
    return 2 * whole + code


def _name_at(text: str, searched: SearchedName) -> int:
    if searched.ignore_case:
        return text.lower().find(searched.name.lower())
    return text.find(searched.name)


def _shown_printed(line: Printed, searched: SearchedName | None, limits: SearchLimits) -> str:
    return line.shown_as or _shown_line(line.shown, searched, limits)


def _shown_line(line: str, searched: SearchedName | None, limits: SearchLimits) -> str:
    at = _name_at(line, searched) if searched else 0
    return window(line, max(at, 0), limits.max_line_chars)


@dataclass(frozen=True)
class _FileView:
    """What a file shows at one cap: its shown lines, and the hits behind its ref."""

    plan: _FilePlan
    shown: list[str]
    folded: list[int]  # indexes of the hits not shown
    clipped: list[int]  # indexes of the hits shown as a window of a long line
    trimmed: list[int]  # indexes of the hits shown without their far context lines

    @property
    def behind(self) -> list[Hit]:
        """The hits behind the ref, in input order."""
        hits = self.plan.found.hits
        return [hits[at] for at in sorted({*self.folded, *self.clipped, *self.trimmed})]


def _view(
    plan: _FilePlan, cap: int | None, fold_min_bytes: int, searched: SearchedName | None, limits: SearchLimits
) -> _FileView:
    """Definitions and up to `cap` best other hits, in line order; the rest folded,
    unless it is smaller than `fold_min_bytes`. Imports shown apart are always folded."""
    hits = plan.found.hits
    chosen = sorted(plan.definitions + (plan.ranked if cap is None else plan.ranked[:cap]))
    shown_at = set(chosen)
    folded = [at for at in range(len(hits)) if at not in shown_at]
    if sum(plan.sizes[at] for at in folded) < fold_min_bytes:
        chosen = sorted(plan.definitions + plan.ranked)
        folded = [at for at in range(len(hits)) if plan.strengths[at] is Strength.IMPORT]
    shown = _shown_lines(plan, chosen, searched, limits)
    clipped = [at for at in chosen if plan.widths[at] > limits.max_line_chars]
    trimmed = [at for at in chosen if len(plan.near[at]) < len(hits[at].printed)]
    return _FileView(plan, shown, folded, clipped, trimmed)


def _shown_lines(
    plan: _FilePlan, chosen: list[int], searched: SearchedName | None, limits: SearchLimits
) -> list[str]:
    """The chosen hits' lines in line order; hits printed alike and alone (no context
    line) show once, where the first is, with every line number: `{1084 1202}:  def f():`.
    Stubs and mocks define a name in the same words many times, and each copy would cost
    the whole line again to say only where it is."""
    hits = plan.found.hits
    alike: dict[str, list[int]] = {}
    alone = {
        at for at in chosen if _alone(hits[at], plan.near[at]) and plan.widths[at] <= limits.max_line_chars
    }
    for at in chosen:
        if at in alone:
            alike.setdefault(hits[at].line.text, []).append(at)
    shown: list[str] = []
    for at in chosen:
        group = alike[hits[at].line.text] if at in alone else []
        if len(group) > 1:
            if at == group[0]:
                numbers = " ".join(hits[other].line.number for other in group)
                first = _shown_printed(hits[at].line, searched, limits)
                shown.append(f"{{{numbers}}}{first[len(hits[at].line.number) :]}")
            continue
        shown += [_shown_printed(line, searched, limits) for line in plan.near[at]]
    return shown


def _alone(hit: Hit, near: list[Printed]) -> bool:
    """Whether the hit is shown as one `12:text` line: numbered, with no context line."""
    return near == [hit.line] and hit.line.mark == ":" and hit.line.number.isdigit() and not hit.line.shown_as


def _render_files(views: list[_FileView], data: bytes | None, kind: Kind = Kind.SOURCE) -> list[Part]:
    """Each file under its heading, `[tests]` and `[docs]` before those kinds (after files of
    `kind`); neighbouring files that show nothing share a line per folder."""
    parts: list[Part] = []
    for run in _runs(views):
        if run[0].plan.kind is not kind:
            kind = run[0].plan.kind
            parts.append(f"[{_KIND_NAMES[kind]}]\n")
        parts += _run_parts(run, data)
    return parts


def _runs(views: list[_FileView]) -> list[list[_FileView]]:
    """Views in order, neighbours of one kind in one run: those that show nothing, of one
    folder, and those whose one hit is printed alike (`_alike_line`)."""
    runs: list[list[_FileView]] = []
    for view in views:
        last = runs[-1] if runs else []
        joins = (
            last
            and not view.shown
            and not last[-1].shown
            and last[-1].plan.kind is view.plan.kind
            and _shared_folder([*(v.plan.found.path for v in last), view.plan.found.path])
        ) or (
            last
            and last[-1].plan.kind is view.plan.kind
            and (text := _alike_line(view)) is not None
            and text == _alike_line(last[-1])
        )
        if joins:
            last.append(view)
        else:
            runs.append([view])
    return runs


def _shared_folder(paths: list[str]) -> str:
    """The folder the paths share, if it says where they are: two levels deep, or theirs."""
    common = os.path.commonprefix(paths)  # of strings: cut back to a folder below
    folder = common[: common.rfind("/") + 1]
    levels = [part for part in folder.split("/") if part not in ("", ".", "..")]
    own = all("/" not in path[len(folder) :] for path in paths)
    return folder if len(levels) >= 2 or (folder and own) else ""


def _alike_line(view: _FileView) -> str | None:
    """The text of a file's one hit, when it is all the file shows (`12:text`): files
    printing the same line (stubs of one interface, copies) share one line that lists
    where (`{in stubs/: a.pyi:51 b.pyi:19}:    def f(…): ...`)."""
    hits = view.plan.found.hits
    if len(hits) != 1 or view.behind or len(view.shown) != 1 or not _alone(hits[0], view.plan.near[0]):
        return None
    path, number = view.plan.found.path, hits[0].line.number
    listable = not any(character.isspace() or character in "{}" for character in path)
    return view.shown[0][len(number) :] if listable and view.shown[0].startswith(number) else None


def _alike_parts(run: list[_FileView]) -> list[Part]:
    folder = _shared_folder([view.plan.found.path for view in run])
    places = " ".join(
        f"{view.plan.found.path[len(folder) :]}:{view.plan.found.hits[0].line.number}" for view in run
    )
    listed = f"{{in {folder}: {places}}}" if folder else f"{{{places}}}"
    return [f"{listed}{_alike_line(run[0])}\n"]


def _run_parts(run: list[_FileView], data: bytes | None) -> list[Part]:
    if len(run) > 1 and run[0].shown:
        return _alike_parts(run)
    if len(run) > 1:
        folder = _shared_folder([view.plan.found.path for view in run])
        hits = sum(len(view.plan.found.hits) for view in run)
        names = ", ".join(
            f"{view.plan.found.path[len(folder) :]} ({len(view.plan.found.hits):,})" for view in run
        )
        behind = [hit for view in run for hit in view.behind]
        omission = _omission(f"{len(run)} files in {folder}", behind, data)
        return [f"{folder} ({len(run):,} files, {hits:,} {_hits_word(hits)}): {names}: ", omission, "\n"]
    view = run[0]
    found = view.plan.found
    count = f" ({len(found.hits):,} hits)" if len(found.hits) > 1 else ""
    if not view.shown:
        return [f"{found.path}{count}: ", _omission(found.path, view.behind, data), "\n"]
    lines = [line + "\n" for line in view.shown]
    if not view.behind:
        return [f"{found.path}{count}\n", *lines]
    # What the ref holds is said on the heading, which costs a line less than under it.
    what = [f"{len(found.hits):,} hits"] if len(found.hits) > 1 else []
    what += [f"{len(view.folded):,} more"] if view.folded else []
    what += [f"{len(view.clipped):,} long lines in full"] if view.clipped else []
    what += [_trimmed_label(view)] if view.trimmed else []
    return [f"{found.path} ({', '.join(what)}: ", _omission(found.path, view.behind, data), ")\n", *lines]


def _trimmed_label(view: _FileView) -> str:
    """What the ref adds to the trimmed hits shown: far context, or only the file's own
    begin and end messages."""
    hits = view.plan.found.hits
    dropped = [line for at in view.trimmed for line in hits[at].printed if line not in view.plan.near[at]]
    if all(line.mark == BOOKKEEPING for line in dropped):
        return "the file's begin and end messages"
    return f"{len(view.trimmed):,} {_hits_word(len(view.trimmed))} with all context"


def _hits_word(count: int) -> str:
    return "hit" if count == 1 else "hits"


def _omission(path: str, hits: list[Hit], data: bytes | None) -> Omission:
    """The hits' printed lines as they are in the input; without `data`, while the
    rendering is only measured, an empty stand-in."""
    if data is None:
        return Omission(b"", "")
    spans = _merged([line.span for hit in hits for line in hit.printed])
    return Omission(
        b"".join(data[start:end] for start, end in spans), f"{path}: hits as printed", tuple(spans)
    )


def _merged(spans: list[Span]) -> list[Span]:
    """Spans in input order, neighbours joined."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _size(parts: list[Part]) -> int:
    return sum(len(part) if isinstance(part, str) else _MARKER_CHARS for part in parts)


def _header(listing: Listing, searched: SearchedName | None, plans: list[_FilePlan], lines: int) -> str:
    """What was searched and how much of it there is: hits and files, and the input's lines
    when it holds more than its hits (context lines of `-C`, `-W`; headings)."""
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
    printed = f"; printed first: {first}" if plans and plans[0].found.path != first else ""
    return (
        f"[search results: {listing.hit_count:,} hits in {len(listing.files):,} files{binary}{size}; {name}; "
        f"then sources, tests, docs{printed}; other hits behind each file's ref]\n"
    )


def _other_parts(other: list[Notice], data: bytes, limits: SearchLimits) -> list[Part]:
    """Lines that are no hits (a tool's errors), as printed; past a few, behind a ref."""
    parts: list[Part] = [notice.text + "\n" for notice in other[: limits.max_other_lines]]
    rest = other[limits.max_other_lines :]
    if rest:
        spans = _merged([notice.span for notice in rest])
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
    spans = _merged([notice.span for notice in binary])
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
        spans = _merged([notice.span for notice in empty])
        omission = Omission(b"".join(data[s:e] for s, e in spans), "files with no hit", tuple(spans))
        parts += [f"[{len(empty):,} files with no hit: ", omission, "]\n"]
    parts += _binary_parts(listing.binary, data, DEFAULT_LIMITS)
    return parts
