"""XML optimizer: test and lint reports keep their failures visible, passing runs fold.

JUnit/surefire reports are mostly passing `<testcase>` elements and long system-out
blocks; checkstyle reports are mostly clean `<file>` elements and repeated warnings.
What an agent needs is the suite counts, every failing or erroring test with its name
and message, and each kind of finding once. So the document is spliced, never
re-serialised: start tags and kept elements stay byte for byte, runs of folded siblings
become one `<!-- 137 passing testcases: #ref:ctx_… -->` line, and long text bodies keep
their first and last lines around a ref. A `<testsuite>` (or an element holding one) is
never folded whole: its start tag, with the counts, stays; its passing cases fold inside.

Signals (checked by the SIGNAL stage) are what stays visible by design, as start-tag
lines copied from the input: each failing or erroring testcase's line naming it, the
line of each failure's or error's `message`, each `<testsuite>` tag's lines holding its
name and counts, and in a checkstyle report each `severity="error"` finding's tag with
its `<file name="…">` line. A checkstyle report of `<file>` elements holding empty
`<error>` findings (the usual shape) is read as diagnostics instead (`checkstyle.py`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from tokenlab.optimizers import Omission, OptimizerConfig, OptimizeResult, Part, join_literals, visible
from tokenlab.optimizers.lines import families
from tokenlab.optimizers.xml_report import checkstyle
from tokenlab.optimizers.xml_report.scan import _FAILING_TAGS, _STATUS_ATTRS, Element, NotXml, _local, parse


@dataclass(frozen=True)
class XmlReportConfig:
    min_fold_bytes: int = 160  # a shorter run of siblings costs less shown than as a marker
    generic_min_run: int = 8  # same-tag siblings needed before a generic run folds
    max_skipped_shown: int = 20  # skipped testcases shown whole, per document
    # Failing testcases of one skeleton shown whole; past this many, the first stays and
    # the others fold into one line naming their values (`lines.families`).
    cases_in_full: int = 6
    body_max_lines: int = 16  # longer text bodies keep a head and a tail
    body_head_lines: int = 6
    body_tail_lines: int = 4
    body_max_bytes: int = 4000  # bodies of few but long lines keep a byte head and tail
    body_head_bytes: int = 1200
    body_tail_bytes: int = 400
    max_depth: int = 64  # deeper elements are shown whole, never walked
    max_signals: int = 300  # failures and errors first, then suites


DEFAULT_CONFIG = XmlReportConfig()


def looks_like_xml(data: bytes) -> bool:
    try:
        parse(data)
    except NotXml:
        return False
    return True


# --- layout --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fold:
    """Input bytes [start, end) left out, shown as `prefix + marker + suffix`."""

    start: int
    end: int
    prefix: str
    suffix: str
    reason: str


class _Layout:
    def __init__(self, data: bytes, root: Element, config: XmlReportConfig) -> None:
        self.data = data
        self.config = config
        self.folds: list[Fold] = []
        self.skipped_shown = 0
        self.checkstyle = _local(root.tag) == "checkstyle"
        self._majorities: dict[int, dict[str, str | None]] = {}  # id of a run's first element
        self._first_findings: dict[int, dict[tuple[str, str], Element]] = {}  # id of a <file>

    def element(self, element: Element, depth: int) -> None:
        if depth > self.config.max_depth:
            return
        if not element.children:
            self.body(element.inner_start, element.inner_end)
            return
        alike = self.like_cases(element.children)
        verdicts = [self.verdict(element, child, run) for child, run in _runs(element.children)]
        index = 0
        while index < len(verdicts):
            label = verdicts[index]
            stop = index + 1
            while stop < len(verdicts) and label and verdicts[stop] == label:
                stop += 1
            group = element.children[index:stop]
            if label and group[-1].end - group[0].start >= self.config.min_fold_bytes:
                self.fold_siblings(group, label)
            else:
                for child in group:
                    if id(child) not in alike:
                        self.element(child, depth + 1)
            index = stop

    def like_cases(self, children: list[Element]) -> set[int]:
        """Fold the failing testcases of one skeleton (a parametrised test failing for each
        of its values), more than `cases_in_full`: the first stays whole, the others become
        one line where the second was, naming each one's values, paired (`lines.families`);
        a case of another skeleton (another assertion) stays. Returns the folded cases' ids."""
        texts: dict[int, list[str]] = {}
        by_skeleton: dict[tuple[str, ...], list[Element]] = {}
        for child in children:
            if _local(child.tag) == "testcase" and child.notable:
                texts[id(child)] = visible(self.data[child.start : child.end]).splitlines()
                by_skeleton.setdefault(families.skeleton(texts[id(child)]), []).append(child)
        folded: set[int] = set()
        for family in by_skeleton.values():
            if len(family) <= self.config.cases_in_full:
                continue
            found = families.family([texts[id(case)] for case in family])
            said = found and found.said()
            if not said:
                continue
            others = family[1:]
            text = f"{len(others)} more failing testcases like the one above"
            start, end = others[0].start, others[0].end
            prefix = f"<!-- [×{len(others)} more like the one above "
            suffix = f"] {said} -->"
            for case in others[1:]:
                if self.data[end : case.start].strip():  # another element between: a fold of its own
                    self.folds.append(Fold(start, end, prefix, suffix, text))
                    start, prefix, suffix = case.start, "<!-- ", " -->"
                end = case.end
            self.folds.append(Fold(start, end, prefix, suffix, text))
            folded.update(id(case) for case in others)
        return folded

    def verdict(self, parent: Element, child: Element, run: list[Element]) -> str:
        """The fold label of `child` ("" to keep it), judged beside its run of same-tag siblings."""
        name = _local(child.tag)
        if name == "testcase":
            if child.notable:
                return ""
            if any(_local(c.tag) == "skipped" for c in child.children):
                if self.skipped_shown < self.config.max_skipped_shown:
                    self.skipped_shown += 1
                    return ""
                return "skipped testcases"
            return "passing testcases"
        if child.holds_suite:
            return ""  # every suite's tag and counts stay; its passing cases fold inside
        if self.checkstyle and name == "error" and _local(parent.tag) == "file":
            return self.checkstyle_verdict(parent, child, run)
        if self.checkstyle and name == "file" and not child.notable:
            return "files without findings"
        if len(run) < self.config.generic_min_run or child is run[0] or child.notable:
            return ""
        if self.anomalous(child, run):
            return ""
        return f"{child.tag} elements"

    def checkstyle_verdict(self, parent: Element, child: Element, run: list[Element]) -> str:
        attrs = child.attrs()
        if attrs.get("severity", "error") == "error":
            return ""
        firsts = self._first_findings.get(id(parent))
        if firsts is None:
            firsts = {}
            for sibling in parent.children:
                firsts.setdefault(_finding_kind(sibling), sibling)
            self._first_findings[id(parent)] = firsts
        return "" if firsts[_finding_kind(child)] is child else "repeated findings"

    def anomalous(self, child: Element, run: list[Element]) -> bool:
        """A status-like attribute whose value differs from what most of the run holds."""
        majority = self._majorities.get(id(run[0]))
        if majority is None:
            counts: dict[str, Counter[str | None]] = {name: Counter() for name in _STATUS_ATTRS}
            for sibling in run:
                attrs = sibling.attrs()
                for name in _STATUS_ATTRS:
                    counts[name][attrs.get(name)] += 1
            majority = {name: count.most_common(1)[0][0] for name, count in counts.items()}
            self._majorities[id(run[0])] = majority
        attrs = child.attrs()
        return any(attrs.get(name) != value for name, value in majority.items())

    def fold_siblings(self, group: list[Element], label: str) -> None:
        counts = Counter(_summary(element, label) for element in group)
        detail = ", ".join(f"{name} ×{count}" for name, count in counts.most_common(3) if name)
        more = " …" if len(counts) > 3 else ""
        text = f"{len(group)} {label}" + (f" ({detail}{more})" if detail else "")
        self.folds.append(Fold(group[0].start, group[-1].end, f"<!-- {text}: ", " -->", text))

    def body(self, start: int, end: int) -> None:
        """Keep a long text body's first and last lines; its middle goes behind a ref."""
        config = self.config
        text = self.data[start:end]
        if text.count(b"\n") > config.body_max_lines:
            lines = text.splitlines(keepends=True)
            head = sum(map(len, lines[: config.body_head_lines]))
            tail = sum(map(len, lines[-config.body_tail_lines :]))
            hidden = len(lines) - config.body_head_lines - config.body_tail_lines
            if end - tail - start - head >= config.min_fold_bytes:
                label = f"[… {hidden} lines: "
                self.folds.append(Fold(start + head, end - tail, label, "]\n", "long text"))
        elif len(text) > config.body_max_bytes:
            cut_start = _char_boundary(self.data, start + config.body_head_bytes)
            cut_end = _char_boundary(self.data, end - config.body_tail_bytes)
            hidden = cut_end - cut_start
            self.folds.append(Fold(cut_start, cut_end, f"[… {hidden} bytes: ", "]", "long text"))


def _runs(children: list[Element]) -> list[tuple[Element, list[Element]]]:
    """Each child with the run of consecutive same-tag siblings it belongs to."""
    paired: list[tuple[Element, list[Element]]] = []
    run: list[Element] = []
    for child in children:
        if run and run[-1].tag != child.tag:
            paired += [(element, run) for element in run]
            run = []
        run.append(child)
    paired += [(element, run) for element in run]
    return paired


def _finding_kind(element: Element) -> tuple[str, str]:
    attrs = element.attrs()
    return attrs.get("source", ""), attrs.get("severity", "")


def _summary(element: Element, label: str) -> str:
    if label == "repeated findings":
        return _finding_kind(element)[0].rpartition(".")[2]
    return ""


def _char_boundary(data: bytes, at: int) -> int:
    while 0 < at < len(data) and data[at] & 0xC0 == 0x80:
        at -= 1
    return at


# --- optimizer -----------------------------------------------------------------------------


def optimize(
    data: bytes, config: OptimizerConfig, report_config: XmlReportConfig = DEFAULT_CONFIG
) -> OptimizeResult:
    try:
        root = parse(data)
    except NotXml:
        return OptimizeResult((visible(data),) if data else ())
    if _local(root.tag) == "checkstyle" and root.children:
        try:
            return checkstyle.render(data, root, checkstyle.findings(data, root))
        except checkstyle.NotCheckstyle:
            pass  # another shape of report: the generic layout below
    layout = _Layout(data, root, report_config)
    layout.element(root, 0)
    parts: list[Part] = []
    position = 0
    for fold in sorted(layout.folds, key=lambda f: f.start):
        if fold.start < position or fold.end <= fold.start:
            continue
        parts += [visible(data[position : fold.start]), fold.prefix]
        parts += [Omission(data[fold.start : fold.end], fold.reason), fold.suffix]
        position = fold.end
    parts.append(visible(data[position:]))
    return OptimizeResult(tuple(join_literals(parts)), _signals(data, root, layout.checkstyle, report_config))


# --- signals -------------------------------------------------------------------------------

_SUITE_ATTRS = ("name", "tests", "failures", "errors", "skipped")


def _signals(data: bytes, root: Element, checkstyle: bool, config: XmlReportConfig) -> tuple[str, ...]:
    """Start-tag lines the layout keeps verbatim by design, failures first, up to a cap.

    A notable testcase is never folded (its tag with the name stays), nor are its children's
    start tags (a long failure body is cut after its tag); a `<testsuite>` is never folded
    whole; a checkstyle finding of severity error is never folded, nor is its `<file>`
    (it holds a finding, so it is notable). Folds only ever cover
    whole elements or the text inside a leaf, so a start tag is visible whole or not at all.
    """
    failures: list[str] = []
    suites: list[str] = []
    cap = config.max_signals
    stack: list[tuple[Element, Element | None]] = [(root, None)]
    while stack and len(failures) < cap:
        element, parent = stack.pop()
        name = _local(element.tag)
        if name == "testsuite" and len(suites) < cap:
            suites += _tag_lines(data, element, _SUITE_ATTRS)
        elif name == "testcase" and element.notable:
            failures += _tag_lines(data, element, ("name",))
            for child in element.children:
                if _local(child.tag) in _FAILING_TAGS and "message" in child.attrs():
                    failures += _tag_lines(data, child, ("message",))
        elif checkstyle and name == "error" and _checkstyle_error(element, parent):
            assert parent is not None
            failures += [*_tag_lines(data, parent, ("name",)), *_tag_lines(data, element, ())]
        stack += [
            (child, element) for child in reversed(element.children) if child.notable or child.holds_suite
        ]
    return tuple(dict.fromkeys([*failures, *suites][:cap]))


def _checkstyle_error(element: Element, parent: Element | None) -> bool:
    """A finding in a `<file>` that the layout keeps for its severity (as `checkstyle_verdict`)."""
    in_file = parent is not None and _local(parent.tag) == "file"
    return in_file and element.attrs().get("severity", "error") == "error"


def _tag_lines(data: bytes, element: Element, attrs: tuple[str, ...]) -> list[str]:
    """The stripped lines of `element`'s start tag that hold one of `attrs` (all with none;
    the first line when none holds one): a start tag spanning lines is shown whole, so each
    of its lines is a substring of the visible text."""
    lines = [line.strip() for line in visible(data[element.start : element.inner_start]).splitlines()]
    lines = [line for line in lines if line]
    if not attrs or len(lines) <= 1:
        return lines
    pattern = re.compile(r"(?<![-\w:.])(?:" + "|".join(attrs) + r")\s*=")
    held = [line for line in lines if pattern.search(line)]
    return held or lines[:1]
