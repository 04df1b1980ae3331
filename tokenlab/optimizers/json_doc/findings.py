"""Findings nested in records (a linter's JSON: per file, its messages), grouped by rule.

A linter's JSON report (`eslint -f json`, and the many tools shaped like it) is an array
of records, one per file: its path, its count fields, and an array of findings, each with
a message, a line and the rule's fields (`ruleId`, `severity`). Listed one line per
finding, every line repeats its keys, its rule and its message, and the same rule
recurs in file after file. What a person reads is what the log optimizer shows for a
linter's text output: per rule and message template, the message and every location.

So such an array gets one added first item, `{"findings by rule": [...]}`, holding one
object per group: the rule's identity fields (every decision field of the finding but
its message and location, as JSON spaced like the document) and a `findings` string rendered by
`line_values.with_values` from each finding read as a diagnostic line
(`src/a.js:3:5: 'x' is not defined.`): `[×12] {in src/: a.js:3:5 :9:1 b.js:2:2}: '{x, y …}'
is not defined.` Every finding's location and message values are listed; the file
records then fold their findings arrays behind refs and keep their own fields (path,
counts). Signals are each finding's diagnostic line, as its group shows it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tokenlab.optimizers.json_doc.records import KeyClassifier, KeyKind, normalize_key
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.lines import values as line_values

_PATH_KEYS = frozenset({"file_path", "filepath", "path", "file", "filename", "file_name", "uri"})
_MESSAGE_KEYS = ("message", "msg")
_LINE_KEYS = ("line", "line_number", "lineno", "row", "start_line")
_COLUMN_KEYS = ("column", "col", "column_number", "start_column")


@dataclass(frozen=True)
class FindingsLimits:
    max_findings: int = 5000  # more findings than this are left to the record layout
    values_listed: int = 1000  # values listed per slot of a group line (as log failures)
    # A rule's message template with at most this many distinct messages (`'x' is not
    # defined`, `'y' …`) lists each message whole: a few such findings are the real bugs a
    # person greps for by their exact text; more read better as one template's values.
    messages_spelled: int = 5


@dataclass(frozen=True, slots=True)
class Grouped:
    """What the layout adds for one array of records holding findings."""

    key: str  # the record key whose arrays are grouped (and fold in each record)
    text: str  # the added first item, a JSON object
    signals: tuple[str, ...]


def group_items(
    text: str, starts: list[int], ends: list[int], scan: Callable[[int], tuple[Any, int]], keys: KeyClassifier, limits: FindingsLimits
) -> Grouped | None:
    """`group` for the items of an array at `starts`, written with `, ` or `,` between members."""
    first = scan(starts[0])[0]
    if type(first) is not dict or not any(normalize_key(key) in _PATH_KEYS for key in first):
        return None  # not file records: spare parsing every item again
    between = text[ends[0] : starts[1]] if len(starts) > 1 else ","
    separator = ", " if "\n" in between or " " in between else ","
    return group([scan(start)[0] for start in starts], keys, separator, limits)


def group(records: list[Any], keys: KeyClassifier, separator: str, limits: FindingsLimits) -> Grouped | None:
    """The findings of `records` grouped, or None when they do not hold findings: every
    record an object with a path and an array of objects each with a message and a line."""
    paths: list[str] = []
    for record in records:
        if type(record) is not dict:
            return None
        path = next((v for k, v in record.items() if normalize_key(k) in _PATH_KEYS and type(v) is str), None)
        if path is None:
            return None
        paths.append(path)
    grouped_keys = {key for record in records for key, value in record.items() if _holds_findings(value)}
    if len(grouped_keys) != 1:
        return None
    key = grouped_keys.pop()
    findings: list[tuple[str, str, str]] = []  # (identity fields, diagnostic line, message)
    for path, record in zip(paths, records):
        value = record.get(key, [])
        if value and not _holds_findings(value):
            return None  # findings this rule cannot read would fold unseen
        findings += [_read(path, finding, keys, separator) for finding in value]
    if len(findings) > limits.max_findings:
        return None
    groups: dict[tuple[str, ...], list[tuple[str, str, str]]] = {}
    for finding in findings:
        constants, _ = line_shapes.slots(finding[2])
        groups.setdefault((finding[0], *(" ".join(text.split()) for text in constants)), []).append(finding)
    lines = [line for members in _spelled(groups.values(), limits) for line in _group_lines(members, separator, limits)]
    text = '{"findings by rule": [\n' + ",\n".join(lines) + "]}"
    signals = tuple(dict.fromkeys(_escaped(line) for _, line, _ in findings))
    return Grouped(key, text, signals)


def _spelled(groups: Iterable[list[tuple[str, str, str]]], limits: FindingsLimits) -> list[list[tuple[str, str, str]]]:
    """The template groups, each split by its exact messages when they are few and differ."""
    split: list[list[tuple[str, str, str]]] = []
    for members in groups:
        messages: dict[str, list[tuple[str, str, str]]] = {}
        for finding in members:
            messages.setdefault(finding[2], []).append(finding)
        split += list(messages.values()) if 1 < len(messages) <= limits.messages_spelled else [members]
    return split


def _holds_findings(value: Any) -> bool:
    if type(value) is not list or not value:
        return False
    return all(type(item) is dict and _field(item, _MESSAGE_KEYS, str) is not None and _field(item, _LINE_KEYS, int) is not None for item in value)


def _field(item: dict[str, Any], names: tuple[str, ...], kind: type) -> Any:
    for key, value in item.items():
        if type(value) is kind and normalize_key(key) in names:
            return value
    return None


def _read(path: str, finding: dict[str, Any], keys: KeyClassifier, separator: str) -> tuple[str, str, str]:
    """(identity fields as JSON, the finding as a diagnostic line, its message)."""
    message = " ".join(_field(finding, _MESSAGE_KEYS, str).split())
    line = _field(finding, _LINE_KEYS, int)
    column = _field(finding, _COLUMN_KEYS, int)
    place = f":{line}" + (f":{column}" if column is not None else "")
    colon = ": " if separator == ", " else ":"
    located = {*_MESSAGE_KEYS, *_LINE_KEYS, *_COLUMN_KEYS}
    identity = separator.join(
        json.dumps(key, ensure_ascii=False) + colon + json.dumps(value, ensure_ascii=False)
        for key, value in finding.items()
        if keys.kind(key) is KeyKind.DECISION and normalize_key(key) not in located and _scalar(value)
    )
    return identity, f"{path}{place}: {message}", message


def _scalar(value: Any) -> bool:
    return value is None or type(value) in (str, int, float, bool)


def _group_lines(members: list[tuple[str, str, str]], separator: str, limits: FindingsLimits) -> list[str]:
    """A group's object (`{"ruleId": "x", "findings": "[×3] {a.js:1:2 :5:1}: …"}`), and one
    of its own for each finding its line cannot show (past `values_listed`)."""
    texts = [line for _, line, _ in members]
    cap = limits.values_listed
    shown = texts[0] if len(texts) == 1 else f"[×{len(texts):,}] " + (line_values.with_values(texts, cap, cap) or texts[0])
    escaped = tuple(map(_escaped, texts))
    missing = line_shown.not_shown(escaped, _escaped(shown)) if len(texts) > 1 else ()
    identity = members[0][0]
    if len({message for _, _, message in members}) == 1:  # named as the input names it
        colon = ": " if separator == ", " else ":"
        spelled = '"message"' + colon + json.dumps(members[0][2], ensure_ascii=False)
        identity = identity + separator + spelled if identity else spelled
    objects = [_object(identity, json.dumps(shown, ensure_ascii=False), separator)]
    return objects + [_object(identity, f'"{text}"', separator) for text in missing]


def _object(identity: str, shown: str, separator: str) -> str:
    colon = ": " if separator == ", " else ":"
    findings = '"findings"' + colon + shown
    return "{" + (identity + separator if identity else "") + findings + "}"


def _escaped(line: str) -> str:
    """A diagnostic line as a JSON string shows it."""
    return json.dumps(line, ensure_ascii=False)[1:-1]
