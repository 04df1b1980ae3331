"""File listings (`find`, `git ls-files`, `fd`): thousands of paths folded into a short tree.

An agent reading a listing wants the shape of the tree and the files that matter, not
every path. The visible text has three parts:

- a header: how many paths and folders, under which common root, and by extension;
- notable files (README, LICENSE, manifests, Dockerfiles, CI workflows…; `notable_names`
  and `notable_prefixes` in `FileListConfig`) named with their path exactly as the tool
  printed it, shallowest first, skipping vendored folders such as `node_modules/`;
- a depth-limited tree of folders, each line `src/components/ (412 files: 300 .tsx, 98
  .ts, 14 .css)`, where the project's own folders, then the largest, are expanded first
  within a line budget. A folder whose file names are about as short as its counts names
  them instead (`ts/ (6 files: m{1…6}.ts)`), unless it is vendored, build output or hidden
  ("set aside": `node_modules/`, `dist/`, `.venv/`…), whose names nobody reads first.

When the project's own lines are few and set-aside folders hold most of the listing
(`tsc --listFiles` beside `node_modules/`, `tree` of a small project), the summary would
hide exactly the names a reader looks for: the listing is then shown as printed, with each
run of set-aside lines folded to one line.

COARSE: one ref holds the whole original listing. FINE: one ref per folded folder line
(its paths, in original order), one per "… N more folders" group, one per "files directly
here" line, and one for lines outside the tree (blank lines, the root's own entry); shown
as printed, one per folded run, the lines shown being in no ref.

This module owns detection (`looks_like_file_list`, which the classifier calls) and the
choice of view; the parts live beside it: `parse` (the limits, the parse into a
folder tree, the set-aside and notable rules), `summary` (header, notable files
and tree) and `printed` (the listing or `tree` drawing as printed, set-aside
runs folded; `ls -l` output handed to `long_listing`). Listings shorter than
`small_listing_lines` stay verbatim.
"""

from __future__ import annotations

from collections import Counter

from tokenlab import mapped
from tokenlab.optimizers import OptimizerConfig, OptimizeResult, visible
from tokenlab.optimizers.file_list.parse import DEFAULT_LIMITS, FileListConfig, parse
from tokenlab.optimizers.file_list.printed import drawn_listing, own_lines_as_printed
from tokenlab.optimizers.file_list.summary import summary
from tokenlab.patterns import compile_on_use

# looks_like_file_list: a path is one line of path characters, with at most a few spaces.
_PATH_LINE_RE = compile_on_use(rb"(?:\./|/|~/|\.\./)?[^\s:;,'\"<>|*?{}\[\]=]+(?: [^\s:;,'\"<>|*?{}\[\]=]+)*/?")
_ENDS_LIKE_FILE_RE = compile_on_use(rb"/|\.[A-Za-z0-9]{1,8}$|^[A-Z][A-Za-z]+$")


def looks_like_file_list(data: bytes) -> bool:
    """True if most non-empty lines are paths: no prose, enough lines, many with `/` or an extension."""
    lines = [line.rstrip(b"\r") for line in data[: 64 * 1024].split(b"\n")]
    if len(data) > 64 * 1024 and len(lines) > 1:
        lines.pop()  # the sample may end mid-line
    lines = [line for line in lines if line.strip()]
    if len(lines) < 5:
        return False
    counts = Counter(lines)  # each distinct line is read once: many short lines repeat
    path_like = sum(
        count
        for line, count in counts.items()
        if len(line) <= 400 and line.count(b" ") <= 2 and _PATH_LINE_RE.fullmatch(line)
    )
    file_like = sum(count for line, count in counts.items() if _ENDS_LIKE_FILE_RE.search(line))
    with_slash = sum(count for line, count in counts.items() if b"/" in line)
    return path_like >= 0.9 * len(lines) and file_like >= 0.8 * len(lines) and with_slash >= 0.5 * len(lines)


def optimize(data: bytes, config: OptimizerConfig, limits: FileListConfig = DEFAULT_LIMITS) -> OptimizeResult:
    if mapped.count(data, b"\n") < limits.small_listing_lines:  # a large input may be mapped
        return OptimizeResult((visible(mapped.as_bytes(data)),) if data else ())
    drawn = drawn_listing(data, config, limits)
    if drawn is not None:
        return drawn
    listing = parse(data, limits)
    return own_lines_as_printed(data, listing, config, limits) or summary(data, listing, config, limits)
