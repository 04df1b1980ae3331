"""How each file of a search's results is shown (see `optimizer.py`): its view at a cap of
hits, hits printed alike shown once with their places, and neighbouring files that show
nothing sharing one line per folder; what is not shown goes behind the file's ref, or the
listing's one ref (`listing_omission`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from tokenlab.optimizers import Omission, Part, Span
from tokenlab.optimizers.lines.words import window
from tokenlab.optimizers.search_results.messages import BOOKKEEPING
from tokenlab.optimizers.search_results.names import Kind, SearchedName, Strength
from tokenlab.optimizers.search_results.parse import FileHits, Hit, Printed, SearchLimits

_KIND_NAMES = {Kind.TEST: "tests", Kind.DOC: "docs"}


@dataclass
class FilePlan:
    found: FileHits
    kind: Kind
    definitions: list[int]  # indexes of the hits that define the searched name
    ranked: list[int]  # the other hits, best first, without imports (shown apart)
    strengths: list[Strength]  # how surely each hit defines the name
    strength: Strength  # how surely its surest definition defines the name
    sizes: list[int]  # each hit's printed bytes
    widths: list[int]  # each hit's longest line under a heading, in characters
    near: list[list[Printed]]  # each hit's lines shown with it: see `_near_lines`



def name_at(text: str, searched: SearchedName) -> int:
    if searched.ignore_case:
        return text.lower().find(searched.name.lower())
    return text.find(searched.name)


def shown_printed(line: Printed, searched: SearchedName | None, limits: SearchLimits) -> str:
    return line.shown_as or _shown_line(line.shown, searched, limits)


def _shown_line(line: str, searched: SearchedName | None, limits: SearchLimits) -> str:
    at = name_at(line, searched) if searched else 0
    return window(line, max(at, 0), limits.max_line_chars)


@dataclass(frozen=True)
class FileView:
    """What a file shows at one cap: its shown lines, and the hits behind its ref."""

    plan: FilePlan
    shown: list[str]
    folded: list[int]  # indexes of the hits not shown
    clipped: list[int]  # indexes of the hits shown as a window of a long line
    trimmed: list[int]  # indexes of the hits shown without their far context lines

    @property
    def behind(self) -> list[Hit]:
        """The hits behind the ref, in input order."""
        hits = self.plan.found.hits
        return [hits[at] for at in sorted({*self.folded, *self.clipped, *self.trimmed})]


def file_view(
    plan: FilePlan, cap: int | None, fold_min_bytes: int, searched: SearchedName | None, limits: SearchLimits
) -> FileView:
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
    return FileView(plan, shown, folded, clipped, trimmed)


def _shown_lines(
    plan: FilePlan, chosen: list[int], searched: SearchedName | None, limits: SearchLimits
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
                first = shown_printed(hits[at].line, searched, limits)
                shown.append(f"{{{numbers}}}{first[len(hits[at].line.number) :]}")
            continue
        shown += [shown_printed(line, searched, limits) for line in plan.near[at]]
    return shown


def _alone(hit: Hit, near: list[Printed]) -> bool:
    """Whether the hit is shown as one `12:text` line: numbered, with no context line."""
    return near == [hit.line] and hit.line.mark == ":" and hit.line.number.isdigit() and not hit.line.shown_as


def render_files(
    views: list[FileView], data: bytes | None, limits: SearchLimits, kind: Kind = Kind.SOURCE
) -> list[Part]:
    """Each file under its heading, `[tests]` and `[docs]` before those kinds (after files of
    `kind`); neighbouring files that show nothing share a line per folder, and, with one
    ref for the listing, the files left alone share one line."""
    parts: list[Part] = []
    for run in _runs(views, limits):
        if run[0].plan.kind is not kind:
            kind = run[0].plan.kind
            parts.append(f"[{_KIND_NAMES[kind]}]\n")
        parts += run_parts(run, data, limits)
    return parts


def _runs(views: list[FileView], limits: SearchLimits) -> list[list[FileView]]:
    """Views in order, neighbours of one kind in one run: those that show nothing, of one
    folder, and those whose one hit is printed alike (`_alike_line`). With one ref for the
    listing, files that show nothing and share no folder with a neighbour join in one run:
    each such file's line would only name it and its count."""
    runs: list[list[FileView]] = []
    for view in views:
        last = runs[-1] if runs else []
        if last and last[-1].plan.kind is view.plan.kind and _joins(last, view, limits):
            last.append(view)
        else:
            runs.append([view])
    runs = _gathered_alike(runs, limits)
    if limits.ref_per_file:
        return runs
    joined: list[list[FileView]] = []
    for run in runs:
        last = joined[-1] if joined else []
        if _alone_unshown(run) and _alone_unshown(last) and last[0].plan.kind is run[0].plan.kind:
            last += run
        else:
            joined.append(run)
    return joined


def _joins(run: list[FileView], view: FileView, limits: SearchLimits) -> bool:
    """Whether `view` joins the run before it: both show nothing and share a folder, or
    both show one line printed alike."""
    if not view.shown and not run[-1].shown:
        return bool(_shared_folder([*(other.plan.found.path for other in run), view.plan.found.path]))
    text = alike_line(view, limits)
    return text is not None and text == alike_line(run[-1], limits)


def _gathered_alike(runs: list[list[FileView]], limits: SearchLimits) -> list[list[FileView]]:
    """Runs whose files show one line printed alike join the first such run of their kind,
    wherever it is: a definition copied into several modules (a function and its
    re-implementation, a stub beside its source) costs one line, and the place of each
    copy is still said on it."""
    gathered: list[list[FileView]] = []
    first: dict[tuple[Kind, str], list[FileView]] = {}
    for run in runs:
        text = alike_line(run[0], limits) if run[0].shown else None
        key = (run[0].plan.kind, text or "")
        if text is not None and key in first:
            first[key] += run
            continue
        if text is not None:
            first[key] = run
        gathered.append(run)
    return gathered


def _alone_unshown(run: list[FileView]) -> bool:
    """A run of one file that shows nothing, or a run of such files sharing no folder."""
    paths = [view.plan.found.path for view in run]
    return bool(run) and not run[0].shown and (len(run) == 1 or not _shared_folder(paths))


def _shared_folder(paths: list[str]) -> str:
    """The folder the paths share, if it says where they are: two levels deep, or theirs."""
    common = os.path.commonprefix(paths)  # of strings: cut back to a folder below
    folder = common[: common.rfind("/") + 1]
    levels = [part for part in folder.split("/") if part not in ("", ".", "..")]
    own = all("/" not in path[len(folder) :] for path in paths)
    return folder if len(levels) >= 2 or (folder and own) else ""


def alike_line(view: FileView, limits: SearchLimits) -> str | None:
    """The text of the one hit a file shows (`12:text`), when that line is all it shows:
    files printing the same line (stubs of one interface, copies) share one line that lists
    where (`{in stubs/: a.pyi:51 b.pyi:19}:    def f(…): ...`). With a ref for each file, a
    file whose other hits are behind its ref keeps its heading, which names that ref."""
    shown = _shown_hit(view)
    if shown is None or len(view.shown) != 1 or (limits.ref_per_file and view.behind):
        return None
    hit = view.plan.found.hits[shown]
    if not _alone(hit, view.plan.near[shown]) or shown in view.clipped:
        return None
    path, number = view.plan.found.path, hit.line.number
    listable = not any(character.isspace() or character in "{}," for character in path)
    return view.shown[0][len(number) :] if listable and view.shown[0].startswith(number) else None


def _shown_hit(view: FileView) -> int | None:
    """The index of the one hit a view shows, if it shows exactly one."""
    folded = set(view.folded)
    shown = [at for at in range(len(view.plan.found.hits)) if at not in folded]
    return shown[0] if len(shown) == 1 else None


def _alike_parts(run: list[FileView], limits: SearchLimits) -> list[Part]:
    """`{in folder/: a.py:3 b.py:9}:text`; a file with more hits than the one shown says
    how many, as its heading would, and the places are then parted by commas:
    `{a.py:3 (4 hits), b.py:9}:text`."""
    folder = _shared_folder([view.plan.found.path for view in run])
    places = [
        f"{view.plan.found.path[len(folder) :]}:{view.plan.found.hits[_shown_hit(view) or 0].line.number}"
        + _hits_said(len(view.plan.found.hits))
        for view in run
    ]
    counted = any(len(view.plan.found.hits) > 1 for view in run)
    joined = (", " if counted else " ").join(places)
    listed = f"{{in {folder}: {joined}}}" if folder else f"{{{joined}}}"
    return [f"{listed}{alike_line(run[0], limits)}\n"]


def run_parts(run: list[FileView], data: bytes | None, limits: SearchLimits) -> list[Part]:
    if len(run) > 1 and run[0].shown:
        return _alike_parts(run, limits)
    if len(run) > 1:
        return _unshown_parts(run, data, limits)
    view = run[0]
    found = view.plan.found
    hits = len(found.hits)
    count = f" ({hits:,} hits)" if hits > 1 else ""
    if not view.shown and limits.ref_per_file:
        return [f"{found.path}{count}: ", _omission(found.path, view.behind, data), "\n"]
    if not view.shown:
        return [f"{found.path} ({hits:,} {_hits_word(hits)}, none shown)\n"]
    lines = [line + "\n" for line in view.shown]
    # What is behind a ref besides the hits not shown is said on the heading.
    partly = [f"{len(view.clipped):,} long lines in full"] if view.clipped else []
    partly += [_trimmed_label(view)] if view.trimmed else []
    if not view.behind:
        return [f"{found.path}{count}\n", *lines]
    if not limits.ref_per_file:
        behind = f"; the ref has {', '.join(partly)}" if partly else ""
        shown_count = f" ({hits:,} {_hits_word(hits)}{behind})" if hits > 1 or partly else ""
        return [f"{found.path}{shown_count}\n", *lines]
    what = [f"{hits:,} hits"] if hits > 1 else []
    what += [f"{len(view.folded):,} more"] if view.folded else []
    omission = _omission(found.path, view.behind, data)
    return [f"{found.path} ({', '.join(what + partly)}: ", omission, ")\n", *lines]


def _unshown_parts(run: list[FileView], data: bytes | None, limits: SearchLimits) -> list[Part]:
    """Files that show nothing: `folder/ (3 files, 9 hits): a.py (4), b.py (5), c.py` when they
    share one, else, with one ref for the listing, `[3 files, 9 hits, none shown] …`."""
    folder = _shared_folder([view.plan.found.path for view in run])
    hits = sum(len(view.plan.found.hits) for view in run)
    names = ", ".join(view.plan.found.path[len(folder) :] + _count(len(view.plan.found.hits)) for view in run)
    counts = f"{len(run):,} files, {hits:,} {_hits_word(hits)}"
    if not limits.ref_per_file:
        return [f"{folder} ({counts}): {names}\n" if folder else f"[{counts}, none shown] {names}\n"]
    omission = _omission(f"{len(run)} files in {folder}", [hit for view in run for hit in view.behind], data)
    return [f"{folder} ({counts}): {names}: ", omission, "\n"]


def _trimmed_label(view: FileView) -> str:
    """What the ref adds to the trimmed hits shown: far context, or only the file's own
    begin and end messages."""
    hits = view.plan.found.hits
    dropped = [line for at in view.trimmed for line in hits[at].printed if line not in view.plan.near[at]]
    if all(line.mark == BOOKKEEPING for line in dropped):
        return "the file's begin and end messages"
    return f"{len(view.trimmed):,} {_hits_word(len(view.trimmed))} with all context"


def _count(hits: int) -> str:
    """A listed file's hit count, said as its heading says it: only when more than one."""
    return f" ({hits:,})" if hits > 1 else ""


def _hits_said(hits: int) -> str:
    """A file's hit count as its heading says it: only when more than one."""
    return f" ({hits:,} hits)" if hits > 1 else ""


def _hits_word(count: int) -> str:
    return "hit" if count == 1 else "hits"


def _omission(path: str, hits: list[Hit], data: bytes | None) -> Omission:
    """The hits' printed lines as they are in the input; without `data`, while the
    rendering is only measured, an empty stand-in."""
    if data is None:
        return Omission(b"", "")
    spans = merged([line.span for hit in hits for line in hit.printed])
    return Omission(
        b"".join(data[start:end] for start, end in spans), f"{path}: hits as printed", tuple(spans)
    )


def merged(spans: list[Span]) -> list[Span]:
    """Spans in input order, neighbours joined."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def listing_omission(views: list[FileView], data: bytes) -> Omission | None:
    """Every hit that no file shows (or shows only in part), as printed, after its file's
    heading line when the tool printed one: the listing's one ref, which reads as a
    listing of those hits."""
    spans: list[Span] = []
    for view in views:
        behind = view.behind
        heading = view.plan.found.heading
        if behind and heading is not None:
            spans.append(heading)
        spans += [line.span for hit in behind for line in hit.printed]
    if not spans:
        return None
    joined = merged(spans)
    content = b"".join(data[start:end] for start, end in joined)
    return Omission(content, "hits not shown, as printed", tuple(joined))
