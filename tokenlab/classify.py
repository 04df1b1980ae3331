"""Deterministic content classification, on bytes, with no model.

An ordered chain of `_try_*` checks; the first that recognises the input wins and says
why. Plain text is the fallback. Every check is total: any bytes (invalid UTF-8, NUL
bytes, a 5 MB single line) classify without raising.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tokenlab.optimizers.line_shapes import ANSI_RE
from tokenlab.packet import ContentType

SAMPLE_BYTES = 64 * 1024
_TEXT_CONTROLS = b"\t\n\r\f\b\x1b"
_CONTROL_BYTES = bytes(b for b in range(32) if b not in _TEXT_CONTROLS) + b"\x7f"
# The indentation is taken whole (`\s*+`): every marker starts with a non-blank, and a
# blank run tried at each of its splits was read again from each.
_LOG_LINE_RE = re.compile(
    rb"""^(?:\s*+
      (?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d           # ISO timestamp
      |\[?\d\d:\d\d:\d\d                            # clock time
      |\[?[A-Z][a-z]{2}\s+\d{1,2}\s\d\d:\d\d        # syslog date
      |\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)\b
      |(?:Traceback|File\ ".*",\ line\ \d+)
      |(?i:collecting|downloading|requirement\ already|building|installing|running|using|successfully
          |obtaining|preparing|looking\ in|processing|getting|creating|writing|reading|adding|copying
          |compiling|checking|removing|linking|fetching|resolving|generating|starting|stopping)\b
      |\S+\.\w+:\d+:                                  # path.ext:line: diagnostics
      |.*\b\w*(?:Warning|Error|Exception)\b:           # UserWarning: / ValueError:
      |\xe2\x94\x81                                     # progress bar
      |\d+\ +\|(?:\ |$)|-->\ |:::\ |=\ (?:note|help):   # code frames (rustc, gcc, ruff)
      |\^[\^~]*\s*$                                     # a caret under a source line (javac, mypy)
      |\S+\(\d+,\d+\):                                  # path(line,col): diagnostics
      |\S+:\ line\ \d+,\ col(?:umn)?\ \d+,                # path: line N, col M, (eslint compact)
      |\d+:\d+\s+(?:error|warning)\b                      # line:col severity (eslint)
      |(?:not\ )?ok\ \d+|(?:---|\.\.\.)\s*$|\#\ (?:Subtest|tests|pass|fail|skipped|todo|suites)\b # TAP
      |\xe2\x9c[\x93\x94\x95\x96\x97]|\xe2\x88\x9a      # test result marks
      |at\ \S.*[(:]\d+                                   # stack frames
      |\w*make(?:\[\d+\])?:\ |\S*(?:cc|gcc|g\+\+|clang|javac|rustc)\ .*-\w  # build steps
      |=+\ |-{5,}|\#\d+\ |\$\ |>\ |npm\ |error|warning|note:
      )
      |.*\ \.\.\.\ (?:ok|FAIL|ERROR|skipped|ignored)
      |.*\b(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL)\b
    )""",
    re.VERBOSE | re.MULTILINE,
)
_DIFF_START_RE = re.compile(rb"^(?:diff --git |diff -|--- \S.*\n\+\+\+ \S)", re.MULTILINE)
# `@@ -1,4 +1,5 @@`, or a combined diff's `@@@ -1,40 -1,40 +1,48 @@@` during a merge.
_HUNK_RE = re.compile(rb"^@@(@*) -\d+(?:,\d+)?(?: -\d+(?:,\d+)?)* \+\d+(?:,\d+)? @@\1", re.MULTILINE)


@dataclass(frozen=True)
class Classification:
    content_type: ContentType
    reason: str


def _try_binary(data: bytes, sample: bytes) -> Classification | None:
    """Binary is content that is not text: not line-structured text with a few odd bytes.

    A tool that writes Latin-1 (`café`) or a stray NUL on every line still writes lines a
    person reads; random or packed bytes have no lines that are mostly characters.
    """
    if not sample:
        return None
    text = sample.decode("utf-8", errors="replace")
    odd = _odd_characters(text)
    if odd <= len(text) // 100:
        return None
    lines = text.split("\n")
    if len(lines) > 2:
        lines.pop()  # the sample may end inside a line
    texty = sum(1 for line in lines if _odd_characters(line) * _TEXT_LINE_ODD_SHARE <= len(line))
    if len(lines) >= 2 and texty >= 0.9 * len(lines):
        return None
    return Classification(
        ContentType.BINARY, f"{odd} undecodable or control bytes in the first {len(sample)}, not in text lines"
    )


# A text line may have up to a quarter of odd characters (`café` in Latin-1 is one in four).
_TEXT_LINE_ODD_SHARE = 4
_ODD_CHARACTERS = str.maketrans("", "", "\ufffd" + _CONTROL_BYTES.decode("latin-1"))


def _odd_characters(text: str) -> int:
    """Undecodable bytes (shown as U+FFFD) and control characters other than whitespace."""
    return len(text) - len(text.translate(_ODD_CHARACTERS))


def _try_json(data: bytes, sample: bytes) -> Classification | None:
    head = sample.lstrip()[:1]
    if head not in (b"{", b"["):
        return None
    from tokenlab.optimizers.json_doc import looks_like_json

    if looks_like_json(data):
        return Classification(ContentType.JSON, "parses as one JSON document")
    return None


def _try_git_log(data: bytes, sample: bytes) -> Classification | None:
    from tokenlab.optimizers.git_log import looks_like_git_log, looks_like_stat_listing

    if looks_like_git_log(sample):
        return Classification(ContentType.GIT_LOG, "git log or git show: commit lines with headers or hashes")
    if looks_like_stat_listing(data):
        return Classification(ContentType.GIT_LOG, "git diff --stat: `path | N +-` lines and a files-changed summary")
    return None


def _try_git_status(data: bytes, sample: bytes) -> Classification | None:
    from tokenlab.optimizers.git_status import looks_like_git_status

    if looks_like_git_status(sample):
        return Classification(ContentType.GIT_STATUS, "git status: branch line and sections, or XY path lines")
    return None


def _try_xml(data: bytes, sample: bytes) -> Classification | None:
    if sample.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"<":
        return None
    from tokenlab.optimizers.xml_report import looks_like_xml

    if looks_like_xml(data):
        return Classification(ContentType.XML, "one well-formed XML document")
    return None


# A diagnostic's location leading a line: `src/a.c:12:`, `lib/a.js: line 3, col 5,`. A file
# of these with one problem per file parses as YAML (`path: message`); it is tool output.
_DIAGNOSTIC_RE = re.compile(rb"^\S+\.\w+(?::\d+[:,]|: line \d+, col(?:umn)? \d+,)", re.MULTILINE)


def _try_yaml(data: bytes, sample: bytes) -> Classification | None:
    if b":" not in sample:
        return None
    if len(_DIAGNOSTIC_RE.findall(sample)) * 2 > sample.count(b"\n"):
        return None
    from tokenlab.optimizers.yaml_doc import looks_like_yaml

    if looks_like_yaml(sample):
        return Classification(ContentType.YAML, "key: value and - item lines with consistent indentation")
    return None


def _try_diff(data: bytes, sample: bytes) -> Classification | None:
    if _DIFF_START_RE.search(sample) and _HUNK_RE.search(sample):
        return Classification(ContentType.DIFF, "diff file headers and @@ hunk headers")
    return None


def _try_dependency_tree(data: bytes, sample: bytes) -> Classification | None:
    from tokenlab.optimizers.dependency_tree import looks_like_dependency_tree

    if looks_like_dependency_tree(sample):
        return Classification(ContentType.DEPENDENCY_TREE, "a tree drawing of package@version entries")
    return None


def _try_table(data: bytes, sample: bytes) -> Classification | None:
    from tokenlab.optimizers.table import sniff
    from tokenlab.optimizers.table_aligned import looks_aligned

    if looks_aligned(sample):
        return Classification(ContentType.TABLE, "aligned tables: a header, a ---+--- rule under it, rows in | columns")
    delimiter = sniff(sample)
    if delimiter is not None:
        return Classification(ContentType.TABLE, f"a header row and records of equal field count split by {delimiter!r}")
    return None


def _try_filelist(data: bytes, sample: bytes) -> Classification | None:
    from tokenlab.optimizers.file_list import looks_like_file_list
    from tokenlab.optimizers.long_listing import looks_like_long_listing, looks_like_tree

    if looks_like_file_list(sample):
        return Classification(ContentType.FILELIST, "most lines are file paths")
    if looks_like_long_listing(sample):
        return Classification(ContentType.FILELIST, "most lines are `ls -l` entries")
    if looks_like_tree(sample):
        return Classification(ContentType.FILELIST, "a `tree` drawing of paths")
    return None


def _try_log(data: bytes, sample: bytes) -> Classification | None:
    if b"\x1b" in sample:
        sample = ANSI_RE.sub(b"", sample)
    lines = [line for line in sample.splitlines() if line.strip()]
    if len(lines) < 3:
        return None
    hits = sum(1 for line in lines if _LOG_LINE_RE.match(line))
    if hits / len(lines) >= 0.25:
        return Classification(ContentType.LOG, f"{hits}/{len(lines)} lines look like log or tool output")
    return None


_CHAIN: tuple[Callable[[bytes, bytes], Classification | None], ...] = (
    _try_binary,
    _try_json,
    _try_xml,
    _try_git_log,
    _try_git_status,
    _try_diff,
    _try_dependency_tree,
    _try_table,
    _try_filelist,
    _try_yaml,
    _try_log,
)


def classify(data: bytes) -> Classification:
    sample = data[:SAMPLE_BYTES]
    for attempt in _CHAIN:
        found = attempt(data, sample)
        if found:
            return found
    if not data:
        return Classification(ContentType.TEXT, "empty input")
    return Classification(ContentType.TEXT, "no structure recognised: plain text")
