"""A large input mapped from its file (`tokenlab/mapped.py`, `sources.opened_input`): the
analysis of a mapping is the analysis of its bytes, the searches that stand in for `bytes`
methods answer as those do, and nothing of the mapping or its spool is left behind."""

from __future__ import annotations

import io
import mmap
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tokenlab import mapped, sources
from tokenlab.agent.capture import Capture
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import FolderStore

REPO = Path(__file__).resolve().parents[1]
# Every log fixture (escapes, tracebacks, templated lines), a JSON document and an XML report:
# the log optimizer reads the mapping; the detectors of JSON and XML parse it as bytes. The
# diff and file-list optimizers read it too: diffs (conflict markers, a release), paths
# (`find`, `tsc --listFiles`), and the drawn listings that are read as bytes (`ls -l`, `tree`).
_DIFFS_AND_LISTINGS = (
    "auth_guard.diff",
    "files.txt",
    "real/release.diff",
    "real/git_diff_conflict_markers.txt",
    "real/find_listing.txt",
    "real/find_small_maven_project.txt",
    "real/tsc_listfiles.log",
    "real/ls_laR.txt",
    "real/tree_L3_js_project.txt",
)
FIXTURES = [
    *sorted((REPO / "fixtures").glob("*.log")),
    *(REPO / "fixtures" / name for name in _DIFFS_AND_LISTINGS),
    REPO / "fixtures" / "api_response.json",
    *sorted((REPO / "tests" / "golden" / "log").glob("*.txt"))[:12],
    *sorted((REPO / "tests" / "golden" / "xml").glob("*.txt"))[:2],
]


def _mapping(path: Path) -> mmap.mmap:
    with open(path, "rb") as file:
        return mapped.mapping(file)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.name)
@pytest.mark.parametrize("granularity", list(Granularity))
def test_a_mapped_input_is_analysed_as_its_bytes(path: Path, granularity: Granularity, tmp_path: Path) -> None:
    store = FolderStore(tmp_path / "store")
    config = OptimizerConfig(granularity=granularity)
    read = analyze(path.read_bytes(), source=path.name, store=store, config=config)
    raw = _mapping(path)
    from_mapping = analyze(raw, source=path.name, store=store, config=config)
    assert from_mapping.content_type == read.content_type
    assert from_mapping.visible == read.visible
    assert [ref.id for ref in from_mapping.refs] == [ref.id for ref in read.refs]
    assert from_mapping.visible_measure == read.visible_measure
    assert from_mapping.referenced_tokens == read.referenced_tokens
    assert from_mapping.missing_signals == read.missing_signals
    assert restore(from_mapping.visible.encode("utf-8", errors="surrogatepass"), store) == path.read_bytes()
    del from_mapping
    mapped.close(raw)
    assert raw.closed


def test_searches_of_a_mapping_answer_as_bytes_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mapped, "PASS_BYTES", 7)  # words across a pass's end are found
    data = b"abc\x1bdef warning: at x\n" * 5 + b"tail"
    path = tmp_path / "input"
    path.write_bytes(data)
    raw = _mapping(path)
    for word in (b"\x1b", b"warning: at", b"\nabc", b"tail", b"absent", b"ail"):
        assert mapped.holds(raw, word) == (word in data), word
        for start in (0, 3, 6, 40, len(data)):
            assert mapped.find(raw, word, start) == data.find(word, start), (word, start)
    assert mapped.as_bytes(raw) == data
    for byte in (b"\n", b"\x1b", b"z"):
        assert mapped.count(raw, byte) == data.count(byte), byte
    for word in (b"tail", b"ail", b"x\ntail", b"", b"tails", data + b"!"):
        assert mapped.ends_with(raw, word) == data.endswith(word), word
        for at in (0, 3, len(data) - 4, len(data)):
            assert mapped.starts_with(raw, word, at) == data.startswith(word, at), (word, at)
    mapped.close(raw)


@pytest.fixture
def small_mapping_threshold(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    from tokenlab.agent import capture

    monkeypatch.setattr(mapped, "MAPPED_BYTES", 1000)
    monkeypatch.setattr(capture, "READ_WHOLE_BYTES", 1000)
    yield 1000


def test_a_large_file_is_mapped_and_unmapped_after(small_mapping_threshold: int, tmp_path: Path) -> None:
    small, large = tmp_path / "small.log", tmp_path / "large.log"
    small.write_bytes(b"x\n" * 10)
    large.write_bytes(b"line\n" * 1000)
    with sources.opened_input(str(small), None) as (_, raw):
        assert raw == b"x\n" * 10
    with sources.opened_input(str(large), None) as (label, raw):
        assert isinstance(raw, mmap.mmap) and raw[:] == large.read_bytes()
        assert label == str(large)
    assert raw.closed


def test_large_stdin_is_spooled_to_a_file_with_no_name(
    small_mapping_threshold: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = os.urandom(1500) + b"\n" * 3000
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data[200:])))
    spool = tmp_path / "spool"
    with sources.opened_input("-", spool, stdin_head=data[:200]) as (label, raw):
        assert label == "<stdin>" and isinstance(raw, mmap.mmap)
        assert raw[:] == data
        assert list(spool.iterdir()) == []  # nothing named, nothing left behind
    assert raw.closed


def test_a_line_read_from_spooled_stdin_maps_no_more_than_from_a_file(
    small_mapping_threshold: int, tmp_path: Path
) -> None:
    """The page cache keeps each write's bytes in one block as large as the write, and a
    read of the mapping maps the block it falls in: spooled a MB at a time, each line read
    mapped 1 MB (this test: 4 MB for 4 reads), against 64 KB from a file."""
    data = b"2026-12-02 10:00:00 INFO a line of a service log\n" * 200_000  # 10 MB
    stdin = io.BytesIO(data[sources._COPY_BYTES :])
    raw = sources.spooled(data[: sources._COPY_BYTES], stdin, tmp_path)
    assert isinstance(raw, mmap.mmap) and raw[:] == data
    mapped.let_go(raw, 0, len(raw))
    before = _resident_file_pages_kb()
    for at in (100_000, 3_000_000, 6_000_000, 9_000_000):
        assert raw[at : at + 1] in data
    assert _resident_file_pages_kb() - before <= 4 * 2 * mapped.FAULT_AROUND // 1024
    mapped.close(raw)


def test_small_stdin_is_read(small_mapping_threshold: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"b" * 10)))
    with sources.opened_input("-", None, stdin_head=b"a") as (_, raw):
        assert raw == b"a" + b"b" * 10  # spooled, and read back: below the threshold
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"c" * 10)))
    with sources.opened_input("-", None) as (_, raw):
        assert raw == b"c" * 10


def test_a_large_capture_is_read_from_its_spool_mapped(small_mapping_threshold: int, tmp_path: Path) -> None:
    spool = open(tmp_path / "out", "w+b")  # noqa: SIM115 (the capture closes it)
    spool.write(b"built\n" * 500)
    capture = Capture({"output": spool})
    raw = capture.read("output")
    capture.close()
    assert isinstance(raw, mmap.mmap) and raw[:] == b"built\n" * 500  # still readable once closed
    mapped.close(raw)
    assert Capture.of_bytes({"output": b"hi"}, 0, 0.0).read("output") == b"hi"


def test_the_pager_gives_back_pages_while_an_analysis_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pager thread lets go of the whole mapping, and stops when the analysis ends."""
    monkeypatch.setattr(mapped, "PAGER_SECONDS", 0.001)
    given_back: list[tuple[int, int]] = []
    path = tmp_path / "input"
    path.write_bytes(b"y\n" * 5000)
    raw = _mapping(path)
    monkeypatch.setattr(mapped, "let_go", lambda data, start, end: given_back.append((start, end)))
    with mapped.paged(raw):
        while not given_back:
            os.sched_yield()
    stopped = len(given_back)
    assert given_back[0] == (0, len(raw))
    assert all(thread.name != "tokenlab-pager" for thread in __import__("threading").enumerate())
    assert len(given_back) == stopped
    with mapped.paged(b"bytes"):
        pass
    mapped.close(raw)


def test_lines_read_all_over_a_mapped_log_give_its_pages_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tokenlab.optimizers.log import model

    path = REPO / "fixtures" / "templated_service.log"
    store = FolderStore(tmp_path / "store")
    read = analyze(path.read_bytes(), source=path.name, store=store)
    given_back: list[int] = []
    monkeypatch.setattr(model, "WINDOWS_PER_LET_GO", 3)
    monkeypatch.setattr(model, "let_go", lambda data, start, end: given_back.append(end - start))
    raw = _mapping(path)
    from_mapping = analyze(raw, source=path.name, store=store)
    assert from_mapping.visible == read.visible
    assert given_back and set(given_back) == {len(raw)}
    del from_mapping
    mapped.close(raw)


def test_mapped_lines_give_pages_back_by_the_windows_their_reads_map(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines read in order map a fault-around window per window of lines, lines read here
    and there a window each: both give their pages back once they have mapped
    `WINDOWS_PER_LET_GO` windows, not after a number of lines read."""
    from tokenlab.optimizers.log import model
    from tokenlab.optimizers.log.templates import lines_and_templates

    path = tmp_path / "input"
    path.write_bytes(b"2026-12-02 10:00:00 INFO a line of a service log\n" * 40_000)  # 2 MB
    raw = _mapping(path)
    lines, _ = lines_and_templates(raw)
    assert isinstance(lines, model.MappedLines)
    windows = -(-len(raw) // mapped.FAULT_AROUND)
    given_back: list[int] = []
    monkeypatch.setattr(model, "let_go", lambda data, start, end: given_back.append(end - start))
    monkeypatch.setattr(model, "WINDOWS_PER_LET_GO", 4)
    for index in range(len(lines)):
        lines.clean(index)
    assert len(given_back) == windows // 4
    one_a_window = range(0, len(lines), len(lines) // windows)
    for read in (lambda: [lines.raw(index) for index in one_a_window], lambda: lines.cleans(one_a_window)):
        given_back.clear()
        read()  # a batch too is read a few lines at a time
        assert len(given_back) >= len(one_a_window) // 4 - 1
    assert set(given_back) == {len(raw)}
    del lines
    mapped.close(raw)


def test_counting_input_ranges_gives_back_the_pages_of_their_edges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting a mapped input's ranges reads only each range's edges, and gives back the
    fault-around windows those reads mapped, pager or no pager."""
    from tokenlab.counting import runs

    path = tmp_path / "input"
    path.write_bytes(b"line of a log\n" * 20_000)
    raw = _mapping(path)
    given_back: list[tuple[int, int]] = []
    monkeypatch.setattr(mapped, "let_go", lambda data, start, end: given_back.append((start, end)))
    spans = ((14 * 100, 14 * 9_000), (14 * 10_000, 14 * 19_000))
    starts, ends, _interiors = runs._slice_interiors(runs.InputSlices(raw, spans))
    assert len(starts) == len(ends) == len(spans)
    for edge in (offset for span in spans for offset in span):
        assert any(low <= edge <= high for low, high in given_back), edge
    mapped.close(raw)


def test_ranges_read_in_order_are_given_back_a_window_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many small ranges read in ascending order cost one `let_go` per window of about
    `PASS_BYTES`, which covers each of them; a range before the window, or far past it,
    starts a window of its own; a `bytes` input gives nothing back."""
    path = tmp_path / "input"
    path.write_bytes(b"x" * (4 * mapped.PASS_BYTES))
    raw = _mapping(path)
    given_back: list[tuple[int, int]] = []
    monkeypatch.setattr(mapped, "let_go", lambda data, start, end: given_back.append((start, end)))
    ranges = [(at, at + 10) for at in range(0, 2 * mapped.PASS_BYTES, 1000)]
    windows = mapped.LetGoInWindows(raw)
    for start, end in ranges:
        windows.add(start, end)
    windows.close()
    assert 2 <= len(given_back) <= 3
    assert all(any(low <= start and end <= high for low, high in given_back) for start, end in ranges)
    given_back.clear()
    for start, end in [(500, 600), (100, 200), (3 * mapped.PASS_BYTES, 3 * mapped.PASS_BYTES + 5)]:
        windows.add(start, end)
    windows.close()
    assert given_back == [(500, 600), (100, 200), (3 * mapped.PASS_BYTES, 3 * mapped.PASS_BYTES + 5)]
    given_back.clear()
    in_memory = mapped.LetGoInWindows(b"x" * 100)
    in_memory.add(0, 50)
    in_memory.close()
    assert given_back == []
    mapped.close(raw)


def _resident_file_pages_kb() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("RssFile:"))


def test_a_pass_giving_back_each_range_it_read_leaves_no_pages_of_the_mapping(tmp_path: Path) -> None:
    """Reading a range's first bytes maps the end of the range before again (the kernel's
    fault-around): `let_go` gives back those windows too. Given back exactly, this pass over
    a file read from disk left 564 KB of its 20 MB resident (68 of the first 160 MB of
    `bench/run.py`'s 1 GB log)."""
    path = tmp_path / "input"
    with open(path, "wb") as file:
        for _ in range(1000):
            file.write(b"2026-12-02 10:00:00 INFO a line of a service log\n" * 400)
        file.flush()
        os.fsync(file.fileno())
        os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)  # read from disk, as a large input is
    raw = _mapping(path)
    before = _resident_file_pages_kb()
    start = 0
    while start < len(raw):
        end = raw.find(b"\n", start + 65_536) + 1 or len(raw)
        assert raw[start:end].endswith(b"\n")
        mapped.let_go(raw, start, end)
        start = end
    assert _resident_file_pages_kb() - before < 256
    mapped.close(raw)
