"""YAML optimizer: key paths and decision fields stay, bulky values fold at their position.

CI configs, Kubernetes manifests and `kubectl get -o yaml` are structured data like JSON,
and the same rules apply (the word lists are `json_doc.records`'): decision fields (`name`,
`kind`, `status`, `image`, `reason`, `message`…) stay visible byte for byte, with the key
lines above them (`metadata:` above `name:`), while bulk goes behind refs:

- long block scalars (`|`/`>` scripts, certificates, `last-applied-configuration`) keep
  their first lines; very long single lines keep a prefix;
- `managedFields` and noise keys (telemetry, traces, debug…) keep only their key line;
- a list of similar mappings (pod `items:`, the documents of a `---` stream) shows each
  item's decision fields only, except anomalous items (a failing status or reason, a
  non-empty error), which stay whole; very long lists keep the first items and the
  anomalous ones and fold the rest with a count.

The work is line-based on indentation, YAML's block structure, and splices the original
lines; nothing is re-serialised, so the visible lines are byte-identical to the input.
Hidden lines become one `# … 12 lines #ref:ctx_…` line at their indentation. The scanner
never resolves anchors, aliases or tags, so no input can make it expand, and it is total:
lines it does not understand simply belong to the key above them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tokenlab.optimizers import Omission, OptimizerConfig, OptimizeResult, Part, join_literals, visible
from tokenlab.optimizers.json_doc.records import KeyClassifier, KeyKind, KeyRole, RecordsConfig, normalize_key
from tokenlab.optimizers.table import aligned as table_aligned
from tokenlab.optimizers.lines.records import fold_records
from tokenlab.patterns import compile_on_use

# The rest of a plain key grows by a byte, or by a whole run of blanks, at a time: a key
# never ends inside a run of blanks, and from each blank of a long run the rest of the run
# was read again.
_KEY_REST = rb"(?:[^\n \t]|[ \t]++)*?"
_KEY_RE = compile_on_use(
    rb"(\"[^\"\n]*\"|'[^'\n]*'|[^\s#'\"\[\]{},&*!|>%@`-]" + _KEY_REST + rb"|-[^\s]" + _KEY_REST + rb")"
    rb"[ \t]*+:(?:[ \t]++(.*)|[ \t]*)$",
    re.DOTALL,
)
_BLOCK_RE = compile_on_use(rb"(?:[!&]\S*\s+)*[|>][-+0-9]*\s*(?:#.*)?")
_DOC_RE = compile_on_use(rb"(?:---|\.\.\.)(?:[ \t]|$)")
_EMPTY_VALUES = frozenset({"", "null", "~", "[]", "{}", "''", '""', "false", "0", "none"})
_YAML_DECISION_KEYS = frozenset(
    ["image", "namespace", "uses", "stage", "needs", "ready", "restart_count", "replicas", "ready_replicas", "available_replicas", "exit_code"]
)
_DEEP_KEYS = frozenset({"image"})  # decision fields shown in a record item at any depth
# Bookkeeping that repeats what the document already says.
_NOISE_KEYS = frozenset({"managedFields", "kubectl.kubernetes.io/last-applied-configuration"})


@dataclass(frozen=True)
class YamlDocConfig:
    min_fold_bytes: int = 80  # fewer hidden bytes cost less shown than as a marker line
    block_max_lines: int = 12  # longer multi-line scalars keep their first lines
    block_max_bytes: int = 800
    block_head_lines: int = 2
    block_head_bytes: int = 160
    max_line_bytes: int = 400  # longer lines keep a prefix
    line_prefix_bytes: int = 120
    records_min_items: int = 3  # a list of this many mappings, this large, is a record list
    records_min_bytes: int = 2000
    record_detail_bytes: int = 240  # a decision subtree this small is shown whole
    record_depth: int = 3  # decision fields deeper in a record item than this stay folded
    records_listed: int = 100  # longer record lists keep a head and the anomalous items
    records_head: int = 3
    max_anomalies: int = 40
    scalar_items_max: int = 16  # longer lists of one-line scalars keep a head and a tail
    scalar_items_kept: int = 4
    max_depth: int = 100  # deeper nodes are shown as they are
    records: RecordsConfig = field(default_factory=RecordsConfig)


DEFAULT_CONFIG = YamlDocConfig()


@dataclass(slots=True, eq=False)
class Node:
    own: int  # the line this node starts on, -1 for a document without a `---` line
    start: int  # first line of its range
    col: int
    key: str | None = None
    value: str = ""
    item: bool = False
    inline: bool = False  # the first key of an item, on the item's line
    block: bool = False
    end: int = -1  # line after its range
    children: list[Node] = field(default_factory=list)
    failing: bool = False


class _Lines:
    """The input cut into lines with their byte offsets."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.lines = data.splitlines(keepends=True)
        self.offsets = [0]
        for line in self.lines:
            self.offsets.append(self.offsets[-1] + len(line))

    def span(self, first: int, end: int) -> int:
        return self.offsets[end] - self.offsets[first]


def _column(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" "))


def _is_filler(line: bytes) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(b"#")


def parse(lines: _Lines) -> Node:
    """The stream: a root whose children are one node per document."""
    stream = Node(-1, 0, -2, end=len(lines.lines))
    start = 0
    for index, line in enumerate(lines.lines + [b"---"]):
        if index == len(lines.lines) or _DOC_RE.match(line):
            if index > start or (start == 0 and index == 0 and lines.lines):
                _document(lines, start, index, stream)
            start = index
    if not stream.children and lines.lines:
        _document(lines, 0, len(lines.lines), stream)
    return stream


def _document(lines: _Lines, start: int, end: int, stream: Node) -> None:
    marker = start < end and _DOC_RE.match(lines.lines[start]) is not None
    root = Node(start if marker else -1, start, -1, end=end, item=True)
    stream.children.append(root)
    stack = [root]
    index = start + 1 if marker else start
    while index < end:
        line = lines.lines[index]
        if _is_filler(line):
            index += 1
            continue
        col = _column(line)
        content = line[col:].rstrip(b"\r\n")
        item = content == b"-" or content.startswith((b"- ", b"-\t"))
        if item:
            after = content[1:].lstrip(b" \t")
            key_col = col + len(content) - len(after)
            match = _KEY_RE.match(after)
        else:
            key_col, match = col, _KEY_RE.match(content)
        if not item and match is None:
            index += 1  # a continuation line: it belongs to the node above
            continue
        while len(stack) > 1:
            top = stack[-1]
            if top.col < col or (top.col == col and item and not top.item and top.key and not top.value):
                break
            top.end = index
            stack.pop()
        parent = stack[-1]
        if item:
            node = Node(index, index, col, item=True)
            parent.children.append(node)
            stack.append(node)
            if match is None:
                node.value = after.decode("utf-8", "replace").strip()
                node.block = _BLOCK_RE.fullmatch(after.strip()) is not None
            parent, col = node, key_col
        if match is not None:
            node = _key_node(index, col, match, inline=item)
            parent.children.append(node)
            stack.append(node)
        index += 1
        if stack[-1].block:
            indent = stack[-1].col
            while index < end and (not lines.lines[index].strip() or _column(lines.lines[index]) > indent):
                index += 1
    for node in stack[1:]:
        node.end = end


def _key_node(index: int, col: int, match: re.Match[bytes], inline: bool) -> Node:
    key = match[1].decode("utf-8", "replace")
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "'\"":
        key = key[1:-1]
    value = (match[2] or b"").strip()
    node = Node(index, index, col, key=key, value=value.decode("utf-8", "replace"), inline=inline)
    node.block = _BLOCK_RE.fullmatch(value) is not None
    return node


# --- layout: which lines stay visible -----------------------------------------------------


class _Layout:
    def __init__(self, lines: _Lines, config: YamlDocConfig) -> None:
        self.lines = lines
        self.config = config
        self.keys = KeyClassifier(config.records)
        self._failure = re.compile(config.records.failure_value_pattern, re.IGNORECASE)
        count = len(lines.lines)
        self.bulk: list[int] = [0] * count  # group hiding the line for its bulk, 0: none
        self.record: list[int] = [0] * count  # group hiding the line outside decision paths
        self.item_groups: dict[int, int] = {}  # group -> items it hides
        self.groups = 0

    def group(self) -> int:
        self.groups += 1
        return self.groups

    def hide(self, table: list[int], first: int, end: int, group: int) -> None:
        if self.lines.span(first, end) >= self.config.min_fold_bytes or table is self.record:
            table[first:end] = [group] * (end - first)

    def failing(self, node: Node, depth: int = 0) -> bool:
        """Mark nodes with a failure at or below them; true for `node`'s own mark."""
        below = depth < self.config.max_depth and any([self.failing(c, depth + 1) for c in node.children])  # noqa: C419 (marks every child)
        node.failing = below or self._fails(node)
        return node.failing

    def _fails(self, node: Node) -> bool:
        if node.key is None:
            return False
        value = node.value.strip("'\"")
        role = self.keys.role(node.key)
        if role is KeyRole.ERROR:
            return value.lower() not in _EMPTY_VALUES or bool(node.children)
        if role is KeyRole.STATUS or normalize_key(node.key) == "reason":
            return self._failure.fullmatch(value) is not None
        return False

    def detail(self, node: Node, depth: int) -> None:
        """Bulk folds: long scalars, noise subtrees, long lists; record lists below."""
        config = self.config
        first = node.own + 1 if node.own >= 0 else node.start
        if depth > config.max_depth:
            return
        if node.key is not None and (node.key in _NOISE_KEYS or self.keys.kind(node.key) is KeyKind.NOISE):
            self.hide(self.bulk, first, node.end, self.group())
            return
        if not node.children and node.end - first > 0:
            self.scalar(node, first)
            return
        items = [child for child in node.children if child.item]
        if items and self.is_record_list(items):
            self.record_list(items, depth)
            return
        if len(items) > config.scalar_items_max and all(i.end - i.start == 1 for i in items):
            kept = config.scalar_items_kept
            group = self.group()
            self.hide(self.bulk, items[kept].start, items[-kept].start, group)
            self.item_groups[group] = len(items) - 2 * kept
        for child in node.children:
            self.detail(child, depth + 1)

    def scalar(self, node: Node, first: int) -> None:
        config = self.config
        end = node.end
        while end > first and not self.lines.lines[end - 1].strip():
            end -= 1
        if end - first <= config.block_max_lines and self.lines.span(first, end) <= config.block_max_bytes:
            return
        head = 0
        while head < min(config.block_head_lines, end - first) and (
            self.lines.span(first, first + head + 1) <= config.block_head_bytes
        ):
            head += 1
        self.hide(self.bulk, first + head, end, self.group())

    def is_record_list(self, items: list[Node]) -> bool:
        if len(items) < self.config.records_min_items:
            return False
        mappings = sum(1 for item in items if any(c.key is not None for c in item.children))
        size = self.lines.span(items[0].start, items[-1].end)
        return mappings * 5 >= len(items) * 4 and size >= self.config.records_min_bytes

    def record_list(self, items: list[Node], depth: int) -> None:
        config = self.config
        anomalies = [item for item in items if self.failing(item)]
        shown = set(map(id, anomalies[: config.max_anomalies]))
        if len(items) > config.records_listed:
            shown |= set(map(id, items[: config.records_head]))
        group = 0
        for item in items:
            if len(items) > config.records_listed and id(item) not in shown:
                group = group or self.group()
                self.record[item.start : item.end] = [group] * (item.end - item.start)
                self.item_groups[group] = self.item_groups.get(group, 0) + 1
                continue
            group = 0
            self.detail(item, depth + 1)
            if not item.failing:
                self.compact(item)

    def compact(self, item: Node) -> None:
        """Hide the item's lines except decision fields and the key lines above them."""
        group = self.group()
        first = item.own + 1 if item.own >= 0 else item.start
        self.record[first : item.end] = [group] * (item.end - first)
        for child in item.children:
            self.keep_decisions(child, 1)

    def keep_decisions(self, node: Node, depth: int) -> bool:
        """Show decision fields at most `record_depth` keys down (`image` at any depth), with
        the key lines above them."""
        if depth > self.config.max_depth:
            return False
        if node.key is not None and node.key in _NOISE_KEYS:
            return False
        below = depth if node.item else depth + 1
        shallow = depth <= self.config.record_depth
        if node.key is not None and (node.key in _DEEP_KEYS or (shallow and self.is_decision(node.key))):
            if not node.children or self.lines.span(node.start, node.end) <= self.config.record_detail_bytes:
                self.record[node.start : node.end] = [0] * (node.end - node.start)
                return True
            self.record[node.own] = 0
            for child in node.children:
                self.keep_decisions(child, below)
            return True
        kept = any([self.keep_decisions(child, below) for child in node.children])  # noqa: C419 (visits every child)
        if kept and node.own >= 0:
            self.record[node.own] = 0
        return kept

    def is_decision(self, key: str) -> bool:
        return self.keys.kind(key) is KeyKind.DECISION or normalize_key(key) in _YAML_DECISION_KEYS


# --- optimizer -----------------------------------------------------------------------------


def optimize(
    data: bytes, config: OptimizerConfig, doc_config: YamlDocConfig = DEFAULT_CONFIG
) -> OptimizeResult:
    folded = fold_records(data, config.granularity)
    if folded is not None:  # a stream of documents of a few shapes: a dry-run manifest
        return OptimizeResult(folded)
    lines = _Lines(data)
    stream = parse(lines)
    layout = _Layout(lines, doc_config)
    if len(stream.children) > 1 and layout.is_record_list(stream.children):
        layout.record_list(stream.children, 0)
    else:
        for document in stream.children:
            layout.detail(document, 0)
    return OptimizeResult(tuple(join_literals(_render(lines, layout))))


def _render(lines: _Lines, layout: _Layout) -> list[Part]:
    config = layout.config
    data = lines.data
    parts: list[Part] = []
    index = 0
    count = len(lines.lines)
    while index < count:
        group = layout.record[index] or layout.bulk[index]
        if group == 0:
            parts += _visible_line(lines, index, config)
            index += 1
            continue
        end = index + 1
        while end < count and (layout.record[end] or layout.bulk[end]) == group:
            end += 1
        if lines.span(index, end) < config.min_fold_bytes and group not in layout.item_groups:
            for shown in range(index, end):
                parts += _visible_line(lines, shown, config)
        else:
            hidden = layout.item_groups.get(group)
            plural = "s" if end - index > 1 else ""
            label = f"{hidden} similar items" if hidden else f"{end - index} line{plural}"
            indent = " " * _column(lines.lines[index])
            omitted = Omission(data[lines.offsets[index] : lines.offsets[end]], label)
            parts += [f"{indent}# … {label} ", omitted]
            parts.append("\n")
        index = end
    return parts


def _visible_line(lines: _Lines, index: int, config: YamlDocConfig) -> list[Part]:
    """The line as it is, or its prefix and a ref when it is very long."""
    line = lines.lines[index]
    body = line.rstrip(b"\r\n")
    if len(body) <= config.max_line_bytes:
        return [visible(line)]
    cut = config.line_prefix_bytes
    while cut > 0 and body[cut] & 0xC0 == 0x80:
        cut -= 1
    start = lines.offsets[index]
    rest = Omission(lines.data[start + cut : start + len(body)], "long line")
    return [visible(body[:cut]) + "… ", rest, visible(line[len(body) :])]


# --- detection -----------------------------------------------------------------------------

_TREE_SITTER_ROWS = 30_000  # tree-sitter-yaml loses its place beyond ~32k rows


def looks_like_yaml(sample: bytes) -> bool:
    """Conservative: most lines are `key: value` / `- item`, keys are unique per mapping,
    the indentation is consistent, and the YAML grammar parses it without an error.

    Plain text, logs (`INFO: started` repeats its key) and Markdown (prose lines, front
    matter followed by a body) fail one of these.
    """
    lines = _Lines(sample)
    if b"\t" in sample[:1] or len(lines.lines) < 3:
        return False
    # psql's rows (`1 | {"a": 1}`) may parse as YAML scalars; a `---+---` rule says table.
    if table_aligned.looks_aligned(sample):
        return False
    structural = other = keys = 0
    stream = parse(lines)
    for document in stream.children:
        counts = _census(document, lines)
        if counts is None:
            return False
        structural, keys = structural + counts[0], keys + counts[1]
    other = sum(1 for line in lines.lines if not _is_filler(line) and not _DOC_RE.match(line)) - structural
    if keys < 2 or structural < 3 or other * 10 > structural:
        return False
    return _grammar_accepts(sample, lines)


def _census(document: Node, lines: _Lines) -> tuple[int, int] | None:
    """(structural nodes, keys) of a document, or None when a mapping repeats a key or most
    keys are numbers: a column dump keyed by address or offset (`    4004:\t48 8b 05 …`
    under `0000000000004000 <.init>:`) is a listing, not a document."""
    structural = keys = numeric = 0
    pending = [document]
    while pending:
        node = pending.pop()
        seen: set[str] = set()
        for child in node.children:
            structural += 0 if child.inline else 1
            if child.key is not None:
                keys += 1
                numeric += _NUMERIC_KEY_RE.match(child.key) is not None
                if child.key in seen:
                    return None
                seen.add(child.key)
            if child.block:
                # block scalar lines are content, not structure: count them out of "other"
                structural += child.end - child.start - 1
            pending.append(child)
    if numeric * 2 > keys:
        return None
    return structural, keys


# A key that is a number, decimal or hexadecimal (an address, an offset), alone or before
# a label (`0000000000004000 <.init>`).
_NUMERIC_KEY_RE = compile_on_use(r"(?:0x)?[0-9a-fA-F]*[0-9][0-9a-fA-F]*(?:\s|$)")


def _grammar_accepts(sample: bytes, lines: _Lines) -> bool:
    """The sample, cut at its last top-level line, parses as YAML (when tree-sitter is there)."""
    cut = len(lines.lines)
    if len(lines.data) >= 64 * 1024 or cut > _TREE_SITTER_ROWS:
        cut = min(cut, _TREE_SITTER_ROWS) - 1
        while cut > 0 and (_is_filler(lines.lines[cut]) or _column(lines.lines[cut]) > 0):
            cut -= 1
    try:
        from tokenlab.syntax import treesitter

        root = treesitter.parse("yaml", sample[: lines.offsets[cut]])
    except (ImportError, LookupError, ValueError):
        return True
    return not root.has_error
