"""The diff optimizer's repeated hunk bodies: which bodies fold because one shown earlier says the same.

A hunk body byte-identical to one shown in full earlier in the diff (one edit applied to
many files, vendored copies, a merge's combined diff) leaves `[same N lines as the hunk
above in PATH, line L]`; one with as many lines and at most `max(2, 5%)` of them different
leaves `[…, line L, except:]` followed by each differing line as `[+K] LINE`. Either folds
only when what it leaves is clearly shorter than the body (net of the context folds the
body would get anyway), and only bodies shown in full are ever pointed at.

`HunkBodies` lives for one diff and is fed a batch of files at a time, in input order, so
a body is compared with every earlier batch's. It finds exact repeats by hash and near
repeats through the hashes of a body's `limit + 1` slices, and compares bytes before it
folds anything, so a hash collision never hides a line. It keeps ints and shared strings
rather than an object per body, its hashes in flat tables (`tables.py`), and only the
first `_MAX_BODIES` bodies shown in full: a 1 GB diff has about a million hunks, and
what it holds stays bounded; a later body that repeats one past them is shown in full.
`optimizer.py` owns the decision to fold files and context, `render.py` all rendering.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from itertools import compress, cycle, repeat
from operator import add, ne

from tokenlab.optimizers.diff.parse import Lines, Section
from tokenlab.optimizers.diff.tables import FirstByKey
from tokenlab.patterns import compile_on_use

# The new side's first line in a hunk header: `@@ -1,3 +1,4 @@`, or `@@@ -1,3 -1,3 +1,4 @@@`.
_NEW_START_RE = compile_on_use(rb"@@+ [^@]*?\+(\d+)")
# Earlier bodies compared with a later one per equal slice: the first few found.
_NEAR_CANDIDATES = 4
# What a diff's repeats are found among, whatever its size: the first bodies shown in full
# (about 270 MB of a diff of small hunks), their slices, and the slices several share.
# Past these, a body that repeats a later one is shown in full: nothing is hidden.
_MAX_BODIES = 1 << 18
_MAX_SLICE_KEYS = 1 << 20
_MAX_SHARED_KEYS = 1 << 16


class HunkBodies:
    """Every hunk body shown so far in one diff, and which later bodies repeat one of them."""

    def __init__(self, data: bytes, min_bytes_over_label: int, near_lines: int, near_share: float) -> None:
        self.data = data
        self.min_bytes_over_label = min_bytes_over_label
        self.near_lines = near_lines
        self.near_share = near_share
        # The hunk bodies shown in full, numbered in input order, up to `_MAX_BODIES` of them
        # (the first ones: a later body may repeat only those): where each lies in the
        # input, its file, and each one's number by its hash.
        self._body_bounds = array("q")  # start and end in the input, two per body
        self._body_paths: list[str] = []
        self._first_by_hash = FirstByKey(_MAX_BODIES)
        # Bodies shown in full by the key of each of their slices (`_slice_keys`): the first
        # by key, and up to `_NEAR_CANDIDATES - 1` more where a key has more (for up to
        # `_MAX_SHARED_KEYS` keys).
        self._near_first = FirstByKey(_MAX_SLICE_KEYS)
        self._near_more: dict[int, list[int]] = {}
        self._view = memoryview(data)

    def repeated(
        self, lines: Lines, files: list[tuple[Section, str]], folded_bytes: Callable[[int, int], int]
    ) -> tuple[list[int], list[int], list[str], list[bytes]]:
        """The line ranges, labels and shown lines of the hunk bodies of `files` (shown files
        with hunks, each with its display path) that repeat one shown in full earlier in the
        diff, exactly or but for a few lines, where what they leave is clearly shorter than
        the body. `folded_bytes(first, last)` is what context folds take off lines [first, last)."""
        hunks = [at for section, _ in files for at in section.hunks]
        paths = [path for section, name in files for path in repeat(name, len(section.hunks) // 2)]
        bounds = lines.offsets(list(map(add, hunks, cycle((1, 0)))))  # each body's start and end
        firsts: list[int] = []
        lasts: list[int] = []
        labels: list[str] = []
        shown: list[bytes] = []  # the differing lines shown after a near repeat's label
        view, over = self._view, self.min_bytes_over_label
        for at, path in enumerate(paths):
            header, end = hunks[2 * at : 2 * at + 2]
            start, stop = bounds[2 * at : 2 * at + 2]
            body = view[start:stop]
            key = hash(body)
            first = self._first_by_hash.get(key)
            if (
                first is not None
                and body == view[self._body_bounds[2 * first] : self._body_bounds[2 * first + 1]]
            ):
                label, extra = self._repeat_label(first, end - header - 1, ""), b""
            else:
                items = lines.items[header + 1 : end]
                slices = self._slice_keys(lines, header + 1, end)  # looked up, then maybe recorded: made once
                near = self._near_match(items, slices)
                if near is None:
                    self._record(start, stop, path, key, slices)
                    continue
                first, differing = near
                label = self._repeat_label(first, len(items), ", except:")
                extra = b"".join(b"[+%d] %s\n" % (line + 1, items[line]) for line in differing)
            size = stop - start
            if extra:  # what the body would show: its context folds are not saved twice
                size -= folded_bytes(header + 1, end)
            if size >= len(label.encode()) + len(extra) + over:
                firsts.append(header + 1)
                lasts.append(end)
                labels.append(label)
                shown.append(extra)
            elif extra:  # a near repeat left visible is shown in full: others may match it
                self._record(start, stop, path, key, slices)
        return firsts, lasts, labels, shown

    def _record(self, start: int, stop: int, path: str, key: int, slices: list[int]) -> None:
        """Record the body at [start, stop) of the input, shown in full, as one later bodies
        may repeat: by its hash `key` and its `slices`, while the tables have room."""
        if len(self._body_paths) >= _MAX_BODIES:
            return
        number = len(self._body_paths)
        self._body_bounds.extend((start, stop))
        self._body_paths.append(path)
        self._first_by_hash.add(key, number)
        self._index_near(slices, number)

    def _near_limit(self, count: int) -> int:
        """How many of a body's `count` lines may differ from an earlier one's for it to fold."""
        return max(self.near_lines, int(count * self.near_share))

    def _slice_keys(self, lines: Lines, first: int, stop: int) -> list[int]:
        """Keys of the `limit + 1` slices of the body of lines [first, stop): one of them is
        equal in a body that differs from it in at most `limit` lines of the same count;
        none for a body of at most `limit` lines, which is never a near repeat. A slice is
        hashed as the input bytes of its lines, without the last line break, which are
        equal exactly when its lines are: no line is hashed on its own. A key is one int,
        the hash of the slice's line count, place and bytes' hash: bodies met through equal
        keys are compared line by line before anything folds, as with equal hashes."""
        count = stop - first
        pieces = self._near_limit(count) + 1
        if count < pieces:
            return []
        cuts = [first + count * piece // pieces for piece in range(pieces + 1)]
        view, before, start = self._view, lines.before, lines.start
        return [
            hash((count, piece, hash(view[start + before[a] + a : start + before[b] + b - 1])))
            for piece, (a, b) in enumerate(zip(cuts, cuts[1:]))
        ]

    def _index_near(self, slices: list[int], number: int) -> None:
        """Records body `number`, shown in full, by its `slices`, as one later bodies may
        nearly repeat."""
        for key in slices:
            if self._near_first.add(key, number) is None:
                continue
            more = self._near_more.get(key)
            if more is None and len(self._near_more) < _MAX_SHARED_KEYS:
                more = self._near_more[key] = []
            if more is not None and len(more) < _NEAR_CANDIDATES - 1:
                more.append(number)

    def _near_candidates(self, key: int) -> list[int]:
        """The bodies recorded by slice `key`, in the order they were recorded."""
        first = self._near_first.get(key)
        return [] if first is None else [first, *self._near_more.get(key, ())]

    def _near_match(self, items: list[bytes], slices: list[int]) -> tuple[int, list[int]] | None:
        """The earliest body shown in full with as many lines as `items` (whose `_slice_keys`
        are `slices`) that differs from it in fewest lines, at most the limit and at least
        one, and which lines those are."""
        count, limit = len(items), self._near_limit(len(items))
        best: tuple[int, list[int]] | None = None
        tried: set[int] = set()
        for key in slices:
            for number in self._near_candidates(key):
                if number in tried:
                    continue
                tried.add(number)
                earlier = self.data[self._body_bounds[2 * number] : self._body_bounds[2 * number + 1]]
                if earlier.count(b"\n") + (not earlier.endswith(b"\n")) != count:
                    continue  # another line count, met through a hash collision
                earlier_items = earlier.split(b"\n")
                differing = list(compress(range(count), map(ne, items, earlier_items)))
                if 0 < len(differing) <= limit and (best is None or len(differing) < len(best[1])):
                    best = number, differing
        return best

    def _repeat_label(self, first: int, lines: int, tail: str) -> str:
        """What a repeated body of `lines` lines leaves: where body number `first` was shown."""
        start = self._body_bounds[2 * first]
        # Its hunk header is the line that ends where the body starts.
        header = self.data[self.data.rfind(b"\n", 0, start - 1) + 1 : start - 1]
        new_start = _NEW_START_RE.match(header)
        at_line = f", line {int(new_start[1])}" if new_start else ""
        return f"[same {lines} lines as the hunk above in {self._body_paths[first]}{at_line}{tail}] "
