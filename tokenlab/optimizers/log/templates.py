"""A log line's template, and the input's lines numbered by template (see `optimizer.py`).

Lines that differ only in numbers, ids, times, spacing or where their tool cut them get
one template; the input is read in chunks, so that `re.sub`'s pieces stay small and a
mapped input's pages are given back as it goes.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from itertools import accumulate, islice

from tokenlab.mapped import holds, let_go
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.log.model import LINE_INDEX, Lines, MappedLines, Templates, offset_typecode
from tokenlab.patterns import compile_on_use

# One chunk's temporaries (its lines, `re.sub`'s pieces) stay small at this size; 1 MB
# chunks raised the peak memory on a 100 MB log by 16 MB and were no faster.
_CHUNK = 1 << 16

_ANSI_RE = line_shapes.ANSI_RE
# A word holding a digit (number, timestamp part, hex id, duration, version), chained
# through `.:/-` so that a timestamp, IP:port or UUID becomes a single `#`. Anchored at
# a word boundary so that a long run of letters is scanned once, not once per position.
# Possessive: no run it takes can give a byte back to what follows it (letters before the
# digit, word bytes before a separator), so backing off would only retry what must fail
# (the whole input's templates: 15% faster).
_VARYING_RE = compile_on_use(rb"\b[A-Za-z_]*+\d\w*+(?:[.:/\-][A-Za-z_]*+\d\w*+)*+")
# A bracketed id holding a value (`[EUR-10]`, `[pool-1-thread-2]`, `[case_b3]`) is one value
# whole: ids of a parametrised test differ in their letters too (`[EUR-10]`, `[GBP-25]`), and
# split at their digits they made a template per letter prefix.
_BRACKETED_ID_RE = compile_on_use(rb"\[[^\s\[\]#]*+#[^\s\[\]]*+\]")
# `line_shapes.cut_tail` as it reads the bytes of a chunk of lines (`_cut_tails_marked`).
_CUT_TAIL_RE = compile_on_use(line_shapes.CUT_TAIL_PATTERN.replace("…", "\xe2\x80\xa6").encode("latin-1"))
_LINE_END_DOTS_RE = compile_on_use(rb"(?:\.\.\.|\xe2\x80\xa6)[ \t\r]*$", re.MULTILINE)
# Whitespace runs count as one space. Two patterns with literal prefixes, because an
# alternation would be tried at every byte: that alone cost a fifth of the run time.
_SPACES_RE = compile_on_use(rb"  +")
# A diagnostic's leading location in a template (`src/a.c:#:`, `a.ts(#,#):`; numbers are
# already `#`), when a severity or a rule code (`[-Wunused]`, `F401` now `#`) follows:
# `line_shapes.LOCATION_PATTERN` as it reads a template.
_LOCATION_RE = compile_on_use(
    rb"^([ \t]*)[^\s:()\[\]]*\.[A-Za-z]\w*(?::#:|\(#,#\):|: line #, col(?:umn)? #,)"
    rb"(?=.*?(?:\b(?:error|warning|note|info|hint|fatal|ERROR|WARNING|Error|Warning)\b|\[[\w#-]+\]|\s#\s))"
)
_QUOTED_RE = compile_on_use(rb"([`'\"]|\xe2\x80\x98)[^\s`'\"\xe2]{1,40}([`'\"]|\xe2\x80\x99)")
# A run of blanks holding a tab, tried only where the run starts (from each blank of a
# long run without a tab, the rest of the run was read again).
_TABS_RE = compile_on_use(rb"(?<![ \t]) *+\t[ \t]*+")
# Passing tests fold together whatever their names: unittest -v and pytest -v lines. With
# docstrings, unittest prints the test's id on a line of its own and the outcome after the
# docstring's first line. They are independent of their neighbours, so they are never
# taken as context either.
PASSING_TEST = b"<test>"
_UNITTEST_OUTCOME_RE = compile_on_use(rb"^[^\r\n]*? \.\.\. (ok|skipped|expected failure)\b[^\r\n]*", re.MULTILINE)
_UNITTEST_ID_RE = compile_on_use(rb"^\S+ \([\w.]*\)$", re.MULTILINE)
_PYTEST_OUTCOME_RE = compile_on_use(rb"^([^\s:]+)::\S+ (PASSED|SKIPPED|XFAIL|XPASS)\b[^\r\n]*", re.MULTILINE)


def lines_and_templates(data: bytes, exact: bool = False) -> tuple[Lines, Templates]:
    """The lines and their templates; with `exact`, a line's template is the line itself."""
    held_as = Lines if isinstance(data, bytes) else MappedLines
    lines = held_as(data, array(offset_typecode(len(data))), [] if holds(data, b"\x1b") else None)
    templates = Templates()
    for chunk in _chunks(data):
        raw = chunk.splitlines(keepends=True)
        cleaned = chunk if lines.stripped is None else _ANSI_RE.sub(b"", chunk)
        keys = (cleaned if exact else template_of(cleaned)).splitlines()
        stripped = cleaned.splitlines() if lines.stripped is not None else []
        if len(keys) != len(raw) or (lines.stripped is not None and len(stripped) != len(raw)):
            # Removing an escape between `\r` and `\n` can merge two line ends; redo per line.
            stripped = [_ANSI_RE.sub(b"", line).rstrip(b"\r\n") for line in raw]
            keys = stripped if exact else [template_of(line) for line in stripped]
        if lines.stripped is not None:
            lines.stripped.extend(stripped)
        templates = templates.widened(len(keys))  # each line may be a new template
        _index(lines, templates, raw, keys)
    return lines, templates if exact else _merge_located_and_quoted(templates)


def _chunks(data: bytes) -> Iterator[bytes]:
    """Slices of about `_CHUNK` bytes, each ending just after a LF (so CRLF is never split).

    Templating a chunk at a time bounds the temporary pieces `re.sub` builds; a mapped
    input's pages are given back once a chunk is read.
    """
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + _CHUNK) + 1 or len(data)
        yield data[start:end]
        let_go(data, start, end)
        start = end


def _index(lines: Lines, templates: Templates, raw: list[bytes], keys: list[bytes]) -> None:
    """Append lines, numbering their templates."""
    numbers, members, of_line = templates.numbers, templates.members, templates.of_line
    offset = lines.ends[-1] if lines.ends else 0
    lines.ends.extend(islice(accumulate(map(len, raw), initial=offset), 1, None))
    for index, key in enumerate(keys, len(lines) - len(raw)):
        number = numbers.get(key)
        if number is None:
            number = numbers[key] = len(members)
            templates.keys.append(key)
            members.append(array(LINE_INDEX))
        members[number].append(index)
        of_line.append(number)


def template_of(text: bytes) -> bytes:
    """Lines that differ only in numbers, ids, times, spacing or where their tool cut them
    (`line_shapes.cut_tail`) get the same template."""
    if b"..." in text or b"\xe2\x80\xa6" in text:
        text = _cut_tails_marked(text)
    template = _VARYING_RE.sub(b"#", text)
    if b"[" in template:
        template = _BRACKETED_ID_RE.sub(b"[#]", template)
    if b"\t" in template:
        template = _TABS_RE.sub(b" ", template)
    template = _SPACES_RE.sub(b" ", template)
    if b" ... " in template:
        template = _UNITTEST_OUTCOME_RE.sub(rb"<test> ... \1", template)
        template = _UNITTEST_ID_RE.sub(b"<test> ()", template)
    if b"::" in template:
        template = _PYTEST_OUTCOME_RE.sub(rb"\1::<test> \2", template)
    return template


def _cut_tails_marked(text: bytes) -> bytes:
    """`text` with each line's cut tail (`line_shapes.cut_tail`) as `#...`."""
    pieces: list[bytes] = []
    at = 0
    for end in _LINE_END_DOTS_RE.finditer(text):
        start = text.rfind(b"\n", 0, end.start()) + 1
        if end.end() - start < line_shapes.CUT_WIDTH:
            continue
        cut = _CUT_TAIL_RE.search(text, max(start, end.end() - line_shapes.CUT_WIDTH), end.end())
        if cut is not None:
            pieces += [text[at : cut.start()], b"#..."]
            at = cut.end()
    return b"".join([*pieces, text[at:]]) if pieces else text


def _merge_located_and_quoted(templates: Templates) -> Templates:
    """Templates that differ only in a diagnostic's leading location or in short quoted
    names become one (see `line_shapes.slots`). Done on the distinct templates, a few
    hundred regex calls, rather than on every line."""
    merged = Templates(of_line=array(templates.of_line.typecode))
    target_of: list[int] = []
    for number, key in enumerate(templates.keys):
        if b":" in key or b"(" in key:
            key = _LOCATION_RE.sub(rb"\1@:", key)
        if b"'" in key or b'"' in key or b"`" in key or b"\xe2\x80\x98" in key:
            key = _QUOTED_RE.sub(rb"\1#\2", key)
        target = merged.numbers.get(key)
        if target is None:
            target = merged.numbers[key] = len(merged.keys)
            merged.keys.append(key)
            merged.members.append(templates.members[number])
        else:
            merged.members[target] = array(LINE_INDEX, sorted(merged.members[target] + templates.members[number]))
        target_of.append(target)
    if len(merged.keys) == len(templates.keys):  # nothing merged: numbers are unchanged
        return Templates(merged.keys, merged.numbers, merged.members, templates.of_line)
    merged.of_line.extend(map(target_of.__getitem__, templates.of_line))
    return merged
