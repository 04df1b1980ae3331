"""File listings shown as printed, with each run of lines under a set-aside folder
(vendored, build output, hidden) folded to one line: the view for listings whose own
lines are few (`tsc --listFiles` beside `node_modules/`), where a summary would hide the
names a reader looks for. The same for `tree` drawings, entry by entry.

It also routes drawn listings: `ls -l` output goes to `long_listing`, and a `tree`
drawing too large to show as printed is summarised from the paths it names.
"""

from __future__ import annotations

import re
from collections import Counter

from tokenlab.mapped import as_bytes, line_count
from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, OptimizeResult, Part, visible
from tokenlab.optimizers.file_list import long_listing
from tokenlab.optimizers.file_list.parse import (
    ENTRY_RE,
    EXT_OK_RE,
    FileListConfig,
    Listing,
    common_folder,
    parse,
    set_aside_re,
)
from tokenlab.optimizers.file_list.summary import ext_summary, header, summary
from tokenlab.patterns import compile_on_use


def own_lines_as_printed(
    data: bytes, listing: Listing, config: OptimizerConfig, limits: FileListConfig
) -> OptimizeResult | None:
    """The listing as printed, each run of lines under one set-aside folder folded to a
    line, when that shows at most `max_tree_lines` lines and at most half of the listing;
    else None."""
    set_aside = set_aside_re(limits)
    if listing.tree.own_files(set_aside) > limits.max_tree_lines:
        return None
    data = as_bytes(data)  # shown as printed: read as bytes, a mapped listing copied
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()
    items: list[bytes | list[bytes]] = []  # a line shown as printed, or a run of folded lines
    run_key = b""
    for line in lines:
        path = line[2:] if line.startswith(b"./") else line
        folder = path[len(listing.root) : path.rfind(b"/") + 1] if path.startswith(listing.root) else b""
        found = set_aside.search(folder)
        key = folder[: found.end()] if found else b""
        run = items[-1] if key and key == run_key else None
        if isinstance(run, list):
            run.append(line)
        else:
            items.append([line] if key else line)
        run_key = key
    runs = [item for item in items if isinstance(item, list)]
    if not runs or len(items) > limits.max_tree_lines or 2 * len(items) > len(lines):
        return None
    fine = config.granularity is Granularity.FINE
    parts: list[Part] = [header(listing, limits)]
    for item in items:
        if isinstance(item, bytes):
            parts.append(visible(item.rstrip(b"\r")) + "\n")
            continue
        folder = common_folder([line[: line.rfind(b"/") + 1] for line in item])
        exts = Counter(ext if EXT_OK_RE.fullmatch(ext) else b"" for ext in _line_extensions(item))
        parts.append(f"{visible(folder)} ({len(item):,} paths: {ext_summary(exts, limits.max_exts)})")
        if fine:
            folded = b"\n".join(item) + b"\n"
            last = item is items[-1] and not data.endswith(b"\n")
            reason = f"paths under {visible(folder)}, in listing order"
            parts += [" ", Omission(folded[:-1] if last else folded, reason)]
        parts.append("\n")
    if not fine:
        parts += ["full listing: ", Omission(data, f"full file listing, {line_count(data):,} lines"), "\n"]
    return OptimizeResult(tuple(parts))


def _line_extensions(lines: list[bytes]) -> list[bytes]:
    return [match.group(2) or b"" for line in lines if (match := ENTRY_RE.match(line.rstrip(b"\r")))]


# `ls -l` permission columns and `tree` connectors, looked for in the head of the input only.
_DRAWN_HINT_RE = compile_on_use(rb"^[-dl][-rwxsStT]{9}[.+@]? |\xe2\x94\x9c\xe2\x94\x80|^\|-- ", re.MULTILINE)


def drawn_listing(data: bytes, config: OptimizerConfig, limits: FileListConfig) -> OptimizeResult | None:
    """`ls -l` and `tree` output, which `long_listing` summarises; None for a list of paths."""
    if not _DRAWN_HINT_RE.search(data, 0, 8192):
        return None
    data = as_bytes(data)  # drawn listings are read as bytes, a mapped one copied
    if long_listing.looks_like_long_listing(data):
        return long_listing.optimize_long(data, config)
    if not long_listing.looks_like_tree(data):
        return None
    own = _own_drawing_as_printed(data, config, limits)
    if own is not None:
        return own
    first, paths, last = long_listing.tree_paths(data)
    if paths.count(b"\n") < limits.small_listing_lines:
        return OptimizeResult((visible(data),))
    inner = summary(paths, parse(paths, limits), OptimizerConfig(Granularity.COARSE), limits)
    whole = Omission(data, f"full tree drawing, {line_count(data):,} lines")
    first, last = first.rstrip(b"\r"), last.rstrip(b"\r")
    parts: list[Part] = [f"tree of {visible(first)}\n" if first else ""]
    parts += [whole if isinstance(part, Omission) else part for part in inner.parts]
    parts.append(f"{visible(last)}\n" if last else "")
    return OptimizeResult(tuple(part for part in parts if part != ""))


# One entry of a `tree` drawing: its indent (`│   ` or `|   ` per level), then the connector
# (`├── `, `└── `, ASCII `|-- `, `` `-- ``) and the name.
_DRAWN_ENTRY_RE = compile_on_use(
    rb"((?:\xe2\x94\x82|\||\xc2\xa0| )*)(?:\xe2\x94\x9c|\xe2\x94\x94|\||`)(?:\xe2\x94\x80\xe2\x94\x80|--) ([^\r]*)\r?"
)


def _drawn_depth(indent: bytes) -> int:
    return len(indent.replace(b"\xe2\x94\x82", b"|").replace(b"\xc2\xa0", b" ")) // 4


def _own_drawing_as_printed(
    data: bytes, config: OptimizerConfig, limits: FileListConfig
) -> OptimizeResult | None:
    """A `tree` drawing as printed, the entries under each set-aside folder folded to one
    line, when that shows at most `max_tree_lines` entries and at most half of the lines."""
    set_aside = set_aside_re(limits)
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()
    items: list[bytes | list[bytes]] = []
    aside_depth = -1  # depth of the set-aside folder whose entries are being folded
    for line in lines:
        entry = _DRAWN_ENTRY_RE.fullmatch(line) if len(line) < 8192 else None
        depth = _drawn_depth(entry.group(1)) if entry else -1
        if entry and 0 <= aside_depth < depth:
            if isinstance(items[-1], list):
                items[-1].append(line)
            else:
                items.append([line])
            continue
        items.append(line)
        name = entry.group(2).split(b" -> ", 1)[0] if entry else b""
        aside_depth = depth if entry and set_aside.match(name + b"/") else -1
    runs = [item for item in items if isinstance(item, list)]
    drawn = sum(1 for item in items if isinstance(item, list) or _DRAWN_ENTRY_RE.fullmatch(item))
    if not runs or drawn > limits.max_tree_lines or 2 * len(items) > len(lines):
        return None
    fine = config.granularity is Granularity.FINE
    parts: list[Part] = []
    for item in items:
        if isinstance(item, bytes):
            parts.append(visible(item.rstrip(b"\r")) + "\n")
            continue
        indent = _DRAWN_ENTRY_RE.fullmatch(item[0])
        names = [entry.group(2) for line in item if (entry := _DRAWN_ENTRY_RE.fullmatch(line))]
        exts = Counter(ext if EXT_OK_RE.fullmatch(ext) else b"" for ext in _line_extensions(names))
        pad = visible(indent.group(1)) if indent else ""
        parts.append(f"{pad}… {len(item):,} entries folded ({ext_summary(exts, limits.max_exts)})")
        if fine:
            folded = b"\n".join(item) + b"\n"
            last = item is items[-1] and not data.endswith(b"\n")
            parts += [
                " ",
                Omission(folded[:-1] if last else folded, "entries of a set-aside folder, as drawn"),
            ]
        parts.append("\n")
    if not fine:
        parts += [
            "full tree drawing: ",
            Omission(data, f"full tree drawing, {line_count(data):,} lines"),
            "\n",
        ]
    return OptimizeResult(tuple(parts))
