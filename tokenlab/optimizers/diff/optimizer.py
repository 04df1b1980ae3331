r"""Diff optimizer: every change stays readable, the bookkeeping around it goes to the store.

Kept verbatim: `---`/`+++` file headers, `@@` hunk headers, every `+`/`-` line of ordinary
files (once, where a hunk body repeats), the `diff --cc` line of a combined diff (it says
the file is mid-merge) and every line of its conflict regions (`++<<<<<<<` … `++>>>>>>>`
are added lines), `\ No newline at end of file`, mode changes, binary notices, and any
line the parser does not recognise (commit messages, `Only in …`, a diff cut off mid-line).

Moved into the store:
- git bookkeeping an agent never reads (`index`, `similarity`, plain `new/deleted file mode
  100644`, and `diff --git`/`rename from/to` when `---`/`+++` or a `Binary files … differ`
  line names the files anyway): one ref for all of it, named on the first line;
- unchanged context further than `context_keep` lines from a change: each run leaves a
  `… N lines` line in its place; COARSE puts all folded runs behind one ref, FINE one each;
- whole files that are lockfiles, generated or minified, and git binary patches: one ref
  each, leaving the path and the +/- line counts visible. A file whose path or removed
  lines look security-relevant is never folded as generated or minified, so a removed
  auth or permission check always stays on screen. Lockfiles fold regardless: they are
  resolver output (their package names mention "auth" often), and the manifest change
  behind them stays visible;
- a hunk body byte-identical to one shown earlier in the diff (one edit applied to many
  files, vendored copies, a merge's combined diff): one ref each, leaving its `@@` header
  and `[same N lines as the hunk above in PATH, line L]`, unless the body is barely longer
  than that line. Its first showing keeps every line, conflict markers included. A body
  with as many lines as one shown in full, differing in at most `max(2, 5%)` of them, folds
  the same way (`…, line L, except:]`), then shows each differing line as it is here after
  `[+K] `, its place in the body (the line after the `@@` header is +1), so every line stays
  on screen somewhere; it folds only when that beats the body with its context folded.

The optimizer plans before it renders: `plan` decides which lines leave the visible text
and where they lie in the input, and the pipeline starts the raw count, cut at those
offsets, while `render` builds the text. The text between omissions is an `Excerpt` that
names the runs of input bytes it shows, and every omission names its input ranges, so
both are counted from the raw count rather than by tokenizing half the input again.

The parser (`parse.py`) is a line-based state machine driven by the hunk headers'
line counts, so a removed line that starts with `-- ` is never taken for a file header. It
never raises:
on truncated, hand-edited or non-UTF-8 input whatever it does not recognise stays
visible. `unidiff` parses about 14 MB/s alone on a 10 MB diff, slower than this whole
optimizer has to be, so the tests use it as the oracle for file and line counts instead.
Which hunk bodies repeat one shown earlier is found by `repeats.py`; the parts are built
from the cuts by `render.py`; this module decides everything else.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from array import array
from dataclasses import dataclass
from functools import partial
from itertools import compress, islice, repeat
from operator import add, mul, sub

from tokenlab.optimizers import (
    Granularity,
    OptimizerConfig,
    OptimizeResult,
    PartStream,
    visible,
)
from tokenlab.optimizers.diff.parse import Lines, Section, scan
from tokenlab.optimizers.diff.render import FOLD_LINE, Cuts, CutKind, parts
from tokenlab.optimizers.diff.repeats import HunkBodies
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class DiffConfig:
    context_keep: int = 1  # unchanged lines kept on each side of a change
    # A `… N lines` line costs ~5 tokens and FINE adds a ~7-token marker: fold a run only
    # when its bytes (~4 per token) clearly outweigh that.
    min_fold_bytes_coarse: int = 30
    min_fold_bytes_fine: int = 60
    minified_line_bytes: int = 500
    minified_share: float = 0.5  # of a file's changed bytes in lines that long
    banner_lines: int = 12  # lines at the top of a file searched for a "generated" banner
    # A repeated hunk body leaves a `[same N lines as …]` line and a ~7-token ref marker in
    # its place: fold it only when its bytes exceed that line's by this much.
    min_repeat_bytes_over_label: int = 60
    # A body with as many lines as one shown earlier and at most this many, or this share,
    # of them different also folds, its differing lines shown after the label.
    near_repeat_lines: int = 2
    near_repeat_share: float = 0.05


_LOCKFILES = frozenset(
    b"package-lock.json npm-shrinkwrap.json yarn.lock pnpm-lock.yaml bun.lock poetry.lock "
    b"Pipfile.lock pdm.lock uv.lock Cargo.lock composer.lock Gemfile.lock go.sum "
    b"flake.lock mix.lock pubspec.lock Podfile.lock packages.lock.json gradle.lockfile "
    b"Package.resolved".split()
)
_GENERATED_PATH_RE = compile_on_use(
    rb"(?:^|/)(?:dist|vendor|node_modules|__generated__|[^/]+\.egg-info)/"
    rb"|\.min\.(?:js|mjs|css)$|\.(?:js|mjs|cjs|css)\.map$"
    rb"|_pb2(?:_grpc)?\.pyi?$|\.pb\.(?:go|cc|h)$|\.generated\.\w+$|\.g\.dart$"
    rb"|(?:^|/)PKG-INFO$",
    re.IGNORECASE,
)
_BANNER_RE = compile_on_use(
    rb"@generated|do not edit|code generated by|auto-?generated|automatically generated",
    re.IGNORECASE,
)
# pip-compile output is a lockfile under a .txt name; its `# via` notes give it away.
_PIP_COMPILE_RE = compile_on_use(rb"^[ +\-] {4}# via\b", re.MULTILINE)
_SECURITY_PATH_RE = compile_on_use(
    rb"auth|secur|permission|acl\b|csrf|xsrf|login|passw|credential|secret|crypt|token"
    rb"|session|guard|polic|firewall|access|oauth|saml|jwt|saniti|ssl|tls|cert",
    re.IGNORECASE,
)
_SECURITY_CODE_RE = compile_on_use(
    rb"auth(?!or)|permission|grant|csrf|xsrf|verify|login|passw|secret|token|nonce"
    rb"|signature|hmac|saniti|escape|validat|role|admin|acl\b|access|deny|forbid|allow"
    rb"|ssl|tls|cert|crypt|session|guard|policy",
    re.IGNORECASE,
)


def optimize(data: bytes, config: OptimizerConfig) -> OptimizeResult:
    return plan(data, config).render()


def plan(data: bytes, config: OptimizerConfig) -> DiffPlan:
    return plan_diff(data, config.granularity, DiffConfig())


def optimize_diff(data: bytes, granularity: Granularity, config: DiffConfig) -> OptimizeResult:
    return plan_diff(data, granularity, config).render()


def plan_diff(data: bytes, granularity: Granularity, config: DiffConfig) -> DiffPlan:
    return DiffPlan(data, _Renderer(data, granularity, config))


class DiffPlan:
    """Which lines leave the visible text, decided a batch of files at a time before any text is built."""

    def __init__(self, data: bytes, renderer: _Renderer) -> None:
        self.data = data
        self.renderer = renderer
        self._cuts = Cuts()
        self._batches = self._planned()

    def input_cuts(self) -> Iterator[list[int]]:
        """Where each cut starts and ends in the input, a batch of files at a time, as they are read."""
        for cuts in self._batches:
            self._cuts.extend(cuts)
            yield [at for pair in zip(cuts.starts, cuts.ends) for at in pair]

    def render(self) -> OptimizeResult:
        return OptimizeResult(tuple(self.stream().parts))

    def stream(self) -> PartStream:
        """The parts as they are built. They hold the input and the cuts only, not what the
        plan kept to decide (a large diff's hunk bodies): that goes with the plan."""
        for _ in self.input_cuts():  # plan whatever was not read yet
            pass
        cuts = self._cuts
        return PartStream(parts(self.data, self.renderer.fine, cuts), omits=bool(cuts.starts))

    def _planned(self) -> Iterator[Cuts]:
        batch_size = _FIRST_SECTIONS_PER_BATCH
        for start, end in _segments(self.data):
            lines = Lines(self.data, start, end)
            sections = scan(lines)
            while batch := list(islice(sections, batch_size)):
                yield self.renderer.cuts(lines, batch)
                batch_size = min(2 * batch_size, _SECTIONS_PER_BATCH)


# Files planned together: enough that the per-batch maps cost little per file, few enough
# that the count starts on the first ones early. The first batches, and the first
# segments, are smaller still: the count waits for the first cuts.
_FIRST_SECTIONS_PER_BATCH = 16
_SECTIONS_PER_BATCH = 256
# The input is split into lines a segment at a time, so that counting starts after the
# first segment is split rather than the whole input, and the lines of one segment at a
# time are held.
_FIRST_SEGMENT_BYTES = 256 << 10
_SEGMENT_BYTES = 4 << 20


def _segments(data: bytes) -> Iterator[tuple[int, int]]:
    """Stretches of up to about `_SEGMENT_BYTES`, each after the first beginning with a `diff ` line.

    No file's part of the diff crosses such a line (every parser state ends at it), so
    planning the segments one by one plans the same files as planning the whole.
    """
    start, size = 0, _FIRST_SEGMENT_BYTES
    while start < len(data):
        found = data.find(b"\ndiff ", start + size)
        end = len(data) if found < 0 else found + 1
        yield start, end
        start, size = end, min(2 * size, _SEGMENT_BYTES)


# --- deciding ----------------------------------------------------------------------------


class _Renderer:
    def __init__(self, data: bytes, granularity: Granularity, config: DiffConfig) -> None:
        self.data = data
        self.fine = granularity is Granularity.FINE
        self.config = config
        self.min_fold_bytes = config.min_fold_bytes_fine if self.fine else config.min_fold_bytes_coarse
        self.bodies = HunkBodies(
            data, config.min_repeat_bytes_over_label, config.near_repeat_lines, config.near_repeat_share
        )

    def cuts(self, lines: Lines, sections: list[Section]) -> Cuts:
        """A batch of files' cuts: bookkeeping and whole files file by file, repeated hunk
        bodies and context all at once."""
        firsts: list[int] = []  # each cut's first line and the line after it
        lasts: list[int] = []
        kinds = bytearray()
        labels: dict[int, tuple[str, bytes]] = {}  # by place in `firsts`: a label and what follows
        runs: list[int] = []
        with_hunks: list[tuple[Section, str]] = []  # shown files' hunks may repeat earlier ones
        for section in sections:
            fold = _fold_kind(section, lines, self.config)
            if fold:
                counts = "" if section.binary_patch else f", +{section.added} -{section.removed} lines"
                firsts.append(section.start)
                lasts.append(section.end)
                kinds.append(CutKind.FILE)
                labels[len(firsts) - 1] = f"[{_display_path(section)}: {fold}{counts}] ", b""
                continue
            if section.hunks:
                with_hunks.append((section, _display_path(section)))
            folded = list(section.meta_lines)
            if section.has_path_lines or section.binary_notice:
                folded.extend(section.naming_lines)
                if section.diff_line >= 0 and not section.combined:
                    folded.append(section.diff_line)
            for start, end in _ranges(sorted(folded)):
                firsts.append(start)
                lasts.append(end)
                kinds.append(CutKind.META)
            runs += section.runs
        folds = self._context_cuts(lines, runs)  # as if every body were shown
        repeat_firsts, repeat_lasts, repeat_labels, repeat_shown = self.bodies.repeated(
            lines, with_hunks, partial(_folded_bytes, lines, folds)
        )
        labels.update(enumerate(zip(repeat_labels, repeat_shown), len(firsts)))
        firsts += repeat_firsts
        lasts += repeat_lasts
        kinds += bytes([CutKind.REPEAT]) * len(repeat_firsts)
        runs = _runs_outside(runs, repeat_firsts, repeat_lasts)
        context_firsts, context_lasts = self._context_cuts(lines, runs)
        firsts += context_firsts
        lasts += context_lasts
        kinds += bytes([CutKind.CONTEXT]) * len(context_firsts)
        order = sorted(range(len(firsts)), key=firsts.__getitem__)
        firsts, lasts = list(map(firsts.__getitem__, order)), list(map(lasts.__getitem__, order))
        return Cuts(
            lines.offsets(firsts),
            lines.offsets(lasts),
            array("q", map(sub, lasts, firsts)),
            bytearray(map(kinds.__getitem__, order)),
            {at: labels[was] for at, was in enumerate(order) if was in labels},
        )

    def _context_cuts(self, lines: Lines, runs: list[int]) -> tuple[list[int], list[int]]:
        """The line ranges folded out of context runs (`Section.runs`): all but `context_keep`
        lines next to each change, where that leaves enough bytes to be worth a fold."""
        keep = self.config.context_keep
        firsts = list(map(add, runs[0::4], map(mul, runs[2::4], repeat(keep))))
        lasts = list(map(max, firsts, map(sub, runs[1::4], map(mul, runs[3::4], repeat(keep)))))
        counts = list(map(sub, lasts, firsts))
        before = lines.before.__getitem__
        sizes = map(sub, map(before, lasts), map(before, firsts))  # newlines excluded
        folds = [count > 0 and size >= self.min_fold_bytes for count, size in zip(counts, sizes)]
        return list(compress(firsts, folds)), list(compress(lasts, folds))



def _folded_bytes(lines: Lines, folds: tuple[list[int], list[int]], first: int, last: int) -> int:
    """Bytes the context folds (sorted line ranges) inside lines [first, last) take off the
    visible text, net of their `… N lines` lines."""
    firsts, lasts = folds
    saved = 0
    at = bisect_left(firsts, first)
    while at < len(firsts) and lasts[at] <= last:
        lines_folded = lasts[at] - firsts[at]
        folded = lines.before[lasts[at]] - lines.before[firsts[at]] + lines_folded
        saved += folded - len(FOLD_LINE % lines_folded)
        at += 1
    return saved


def _runs_outside(runs: list[int], firsts: list[int], lasts: list[int]) -> list[int]:
    """Context runs (four ints each, see `Section.runs`) outside the sorted line ranges
    [firsts[i], lasts[i])."""
    if not firsts:
        return runs
    kept: list[int] = []
    for at in range(0, len(runs), 4):
        inside = bisect_right(firsts, runs[at]) - 1
        if inside < 0 or runs[at] >= lasts[inside]:
            kept += runs[at : at + 4]
    return kept


def _ranges(indices: list[int]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for index in indices:
        if ranges and ranges[-1][1] == index:
            ranges[-1] = (ranges[-1][0], index + 1)
        else:
            ranges.append((index, index + 1))
    return ranges


def _display_path(section: Section) -> str:
    old, new = section.old_path, section.new_path
    if section.has_path_lines and old and new and old != new:
        return f"{visible(old)} → {visible(new)}"
    return visible(new or old) or "(unnamed file)"


def _fold_kind(section: Section, lines: Lines, config: DiffConfig) -> str | None:
    """Why this whole file goes behind one ref, or None to show it."""
    if section.binary_patch:
        return "binary patch"
    path = section.new_path or section.old_path
    name = path.rsplit(b"/", 1)[-1]
    if name in _LOCKFILES:
        return "lockfile"
    if section.body_start < 0:
        return None
    body = lines.items[section.body_start : section.end]
    if name.endswith(b".txt") and _PIP_COMPILE_RE.search(b"\n".join(body)):
        return "lockfile (pip-compile)"
    kind = _generated_kind(path, body, section.near_top, config)
    if kind and not _security_relevant(path, body, config):
        return kind
    return None


def _generated_kind(path: bytes, body: list[bytes], near_top: bool, config: DiffConfig) -> str | None:
    if _GENERATED_PATH_RE.search(path):
        return "generated"
    if near_top and _BANNER_RE.search(b"\n".join(body[: config.banner_lines])):
        return "generated"
    longest = max(map(len, body), default=0)
    if longest >= config.minified_line_bytes:
        long_bytes = sum(len(line) for line in body if len(line) >= config.minified_line_bytes)
        if long_bytes >= config.minified_share * sum(map(len, body)):
            return "minified"
    return None


def _security_relevant(path: bytes, body: list[bytes], config: DiffConfig) -> bool:
    if _SECURITY_PATH_RE.search(path):
        return True
    limit = config.minified_line_bytes
    removed = b"\n".join(line for line in body if line[:1] == b"-" and len(line) < limit)
    return bool(_SECURITY_CODE_RE.search(removed))
