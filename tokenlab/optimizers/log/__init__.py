"""The log family: build and test output, linters, servers; anything read line by line.

    __init__.py    `detect`: a quarter of the lines look like log or tool output
    optimizer.py   repeated and near-repeated lines folded into templates with counts;
                   failures, warnings and tracebacks verbatim with their context
    templates.py   each line's template; the input's lines numbered by template
    anomalies.py   which templates are anomalies, and how often each unit is shown
    items.py       the visible items in order: long runs, stray blanks, long lines folded
    model.py       its tunables (`LogLimits`), lines, templates and groups
    render.py      each folded group as one visible line; the header says the largest size folded
    units.py       where an anomaly ends: the lines that belong to it
    sections.py    a test run's failure sections and why each failed
    frames.py      how much of a diagnostic's code frame is shown
    codes.py       a linter's diagnostics counted by rule code, in one line under the header
    codeframes.py  framed records set apart by blank lines (a header holding the location,
                   a numbered gutter or labelled carets): one example per rule, the rest listed
    library.py     frames in library code, folded
    pairs.py       values that vary together, kept together
    variants.py    groups whose shapes differ in one word, as one line
"""

from __future__ import annotations

import re
from collections import Counter

from tokenlab.optimizers.lines.shapes import ANSI_RE
from tokenlab.patterns import compile_on_use

# The indentation is taken whole (`\s*+`): every marker starts with a non-blank, and a
# blank run tried at each of its splits was read again from each.
_LOG_LINE_RE = compile_on_use(
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
      |\d+\ +\xe2\x94\x82(?:\ |$)                        # a code frame's gutter drawn with a box line
      |\^[-~^]*\ +\S                                  # a caret with its label under a source line
      |In\ \S+\ line\ \d+:$                            # a location said in words
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


# A test runner's own summary of a run, by which its output is known whatever else it holds
# (a plugin's statistics, captured prose): pytest's `==== 1 failed, 2 passed in 1.77s ====`,
# unittest's `Ran 12 tests in 0.3s`, cargo's `test result:`, jest's `Tests:  3 failed`.
_TEST_RUN_SUMMARY_RE = compile_on_use(
    rb"^(?:=+ (?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?)(?:, )?)+ in [\d.]+s"
    rb"|Ran \d+ tests? in [\d.]+s$|test result: (?:ok|FAILED)\. \d+ passed|Tests: +(?:\d+ \w+, )*\d+ total$)",
    re.MULTILINE,
)


def detect(data: bytes, sample: bytes) -> str | None:
    if b"\x1b" in sample:
        sample = ANSI_RE.sub(b"", sample)
    lines = [line for line in sample.splitlines() if line.strip()]
    if len(lines) < 3:
        return None
    # Each distinct line is matched once, weighed: output of many short lines repeats them.
    hits = sum(count for line, count in Counter(lines).items() if _LOG_LINE_RE.match(line))
    if hits / len(lines) >= 0.25:
        return f"{hits}/{len(lines)} lines look like log or tool output"
    if _TEST_RUN_SUMMARY_RE.search(sample):
        return "a test runner's summary line"
    return None
