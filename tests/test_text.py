"""Text optimizer: outline of large documents, whitespace and repeats, honesty, hostile input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Golden, render_preview
from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, OptimizeResult
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.text.config import TextConfig
from tokenlab.optimizers.text.document import Document
from tokenlab.optimizers.text.line_states import KEEP
from tokenlab.optimizers.text.long_line import long_line
from tokenlab.optimizers.text.optimizer import optimize
from tokenlab.optimizers.text.render import SpanKind, TextSpan

FIXTURES = Path(__file__).parent.parent / "fixtures"
COARSE = OptimizerConfig(Granularity.COARSE)
FINE = OptimizerConfig(Granularity.FINE)

# What the optimizer adds to the view; everything else must come from the input.
_ANNOTATION_RE = re.compile(
    r" ?\(full section: #ref:ctx_[0-9a-f]+\)|\[repeat of an earlier paragraph: .*\] #ref:ctx_[0-9a-f]+"
    r"|\[whitespace normalized; exact original: #ref:ctx_[0-9a-f]+\]|\(full section: #ref:ctx_[0-9a-f]+\)"
    r"| ?…(?: \+[\d,]+(?: words?)?)?(?: \"[^\"\n]*…\")?(?: \{\d+ rows from the \d+ above on: (?:column |\w+ ×\d+: |rows of rare forms: ).*?\}(?= #ref|$))?(?: #ref:ctx_[0-9a-f]+)?"
    # Line records (text_records.py): folded runs and the closing line.
    r"|\[… [\d,]+ (?:more )?lines?(?: like the one above[^\]]*|, each the same as the one above)?(?:: #ref:ctx_[0-9a-f]+)?\]"
    r"|\[(?:key = value dump|sorted numeric listing|table with a header row|templated records): [^\n]*\]"
    # The largest size an outlined listing's folds hide (text/sizes.py).
    r"|\[largest \S+ of the folded rows: [^\n]*\]"
)
_ESCAPES_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[^\n]\x08")


def _omissions(result: OptimizeResult) -> list[bytes]:
    return [omission.data for omission in result.omissions]


def _assert_honest(data: bytes, result: OptimizeResult) -> None:
    """Nothing invented, nothing silently dropped.

    Every visible fragment (annotations aside) is text of the input, and every input line
    is either visible or inside an omission holding its exact bytes.
    """
    original = _ESCAPES_RE.sub("", data.decode("utf-8", errors="replace"))
    text = render_preview(result)
    for line in text.split("\n"):
        for fragment in _ANNOTATION_RE.split(line):
            assert fragment.strip() in original, f"invented text: {fragment!r}"
    stored = _omissions(result)
    for raw_line in data.split(b"\n"):
        line = raw_line.decode("utf-8", errors="replace").rstrip()
        if line.strip() and _ESCAPES_RE.sub("", line) not in text:
            assert any(raw_line in chunk for chunk in stored), f"dropped line: {raw_line!r}"


def _whitespace_ref(result: OptimizeResult, data: bytes) -> bool:
    return data in _omissions(result)


# Captures of tools whose facts sit in `Key: value` fields: `pip show -f`, `bandit -r`.
FIELD_CAPTURES = ["real/pip_show_files_pylint.log", "real/bandit_dill.log"]
# Tool reports that are neither prose nor one record shape: `top -b`, `git diff --stat
# --summary`, `openssl x509 -text`, `pgbench`, `curl -v`.
REPORT_CAPTURES = [
    "real/top_b_n1.txt",
    "real/git_diff_stat_M_renames.txt",
    "real/openssl_x509_text.txt",
    "real/pgbench_init_run_progress.txt",
    "real/curl_v_get_500_redirect.log",
]


# Repeated multi-line records under a prefix the tool puts on every line (`==pid== `),
# between rules or blank lines, differing in names and line numbers: valgrind's memcheck
# leak records and drd's conflicts.
RECORD_CAPTURES = ["real/memcheck_leak_full_request_pool.log", "real/drd_race_method_counters.log"]


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
@pytest.mark.parametrize("name", ["design_notes.md", "real/pydoc_render.txt", *FIELD_CAPTURES, *REPORT_CAPTURES, *RECORD_CAPTURES])
def test_golden_fixtures(golden: Golden, name: str, granularity: Granularity) -> None:
    data = (FIXTURES / name).read_bytes()
    result = optimize(data, OptimizerConfig(granularity))
    stem = Path(name).stem
    golden.check(f"text/{stem}_{granularity.value}.txt", render_preview(result))


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
@pytest.mark.parametrize("name", ["design_notes.md", "real/pydoc_render.txt", *FIELD_CAPTURES, *REPORT_CAPTURES])
def test_fixture_signals_survive_and_view_is_honest(name: str, granularity: Granularity) -> None:
    data = (FIXTURES / name).read_bytes()
    result = optimize(data, OptimizerConfig(granularity))
    text = render_preview(result)
    signals = (FIXTURES / f"{name}.signals").read_text().splitlines()
    assert [signal for signal in signals if signal not in text] == []
    _assert_honest(data, result)


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
@pytest.mark.parametrize("name", RECORD_CAPTURES)
def test_record_captures_show_every_signal_as_itself_or_by_a_group_line(name: str, granularity: Granularity) -> None:
    data = (FIXTURES / name).read_bytes()
    result = optimize(data, OptimizerConfig(granularity))
    signals = tuple(line for line in (FIXTURES / f"{name}.signals").read_text().splitlines() if line)
    assert line_shown.not_shown(signals, render_preview(result)) == ()


def _padded(text: str) -> bytes:
    """A document past the outline threshold: prose paragraphs after `text`."""
    prose = "".join(f"Paragraph {i} explains one more part of the design in plain words.\nIt goes on.\n\n" for i in range(40))
    return (text + "\n" + prose).encode()


def test_status_fields_stay_visible() -> None:
    """`Key: value` fields next to each other are status fields (pip show, rpm -qi, apt
    show, kubectl describe): each stays, an empty one with its space."""
    header = "Name: widget\nVersion: 2.0.1\nLocation: /opt/lib/site\nRequires: a, b\nRequired-by: \nLicense: MIT\n"
    text = render_preview(optimize(_padded(header), COARSE))
    for field in ("Version: 2.0.1", "Location: /opt/lib/site", "Requires: a, b", "Required-by: \n", "License: MIT"):
        assert field in text


def test_indented_facts_under_a_heading_and_metric_counts_stay() -> None:
    """A scanner's finding: the facts sit indented under its heading, quoted source lines
    after them; a metrics block's counts are indented under their label."""
    finding = (
        ">> Issue: [X12:weak] Weak hash used.\n"
        "   Severity: High   Confidence: Medium\n"
        "   More Info: https://example.org/x12\n"
        "   Location: pkg/crypto.py:41:8\n"
        "40\t# compute the digest\n41\t    h = md5(data)\n42\t    return h\n\n"
    )
    metrics = "Run metrics:\n\tTotal issues:\n\t\tLow: 7\n\t\tMedium: 3\n\t\tHigh: 1\n"
    text = render_preview(optimize(_padded(finding * 30 + metrics), COARSE))
    assert "Severity: High   Confidence: Medium" in text and "Location: pkg/crypto.py:41:8" in text
    assert "\t\tLow: 7\n\t\tMedium: 3\n\t\tHigh: 1" in text
    assert "h = md5(data)" not in text and "More Info" not in text  # the excerpt and the link fold


def test_prose_and_code_are_no_fields() -> None:
    """A lone `Note: …`, two sentences on a line, and `x = f(y)` code are outlined as usual."""
    prose = (
        "Intro line of the section.\nStatus: draft for review. Owner: the team.\n"
        "Last change: the cache was rewritten.\n    task = make_task(thing)\n    res = await task\n"
    )
    text = render_preview(optimize(_padded(prose), COARSE))
    assert "Owner: the team" not in text and "Last change" not in text and "make_task" not in text


def test_warning_words_inside_paths_are_no_signal() -> None:
    files = "".join(f"  pkg/mod_{i}/helpers.py\n" for i in range(20)) + "  pkg/checkers/deprecated.py\n"
    data = _padded("Files:\n" + files + "  pkg/zz.py\n\nThis API is deprecated since 2.0.\n")
    text = render_preview(optimize(data, COARSE))
    assert "checkers/deprecated.py" not in text and "This API is deprecated since 2.0." in text


def test_a_long_flat_listing_keeps_a_head_and_tail_sample() -> None:
    """A block of 60 names folds, but never down to the line before it alone."""
    names = "".join(f"  lib/part_{i:03d}/module.py\n" for i in range(60))
    text = render_preview(optimize(_padded("Files:\n" + names), COARSE))
    for kept in ("part_000", "part_001", "part_058", "part_059"):
        assert kept in text
    assert "part_030" not in text


def test_docstring_bodies_are_no_listing_and_fold_whole() -> None:
    """Indented paragraphs with blank lines between them are prose: no sample is kept."""
    body = "".join(f"    Detail paragraph {i} of the docstring body.\n    More words.\n\n" for i in range(30))
    text = render_preview(optimize(_padded("run(task)\n    Run the task.\n\n" + body), COARSE))
    assert "Detail paragraph 29" not in text


def test_rendered_docs_shrink_a_lot() -> None:
    data = (FIXTURES / "real/pydoc_render.txt").read_bytes()
    assert len(render_preview(optimize(data, COARSE))) < len(data) * 0.4


def test_coarse_gives_one_ref_per_folded_section_holding_it_whole() -> None:
    data = (FIXTURES / "design_notes.md").read_bytes()
    result = optimize(data, COARSE)
    text = render_preview(result)
    assert "## Security (full section: #ref:ctx_" in text
    security = data[data.index(b"## Security") : data.index(b"## Rollout")]
    assert security in _omissions(result)
    assert "## Goals\n" in text  # a section with nothing folded needs no ref


def test_fine_gives_one_ref_per_folded_run_of_exact_bytes() -> None:
    data = (FIXTURES / "design_notes.md").read_bytes()
    result = optimize(data, FINE)
    position = 0
    for chunk in _omissions(result):
        if chunk == data or b"This document is internal" in chunk:
            continue  # the whole-document ref, and repeats (which occur several times)
        found = data.find(chunk, position)
        assert found >= 0, "folded runs are exact, in order, and do not overlap"
        position = found + len(chunk)


def test_small_clean_document_stays_verbatim() -> None:
    data = b"# Notes\n\nShort text that needs no folding.\n- one\n- two\n"
    assert optimize(data, COARSE).parts == (data.decode(),)
    assert optimize(b"", COARSE).parts == ()


def test_whitespace_is_normalized_and_the_original_kept() -> None:
    data = b"Title   \n\n\n\n\nBody line\t\r\nlast\x1b[31m red\x1b[0m\n"
    for config in (COARSE, FINE):
        result = optimize(data, config)
        assert render_preview(result).startswith(
            "Title\n\nBody line\nlast red\n[whitespace normalized"
        )
        assert _whitespace_ref(result, data)


def test_repeated_paragraphs_show_once() -> None:
    boilerplate = b"Confidential: this text must not leave the company. " * 4 + b"\n"
    data = (
        b"Intro.\n\n" + boilerplate + b"\nMiddle.\n\n" + boilerplate + b"\nEnd.\n\n" + boilerplate
    )
    result = optimize(data, COARSE)
    text = render_preview(result)
    assert text.count("Confidential: this text must not leave") == 4 + 2  # once whole, twice quoted
    assert (
        text.count('[repeat of an earlier paragraph: "Confidential: this text must not leave t…"]')
        == 2
    )
    assert _omissions(result).count(boilerplate) == 2


def _large_markdown() -> bytes:
    sections = []
    for number in range(6):
        prose = (
            f"Section {number} opens with a sentence that stays visible. It goes on for a while, "
            "explaining details that a reader can fetch later. Never drop the signal sentence. "
            "Then it wraps up with more detail that folds away quietly.\n"
        )
        wrapped = "".join(
            f"Wrapped line {i} of a hard-wrapped paragraph in section {number}.\n" for i in range(6)
        )
        items = "".join(f"- item {i} of the list in part {number}\n" for i in range(40))
        code = (
            "```python\nfirst_line = 1\n" + "".join(f"line_{i} = {i}\n" for i in range(9)) + "```\n"
        )
        sections.append(f"## Part {number}\n\n{prose}\n{wrapped}\n{items}\n{code}")
    return ("# Title\n\n" + "\n".join(sections)).encode()


def test_large_markdown_keeps_the_outline() -> None:
    data = _large_markdown()
    result = optimize(data, COARSE)
    text = render_preview(result)
    assert "## Part 3 (full section: #ref:ctx_" in text
    assert "Section 3 opens with a sentence that stays visible. …" in text
    assert "Never drop the signal sentence." in text
    assert "explaining details" not in text
    assert "Wrapped line 0 of a hard-wrapped paragraph in section 3. …" in text
    assert "Wrapped line 3 of" not in text
    assert "- item 7 of the list in part 3 …" in text and "- item 8 of" not in text
    assert "```python\nfirst_line = 1 … +9\n```" in text
    _assert_honest(data, result)


def test_pydoc_style_classes_keep_signatures_and_fold_inherited_members() -> None:
    body = "".join(
        f"     |  method_{i}(self, value)\n     |      Summary of method {i}.\n     |      \n"
        f"     |      Details of method {i} that fold away.\n     |  \n"
        for i in range(10)
    )
    inherited = "".join(
        f"     |  __dunder_{i}__(self, /)\n     |      Return something.\n     |  \n"
        for i in range(20)
    )
    doc = (
        "CLASSES\n    class Widget(builtins.object)\n     |  Widget(size)\n     |  \n"
        f"     |  Methods defined here:\n     |  \n{body}"
        "     |  ----------------------------------------------------------------------\n"
        f"     |  Methods inherited from builtins.object:\n     |  \n{inherited}\n"
        "FUNCTIONS\n    make_widget(size)\n        Build a widget.\n"
    ).encode()
    text = render_preview(optimize(doc, COARSE))
    assert "     |  method_4(self, value)\n     |      Summary of method 4. … +2\n" in text
    assert "Details of method 4" not in text
    assert "     |  Methods inherited from builtins.object: … +60\n" in text
    assert "__dunder_3__" not in text
    assert "FUNCTIONS\n    make_widget(size)\n        Build a widget." in text


def test_long_line_shows_first_sentence_and_signal_sentences() -> None:
    line = (
        "The first sentence of this long paragraph is kept. "
        + "Filler sentence that can go. " * 10
        + "This option is deprecated and will be removed. "
        + "More filler that can go. " * 10
    )
    data = ("# Doc\n\n" + line + "\n\n" + "Another paragraph.\n" * 100).encode()
    text = render_preview(optimize(data, FINE))
    assert "The first sentence of this long paragraph is kept. … +50 words #ref:ctx_" in text
    assert "This option is deprecated and will be removed. … +50 words #ref:ctx_" in text
    assert "Filler sentence" not in text


def test_limits_are_configurable() -> None:
    data = _large_markdown()
    roomy = TextConfig(small_doc_bytes=len(data) + 1)
    assert "Wrapped line 3 of" in render_preview(optimize(data, COARSE, roomy))
    few = TextConfig(list_items_kept=2)
    assert "- item 2 of" not in render_preview(optimize(data, COARSE, few))


HOSTILE = {
    "invalid_utf8": b"\xff\xfe bad \xc3\x28 bytes\n" * 300,
    "latin1": "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, d\u00e9j\u00e0 vu.\n".encode("latin-1") * 300,
    "nul_bytes": b"a\x00b\x00 must \x00\n" * 300,
    "ansi": b"\x1b[31mERROR\x1b[0m something failed\n" * 300,
    "overstrike": b"N\x08NA\x08AM\x08ME\x08E\n       ls - list\n" * 300,
    "crlf": b"Line with CRLF\r\n\r\n\r\n" * 300,
    "no_trailing_newline": b"para\n\n" * 300 + b"last",
    "blank_lines": b"\n" * 200_000,
    "spaces_then_x": b" " * 200_000 + b"x",
    "huge_line": b"word " * 1_000_000,
    "dashes": b"-" * 200_000 + b"x\n-\n",
    "unclosed_fences": b"```x\n" * 20_000,
    "deep_indent": b"".join(b" " * (i % 300) + b"x y z\n" for i in range(20_000)),
    "gutters": b"     |  \n" * 20_000,
}


@pytest.mark.parametrize("name", HOSTILE)
@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
def test_hostile_input_never_raises(name: str, granularity: Granularity) -> None:
    result = optimize(HOSTILE[name], OptimizerConfig(granularity))
    assert isinstance(render_preview(result), str)
    assert all(isinstance(part, str | Omission) for part in result.parts)


@pytest.mark.parametrize(
    "name", ["invalid_utf8", "ansi", "overstrike", "crlf", "no_trailing_newline", "nul_bytes"]
)
def test_hostile_input_view_is_honest(name: str) -> None:
    for config in (COARSE, FINE):
        _assert_honest(HOSTILE[name], optimize(HOSTILE[name], config))


_LINE = st.sampled_from(
    [
        "# Heading", "## Sub heading", "Plain prose line that goes on.", "  indented detail",
        "    deeper code = 1", "- bullet item", "1. numbered", "```", "NAME", "=====", "",
        "     |  gutter(self)", "     |      doc line", "Methods inherited from object:",
        "This must never fail.", "x" * 250 + ". Tail sentence here.", "\t", "   ",
    ]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=120), st.sampled_from(list(Granularity)))
def test_generated_documents_stay_honest(lines: list[str], granularity: Granularity) -> None:
    data = "\n".join(lines).encode()
    limits = TextConfig(small_doc_bytes=200)
    _assert_honest(data, optimize(data, OptimizerConfig(granularity), limits))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=5000), st.sampled_from(list(Granularity)))
def test_optimize_never_raises_on_arbitrary_bytes(data: bytes, granularity: Granularity) -> None:
    result = optimize(data, OptimizerConfig(granularity), TextConfig(small_doc_bytes=100))
    assert all(isinstance(part, str | Omission) for part in result.parts)


def _report(lines: list[str]) -> bytes:
    """Tool output past the outline threshold: one block of records with no blank line."""
    return ("\n".join(lines) + "\n").encode()


def test_a_fold_says_how_many_lines_it_hides() -> None:
    paragraph = "Part {i} opens here.\nIt goes on with details that fold away.\nAnd more of them.\n\n"
    text = render_preview(optimize("".join(paragraph.format(i=i) for i in range(40)).encode(), COARSE))
    assert "Part 3 opens here. … +2\n" in text


def test_failure_lines_stay_and_are_declared_but_not_words_in_paths() -> None:
    lines = [f"==42==    at 0x{i:x}: step_{i} (app.c:{i})" for i in range(60)]
    lines[20] = "==42== Invalid read of size 4"
    lines[30] = "[pid 7] +++ killed by SIGSEGV +++"
    lines[40] = "==42==    at 0x1: load (src/failover/invalid_cfg.c:3)"
    lines[50] = "==42== Conditional jump or move depends on uninitialised value(s)"
    result = optimize(_report(lines), COARSE)
    text = render_preview(result)
    assert "==42== Invalid read of size 4" in text and lines[50] in text
    assert "[pid 7] +++ killed by SIGSEGV +++" in text
    assert "invalid_cfg.c" not in text
    assert {"==42== Invalid read of size 4", "[pid 7] +++ killed by SIGSEGV +++"} <= set(result.signals)


def test_a_quoted_source_line_is_code_whatever_words_it_holds() -> None:
    # `Location:` at the margin: no headline heads the findings as records (an indented
    # one would, and finding 7, of another shape, would be shown whole).
    lines = [f">> Issue: [B{i:03d}] finding {i}\nLocation: app/m{i}.py:{i}:4\n{i}\timport x{i}" for i in range(80)]
    lines[7] += "\n2227\t    fail = True\n2228\t    raise SystemExit('load failed')"
    text = render_preview(optimize(_report(lines), COARSE))
    assert "fail = True" not in text and "load failed" not in text
    assert ">> Issue: [B007] finding 7" in text


def test_http_status_lines_stay_and_error_answers_are_declared() -> None:
    request = '203.0.113.{i} - - [30/Nov/2026:08:00:00 +0000] "GET /p{i} HTTP/1.1" {status} 512 "-" "curl/8"'
    lines = [request.format(i=i, status=503 if i == 30 else 200) for i in range(60)]
    lines[10] = "< HTTP/1.0 301 Moved Permanently"
    result = optimize(_report(lines), COARSE)
    text = render_preview(result)
    assert "< HTTP/1.0 301 Moved Permanently" in text
    assert '"GET /p30 HTTP/1.1" 503' in text
    assert '"GET /p20 HTTP/1.1" 200' not in text
    assert [signal for signal in result.signals if "HTTP" in signal] == [lines[30]]


def test_totals_column_headers_and_the_closing_line_stay() -> None:
    lines = [
        "top - 18:54:12 up  5:27,  0 user,  load average: 3.75",
        "Tasks:  86 total,   2 running",
        "%Cpu(s): 50.0 us, 50.0 sy",
        "  PID USER      PR  NI  %CPU COMMAND",
        *(f"{i:5} root      20   0   0.0 worker_{i}" for i in range(60)),
        " 32 files changed, 4 insertions(+), 42 deletions(-)",
        *(f"{i:5} root      20   0   0.0 helper_{i}" for i in range(60)),
        "tps = 1814.739992 (without initial connection time)",
    ]
    result = optimize(_report(lines), COARSE)
    text = render_preview(result)
    for kept in (lines[1], lines[2], lines[3], " 32 files changed, 4 insertions(+), 42 deletions(-)", lines[-1]):
        assert kept in text
    assert "32 files changed, 4 insertions(+), 42 deletions(-)" in result.signals


def test_a_rare_line_in_a_long_listing_stays() -> None:
    lines = [f" rename {{lib => src}}/mod{i:02}.py (100%)" for i in range(60)]
    lines[33] = " delete mode 100644 lib/core/mod29.py"
    text = render_preview(optimize(_report(lines), COARSE))
    assert " delete mode 100644 lib/core/mod29.py" in text
    assert "mod20.py" not in text


def test_rows_of_a_table_and_entries_under_a_label_stay_up_to_the_list_cap() -> None:
    rows = [f" col_{i} | bigint | not null | plain" for i in range(12)]
    entries = [f'    "idx_{i}" btree (col_{i})' for i in range(3)]
    text = render_preview(optimize(_padded("\n".join([" Column | Type | Nullable | Storage", *rows, "Indexes:", *entries])), COARSE))
    assert " col_7 | bigint | not null | plain" in text
    assert " col_11 | bigint" not in text
    assert all(entry in text for entry in entries)


def test_an_arrow_is_no_key_value_field() -> None:
    """`lib (VERSION) => path` rows map names to paths; `key = value` facts stay, these fold."""
    rows = "".join(f"\t\tlibc.so.6 (GLIBC_2.{i}) => /lib/x86_64-linux-gnu/libc.so.6\n" for i in range(200))
    data = f"\tVersion information:\n\t/usr/bin/prog:\n{rows}".encode()
    text = render_preview(optimize(data, COARSE))
    assert "(GLIBC_2.199) => /lib" in text
    assert text.count("=> /lib") < 20


def test_folds_hiding_a_slight_share_of_a_listing_are_shown() -> None:
    """`pkg: path` rows read as fields, a few rows of other shapes among them: folding
    those few saves almost nothing and hides rows a reader may look for."""
    rows = [f"pkg{i}: /usr/share/doc/pkg{i}/errors_{i}.txt" for i in range(200)]
    rows[66] = "libstdc++-12-dev:amd64: /usr/include/c++/12/bits/regex_error.h"
    rows[67] = "libgpg-error0:amd64: /usr/lib/x86_64-linux-gnu/libgpg-error.so.0"
    data = ("\n".join(rows) + "\n").encode()
    result = optimize(data, COARSE)
    assert "libstdc++-12-dev:amd64: /usr/include/c++/12/bits/regex_error.h" in render_preview(result)
    assert result.omissions == () or all(len(omission.data) >= len(data) for omission in result.omissions)


# --- listings of entries and rows that differ (captures28 a: apt-cache, python -v, objdump -x) ---


def _modules(count: int) -> list[str]:
    return [f"import '{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}mod' # <SourceFileLoader object at 0x7f82a7d{i:05x}>" for i in range(count)]


@pytest.mark.parametrize(
    "comments",
    [
        ["# code object from '/usr/lib/python3.11/json.pyc'", "# destroy json"],  # an interpreter's trace
        ["# installing hook", "# installed hook"],  # a tool's progress notes
    ],
)
def test_hash_lines_next_to_one_another_are_comments_not_headings(comments: list[str]) -> None:
    rows = _modules(60)
    lines = [*rows[:30], *comments, *rows[30:]]
    document = Document(("\n".join(lines) + "\n").encode(), TextConfig())
    assert document.heading_levels == {}


def test_a_lone_hash_line_between_paragraphs_is_still_a_heading() -> None:
    text = ("Intro line of the notes.\n\n# Usage\n\n" + "Run the tool with care and read its report.\n" * 80).encode()
    assert Document(text, TextConfig()).heading_levels == {2: 1}


@pytest.mark.parametrize(
    "odd_line",
    [
        "Python 3.11.7 (main, May  9 2026, 07:35:25) [GCC 12.2.0] on linux",  # a banner among imports
        "Interrupted: worker 3 stopped early",  # a note among progress rows
    ],
)
def test_a_sampled_listing_keeps_a_line_led_by_a_word_no_other_row_has(odd_line: str) -> None:
    rows = _modules(120)
    rows.insert(60, odd_line)
    rows[90:92] = ["Traceback (most recent call last):", '  File "<string>", line 1, in <module>']
    text = render_preview(optimize(("\n".join(rows) + "\n").encode(), COARSE))
    assert odd_line in text
    assert rows[40] not in text


@pytest.mark.parametrize(
    ("rows", "rare"),
    [
        (  # an interpreter's import trace: extension modules among compiled modules
            [
                row
                for i in range(50)
                for row in (
                    f"# /usr/lib/python3.11/__pycache__/m{i}.cpython-311.pyc matches /usr/lib/python3.11/m{i}.py",
                    f"# code object from '/usr/lib/python3.11/__pycache__/m{i}.cpython-311.pyc'",
                    f"import 'm{i}' # <SourceFileLoader object at 0x7f82a7d{i:05x}>",
                    *([f"# extension module '_c{i}' loaded from '/usr/lib/python3.11/lib-dynload/_c{i}.so'"] * (i % 16 == 5)),
                )
            ],
            "# extension module '_c",
        ),
        (  # a file sync: the few files deleted among those sent
            [
                row
                for i in range(120)
                for row in (f"src/pkg{i // 10}/mod{i}.py", *([f"deleting src/pkg{i // 10}/old{i}.py"] * (i % 40 == 17)))
            ],
            "deleting src/",
        ),
    ],
)
def test_a_sampled_listing_says_the_rows_of_a_rare_form(rows: list[str], rare: str) -> None:
    """Rows of a form few rows have are what the listing says beyond its routine: said
    once as a form, each row by its values, every row rebuilt from the two."""
    text = render_preview(optimize(("\n".join(rows) + "\n").encode(), COARSE))
    odd = [row for row in rows if row.startswith(rare)]
    said = re.search(r"rows of rare forms: `([^`]*)` ×(\d+): ([^}]*)\}", text)
    assert said is not None and said[2] == "3"
    assert [said[1].replace("*", value) for value in said[3].split(", ")] == odd
    assert rows[40] not in text  # the routine rows still fold


def _member(name: str, symbols: list[str]) -> str:
    body = "\n".join(symbols) if symbols else "no symbols"
    return (
        f"{name}:     file format elf64-x86-64\narchitecture: i386:x86-64, flags 0x00000011:\n\n"
        f"Sections:\nIdx Name          Size      VMA\n  0 .text         00000040  0000000000000000\n"
        f"                  CONTENTS, ALLOC, LOAD, READONLY, CODE\nSYMBOL TABLE:\n{body}\n"
    )


@pytest.mark.parametrize("odd", ["no symbols", "stripped by strip --strip-all"])
def test_a_series_member_keeps_a_line_led_by_a_word_few_members_have(odd: str) -> None:
    members = [
        _member(f"m{i}.o", [f"{j:016x} g     F .text\t0000000000000040 __f{i}_{j}" for j in range(i % 7 + 1)])
        for i in range(60)
    ]
    members[20] = _member("m20.o", []).replace("no symbols", odd)
    data = "\n\n".join(members).encode()
    # The outline's decision (a series this regular is folded as records before it).
    document = Document(data, TextConfig())
    states = document.outline([])
    lines = data.split(b"\n")
    assert states[lines.index(odd.encode())] == KEEP
    assert states[lines.index(b"0000000000000000 g     F .text\t0000000000000040 __f5_0")] != KEEP


def test_entries_of_a_documentation_listing_each_stay() -> None:
    names = [a + b for a in ("lib", "node-", "ruby-", "python3-") for b in ("errno", "oops", "fail", "trap", "panic", "fault")]
    # Some summaries hold a failure word and stay as failures would; the others are entries too.
    entries = [
        f"{name}-tool - module to {'report errors' if at % 3 else 'handle exceptions'} of kind {name} in an easy way"
        for at, name in enumerate(names * 5)
    ]
    entries = [entry.replace("-tool", f"-tool{chr(97 + at % 26)}{chr(97 + at // 26)}") for at, entry in enumerate(entries)]
    text = render_preview(optimize(("\n".join(entries) + "\n").encode(), COARSE))
    assert all(entry in text for entry in entries)
# --- a ranking's top rows: the hottest functions of a profile -----------------------------


def _ranked_report(rows: list[str]) -> bytes:
    intro = [f"Profile of run {n}: settings as recorded, nothing unusual to report here." for n in range(30)]
    return ("\n".join(["Report", "", *intro, "", "Cost   where", "", *rows, "", "End of report."]) + "\n").encode()


def test_a_rankings_top_rows_stay_whole() -> None:
    costs = [9_000_000 // (n + 1) for n in range(40)]
    rows = [f"{cost:>12,} ({cost / 250_000:5.2f}%)  " + " ".join(["column"] * 30) + f"  src/module{n}.c:function_{n}" for n, cost in enumerate(costs)]
    shown = render_preview(optimize(_ranked_report(rows), COARSE))
    for row in rows[:10]:
        assert row in shown  # whole, however long
    assert "function_10" not in shown and "function_20" not in shown


def test_rising_numbers_are_no_ranking() -> None:
    rows = [f"{n * 1000:>8,}  " + " ".join(["column"] * 30) + f"  step_{n}" for n in range(1, 41)]
    shown = render_preview(optimize(_ranked_report(rows), COARSE))
    assert "step_5\n" not in shown


def test_profile_summary_keeps_its_hottest_rows() -> None:
    data = (FIXTURES / "real" / "cg_annotate_hot.txt").read_bytes()
    shown = render_preview(optimize(data, COARSE))
    lines = data.decode().splitlines()
    table = lines.index(next(line for line in lines if line.rstrip().endswith("file:function")))
    for row in lines[table + 2 : table + 12]:
        assert row in shown


def _key_value_report(long_line: str) -> bytes:
    """A `Key: value` report of 2 KB and more (lscpu, gcc -v) holding one long line."""
    fields = [f"Field number {i}:{' ' * 20}value {i * 3}" for i in range(60)]
    return ("\n".join([*fields[:30], long_line, *fields[30:]]) + "\n").encode()


_WORD_LISTS = [
    ("Flags:                                   ", [f"flag{i}" for i in range(120)]),
    ("Configured with: ../src/configure", [f"--with-option-{i}=/usr/lib/x{i}" for i in range(40)]),
]


@pytest.mark.parametrize(("label", "words"), _WORD_LISTS)
def test_a_long_word_list_in_a_small_output_stays_whole(label: str, words: list[str]) -> None:
    """The one item a reader looks for (`avx512f` among a CPU's flags) can be anywhere in it."""
    line = f"{label} {' '.join(words)}"
    text = render_preview(optimize(_key_value_report(line), COARSE))
    assert line in text.splitlines()


@pytest.mark.parametrize(("label", "words"), _WORD_LISTS)
def test_a_long_word_list_in_a_large_output_is_cut(label: str, words: list[str]) -> None:
    data = _key_value_report(f"{label} {' '.join(words)}")
    limits = TextConfig(word_list_doc_bytes=len(data) - 1)
    assert words[-1] not in render_preview(optimize(data, COARSE, limits))


def test_a_long_line_of_prose_is_no_word_list() -> None:
    line = "Description:  " + ", ".join(f"step {i} copies the files it was given" for i in range(40))
    text = render_preview(optimize(_key_value_report(line), COARSE))
    assert "… +" in next(row for row in text.splitlines() if row.startswith("Description"))


def test_a_command_line_is_no_word_list_for_want_of_a_label() -> None:
    """A link line's words are arguments, not items listed under a name: it shows its start."""
    data = (" /usr/lib/gcc/collect2 -plugin /usr/lib/gcc/lto.so " + " ".join(f"-L/usr/lib/x{i}" for i in range(60))).encode()
    assert [span.kind for span in long_line(data, 0, len(data), TextConfig(), [])][:2] == [SpanKind.KEEP, SpanKind.FOLD]
    listed = b"Flags:   " + data
    assert long_line(listed, 0, len(listed), TextConfig(), []) == [TextSpan(SpanKind.KEEP, 0, len(listed))]


@pytest.mark.parametrize(("label", "words"), _WORD_LISTS)
def test_a_cut_inside_a_line_says_how_many_words_it_hides(label: str, words: list[str]) -> None:
    data = _key_value_report(f"{label} {' '.join(words)}")
    text = render_preview(optimize(data, COARSE, TextConfig(word_list_doc_bytes=0)))
    shown = next(row for row in text.splitlines() if row.startswith(label))
    kept = shown.split(" … ")[0]
    assert shown.endswith(f" … +{len(words) - len(kept[len(label):].split())} words")
    assert words[-1] not in text


@pytest.mark.parametrize(
    "line",
    [
        (
            "CREATE TABLE tracks (track_id INTEGER PRIMARY KEY, name TEXT NOT NULL, album_id INTEGER REFERENCES "
            "albums(album_id) ON DELETE CASCADE, genre_id INTEGER REFERENCES genres(genre_id), milliseconds INTEGER);"
        ),
        (
            "     |  async create_connection(self, protocol_factory, host=None, port=None, *, ssl=None, family=0, "
            "proto=0, flags=0, sock=None, local_addr=None, server_hostname=None, happy_eyeballs_delay=None)"
        ),
    ],
)
def test_a_statement_cut_inside_its_argument_list_keeps_the_list(line: str) -> None:
    data = f"{line}\n".encode()
    assert long_line(data, 0, len(data), TextConfig(), []) == [TextSpan(SpanKind.KEEP, 0, len(data))]


def test_an_argument_list_that_runs_on_past_its_reach_is_cut() -> None:
    data = ("CREATE TABLE wide (" + ", ".join(f"column_{i} INTEGER" for i in range(40)) + ");\n").encode()
    spans = long_line(data, 0, len(data), TextConfig(), [])
    assert [span.kind for span in spans] == [SpanKind.KEEP, SpanKind.FOLD, SpanKind.KEEP]
    assert spans[0].end < TextConfig().cut_bytes
