"""Checkstyle reports (`<checkstyle><file name><error …/>`) read as diagnostics.

A checkstyle report (checkstyle itself, `eslint -f checkstyle`, many linters' XML output)
is a list of findings, each a `<error line column severity message source/>` element under
its `<file>`. Shown element by element it saves nothing; what a person reads is the same as
in a linter's text output: per rule and message template its severity, its message and
where it occurs. So each finding is read as the diagnostic line a linter would print
(`src/a.js:2:8: error 'fs' is defined but never used. (no-unused-vars)`), and the lines are
grouped and rendered with the log optimizer's helpers (`line_values.with_values`): every
location of an error listed, a file named once for its run of locations and a folder
shared by the whole list named once; a warning seen more than `warning_locations` times
is listed by three locations and a count. The root's start and end tags stay verbatim and
a header counts files and findings; every element is behind one ref.

Signals are each error-severity finding as that diagnostic line: the SIGNAL stage finds
it shown by its group line's values (`line_shown.not_shown`). A finding its group line
cannot show (a path the location helpers do not read) is listed on a line of its own.
A report of another shape (text inside `<error>`, unknown elements) is left to the
generic XML layout.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tokenlab.optimizers import Omission, OptimizeResult, Part, join_literals, visible
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.lines.values import with_values
from tokenlab.optimizers.log.model import DEFAULT_LIMITS, LogLimits
from tokenlab.patterns import compile_on_use

if TYPE_CHECKING:
    from tokenlab.optimizers.xml_report.scan import Element

_SPACE_RE = compile_on_use(r"\s+")
_ENTITY_RE = compile_on_use(r"&(?:(lt|gt|amp|apos|quot)|#(\d+)|#x([0-9A-Fa-f]+));")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "apos": "'", "quot": '"'}


@dataclass(frozen=True, slots=True)
class Finding:
    """One `<error>` element read as a diagnostic line."""

    path: str
    line: str
    column: str
    severity: str
    message: str
    rule: str

    @property
    def text(self) -> str:
        place = f":{self.line}" if self.line else ""
        place += f":{self.column}" if self.line and self.column else ""
        return f"{self.path}{place}: {self.severity} {self.message}{self.rule_note}"

    @property
    def rule_note(self) -> str:
        """The rule, when the message does not name it already (eslint's `(no-var)` does)."""
        name = self.rule.rpartition(".")[2]
        return f" [{name}]" if name and name not in self.message else ""

    @property
    def is_error(self) -> bool:
        return self.severity.lower() in ("error", "fatal")


class NotCheckstyle(Exception):
    """The report holds something other than `<file>` elements of empty `<error>` findings."""


def findings(data: bytes, root: Element) -> list[Finding]:
    """The findings of a checkstyle root in document order; raises `NotCheckstyle`."""
    found: list[Finding] = []
    for file in root.children:
        attrs = file.attrs()
        if _local(file.tag) != "file" or "name" not in attrs:
            raise NotCheckstyle(file.tag)
        path = _text(attrs["name"])
        for child in file.children:
            if _local(child.tag) != "error" or child.children or data[child.inner_start : child.inner_end].strip():
                raise NotCheckstyle(child.tag)
            finding = child.attrs()
            found.append(
                Finding(
                    path=path,
                    line=_text(finding.get("line", "")),
                    column=_text(finding.get("column", "")),
                    severity=_text(finding.get("severity", "error")) or "error",
                    message=_text(finding.get("message", "")),
                    rule=_text(finding.get("source", "")),
                )
            )
    return found


def _local(tag: str) -> str:
    return tag.rpartition(":")[2]


def _text(value: str) -> str:
    """An attribute value as read: the XML entities decoded, whitespace runs as one space."""

    def decode(match: re.Match[str]) -> str:
        if match[1]:
            return _NAMED[match[1]]
        code = int(match[2]) if match[2] else int(match[3], 16)
        return chr(code) if 0 < code < 0x110000 else match[0]

    return _SPACE_RE.sub(" ", _ENTITY_RE.sub(decode, value)).strip()


def render(data: bytes, root: Element, found: list[Finding], limits: LogLimits = DEFAULT_LIMITS) -> OptimizeResult:
    """The root's tags verbatim around a header and one line per group of findings."""
    groups: dict[tuple[str, ...], list[Finding]] = {}
    for finding in found:
        constants, _ = line_shapes.slots(finding.text)
        key = (finding.severity, *(" ".join(text.split()) for text in constants))
        groups.setdefault(key, []).append(finding)
    ordered = sorted(groups.values(), key=lambda group: not group[0].is_error)  # stable: errors first
    body = [line for group in ordered for line in _group_lines(group, limits)]
    severities = Counter(finding.severity for finding in found)
    counts = ", ".join(f"{count:,} {name}{'s' if count > 1 else ''}" for name, count in severities.most_common())
    files = len(root.children)
    with_findings = len({finding.path for finding in found})
    header = f"[checkstyle: {files:,} file{'s' if files != 1 else ''}, "
    if found:
        header += f"{with_findings:,} with findings ({counts}) in {len(ordered):,} group{'s' if len(ordered) != 1 else ''}: "
    else:
        header += "no findings: "
    start, end = root.inner_start, root.inner_end
    parts: list[Part] = [visible(data[:start]) + "\n", header]
    parts += [Omission(data[start:end], f"all {len(found):,} findings of {files:,} files"), "]\n"]
    parts += ["".join(line + "\n" for line in body), visible(data[end:])]
    signals = tuple(dict.fromkeys(finding.text for finding in found if finding.is_error))
    return OptimizeResult(tuple(join_literals(parts)), signals)


def _group_lines(group: list[Finding], limits: LogLimits) -> list[str]:
    """A group's line (`[×12] {a.js:2:8 :21:12 b.js:2:8}: error …`), and a line of its own
    for each error the group line cannot show."""
    texts = [finding.text for finding in group]
    if len(texts) == 1:
        return texts
    sampled = not group[0].is_error and len(texts) > limits.warning_locations
    cap = limits.warning_sample if sampled else limits.failure_values
    shown = with_values(texts, cap, cap) or texts[0]
    line = f"[×{len(texts):,}] {shown}"
    if sampled:
        return [line]
    return [line, *line_shown.not_shown(tuple(texts), line)]
