"""Runs of lines a family leaves out, each behind one marker, and the census line that
heads the output with a ref to everything folded (the shape of the dependency tree, call
trace and disassembly families)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tokenlab.optimizers import Omission, Part, visible


def fold_unkept(
    data: bytes,
    bounds: Sequence[tuple[int, int]],
    keep: Sequence[bool],
    label: Callable[[int, int], str],
    fine: bool,
    what: str,
) -> tuple[list[Part], list[tuple[int, int]]]:
    """The body: kept lines as they are, each run of others as `label(first, stop)` (with
    its own ref when `fine`), or as they are when the marker would cost as much; and the
    byte spans folded. `bounds` are each line's (start, end) in `data`."""
    body: list[Part] = []
    folded: list[tuple[int, int]] = []
    index = 0
    while index < len(bounds):
        if keep[index]:
            body.append(visible(data[bounds[index][0] : bounds[index][1]]))
            index += 1
            continue
        stop = index
        while stop < len(bounds) and not keep[stop]:
            stop += 1
        start, end = bounds[index][0], bounds[stop - 1][1]
        marker = label(index, stop)
        if stop - index == 1 or end - start <= 2 * len(marker.encode()):  # as costly as a marker
            body.append(visible(data[start:end]))
        else:
            folded.append((start, end))
            if fine:
                body += [marker + " ", Omission(data[start:end], what, ((start, end),)), "\n"]
            else:
                body.append(marker + "\n")
        index = stop
    if body and isinstance(body[-1], str) and not body[-1].endswith("\n"):
        body.append("\n")
    return body, folded


def headed(head: str, data: bytes, folded: Sequence[tuple[int, int]], fine: bool, what: str) -> list[Part]:
    """The census line `[head…]`; at coarse granularity it also holds one ref to every
    folded span, in order (at fine, each run has its own)."""
    if folded and not fine:
        joined = b"".join(data[start:end] for start, end in folded)
        return [
            head + "; folded lines, in order: ",
            Omission(joined, f"folded {what}, in order", tuple(folded)),
            "]\n",
        ]
    return [head + "]\n"]
