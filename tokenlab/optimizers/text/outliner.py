"""The per-line outline rules of prose (see `optimizer.py`): what a line is by itself,
and whether it stays, given the lines before it.
"""

from __future__ import annotations


from tokenlab.patterns import compile_on_use

# Lines that start an item rather than continue prose: bullets, options, call signatures,
# a lone term (`__dict__`), a short label ending in a colon (`Example:`).
_ITEM_RE = compile_on_use(
    rb"(?:[-*+]\s|\xe2\x80\xa2\s|\d{1,3}[.)]\s|-{1,2}[\w?]|(?:async\s+|class\s+|def\s+)?[\w.]+\(|"
    rb"[\w.@$<>\[\]-]+:?\s*$|\S.{0,60}:\s*$)"
)
# A line of a quoted code excerpt, led by its line number: `54\timport x`, `12 | let a`.
_EXCERPT_RE = compile_on_use(rb"\d{1,7}(?:\t| +\| )")
_LABEL_MAX_BYTES = 60
_BULLET_RE = compile_on_use(rb"(?:[-*+]\s|\d{1,3}[.)]\s|\xe2\x80\xa2\s)")
_BULLET_FIRST_BYTES = frozenset(b"-*+0123456789\xe2")
# What a line is by itself, as bits (`_traits`).
_INHERITED, _EXCERPT, _BULLET, _ITEM, _TABLE_ROW, _ENTRY = 1, 2, 4, 8, 16, 32
# An entry of a listing of names with their summaries: `liberror-perl - Perl module for…`,
# `perror (3)   - print a system error message`, `urllib.error - Exception classes…`.
# The name holds a letter and the summary starts with a word: `1.2.3.4 - - [date]` is a
# request, not an entry.
ENTRY_RE = compile_on_use(rb"(?=[^\s(]*[A-Za-z])[^\s(]+(?: \([\w.]{1,12}\))? +- [\w\"'`(\[]")
# A line's facts (`Outliner._facts`): body, indentation, rule line, traits, short label;
# remembered for lines up to this long, for this many distinct lines at most.
_LineFacts = tuple[bytes, int, bool, int, bool]
_FACTS_CACHED_BYTES = 200
_FACTS_CACHED_LINES = 1 << 16
# pydoc lists every member a class inherits, under "Methods inherited from X:" and the like.
_INHERITED_RE = compile_on_use(rb"[\w ]{0,40}\binherited from\b[^\n]*:\s*$")
_DECORATION_BYTES = b" \t\r\f\v|:+=_*~#-"
_DECORATION_FIRST_BYTES = frozenset(b"-=_*~#+:")


class Outliner:
    """The per-line outline rules (see the module docstring), with the state they carry."""

    def __init__(self, headings: dict[int, int], list_items_kept: int) -> None:
        self.headings = headings
        self.list_items_kept = list_items_kept
        self.base = 0  # the document's own indentation: its paragraphs all show a first line
        self.gap = True  # a blank line since the previous line
        self.previous_indent = -1
        self.previous_kept = True
        self.inherited_indent = -1  # inside a listing of inherited members, folded whole
        self.list_items: dict[int, int] = {}  # indent -> items seen in the current list
        self.summaries: set[bytes] = set()
        self.label_child_indent = -1  # the entries under a short `Label:` line
        self.previous_label = False
        self.rows = 0  # record rows seen in the current block
        self.held: set[int] = set()  # lines folded for what they are (inherited members, excerpts)
        self.facts_of: dict[bytes, _LineFacts] = {}  # see `_facts`
        self.entries_are_items = False  # the document is a listing of entries (see `Document.is_entry_listing`)

    def reset(self) -> None:
        """After a block decided elsewhere (fenced code): start afresh."""
        self.gap, self.previous_indent, self.previous_kept, self.inherited_indent = (
            True,
            -1,
            True,
            -1,
        )

    def keep(self, index: int, line: bytes, content: bytes) -> bool:
        facts = self.facts_of.get(line)
        if facts is None:
            facts = self._facts(line, content)
        body, indent, decoration, traits, label = facts
        if decoration:
            self.gap, self.inherited_indent = True, -1  # a rule line separates like a blank line
            return index in self.headings
        if self.gap or indent != self.previous_indent:
            self.rows = 0
        if self.previous_label and indent > self.previous_indent:
            self.label_child_indent = indent
        elif indent < self.label_child_indent:
            self.label_child_indent = -1
        kept = self._decide(index, traits, indent, content)
        self.previous_label = label
        self.gap, self.previous_indent, self.previous_kept = False, indent, kept
        return kept

    def _facts(self, line: bytes, content: bytes) -> _LineFacts:
        """What the non-blank `line` (`content` stripped) is by itself: its body after the
        indentation, the indentation, whether it is a rule line, its `_traits`, whether it
        is a short `Label:`. Read once per distinct short line: long listings repeat lines,
        while long lines, and lines past the first `_FACTS_CACHED_LINES` distinct ones, in
        a large input of distinct lines, rarely repeat and would only fill memory."""
        body = line.lstrip(b" \t|")
        decoration = content[0] in _DECORATION_FIRST_BYTES and _is_decoration(body)
        label = content.endswith(b":") and len(content) <= _LABEL_MAX_BYTES
        facts = (body, len(line) - len(body), decoration, 0 if decoration else _traits(body), label)
        if len(line) <= _FACTS_CACHED_BYTES and len(self.facts_of) < _FACTS_CACHED_LINES:
            self.facts_of[line] = facts
        return facts

    def _decide(self, index: int, traits: int, indent: int, content: bytes) -> bool:
        if indent < self.inherited_indent:
            self.inherited_indent = -1
        if self.inherited_indent >= 0:
            self.held.add(index)
            return False
        if traits & _INHERITED:
            self.inherited_indent = indent
            return True
        if index in self.headings:
            self.list_items.clear()
            return True
        if traits & _EXCERPT:
            self.held.add(index)
            return False  # quoted source lines: the location above them says where they are
        bullet = bool(traits & _BULLET)
        if not self._count_list_item(indent, bullet):
            return False
        if self.previous_indent < 0 or indent < self.previous_indent:
            return True
        if indent > self.previous_indent:
            # The first line of a nested block: a summary, shown if its parent is. A summary
            # already shown elsewhere is boilerplate ("Initialize self.  See help(…)").
            seen = content in self.summaries
            self.summaries.add(content)
            return self.previous_kept and (not seen or bool(traits & _ITEM))
        if self.gap:
            return indent == self.base or bool(traits & _ITEM)
        # In a listing of entries (`name - summary`), each is an item, not wrapped prose.
        return bullet or bool(traits & _ENTRY and self.entries_are_items) or self._row_kept(traits, indent)

    def _row_kept(self, traits: int, indent: int) -> bool:
        """A row of a `|` table or an entry under a short `Label:` line (`Indexes:`) is a
        record of its own, not wrapped prose: a block's first `list_items_kept` stay."""
        if not traits & _TABLE_ROW and indent != self.label_child_indent:
            return False
        self.rows += 1
        return self.rows <= self.list_items_kept

    def _count_list_item(self, indent: int, bullet: bool) -> bool:
        """False for list items past `list_items_kept` in one list."""
        if not bullet:
            if self.list_items and indent <= min(self.list_items):
                self.list_items.clear()  # back at the list's margin: the list is over
            return True
        for deeper in [level for level in self.list_items if level > indent]:
            del self.list_items[deeper]
        count = self.list_items.get(indent, 0) + 1
        self.list_items[indent] = count
        return count <= self.list_items_kept


def _traits(body: bytes) -> int:
    """What `body` is by itself: bits `_INHERITED`, `_EXCERPT`, `_BULLET`, `_ITEM`,
    `_TABLE_ROW`, `_ENTRY`."""
    return (
        (_INHERITED if b"inherited from" in body and _INHERITED_RE.match(body) else 0)
        | (_EXCERPT if is_excerpt(body) else 0)
        | (_BULLET if body[0] in _BULLET_FIRST_BYTES and _BULLET_RE.match(body) else 0)
        | (_ITEM if _ITEM_RE.match(body) else 0)
        | (_TABLE_ROW if body.count(b" | ") >= 2 else 0)
        | (_ENTRY if b" - " in body and ENTRY_RE.match(body) else 0)
    )


def _is_decoration(body: bytes) -> bool:
    """A rule line such as `-----` or `| --- | --- |`: only rule characters, a run of three."""
    if body.translate(None, _DECORATION_BYTES):
        return False
    return any(run in body for run in (b"---", b"===", b"___", b"***", b"~~~"))



def is_excerpt(line: bytes) -> bool:
    """A line of a quoted code excerpt, led by its line number (`54\timport x`)."""
    return line[:1].isdigit() and _EXCERPT_RE.match(line) is not None
