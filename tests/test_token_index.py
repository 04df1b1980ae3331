"""Counts from the raw index are exact: they equal tokenizing each text on its own."""

from __future__ import annotations

import dataclasses
import gc
import sys
import threading
import weakref
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenlab import pipeline
from tokenlab.counting import counter as token_index
from tokenlab.counting import runs
from tokenlab.counting import tokens
from tokenlab.counting.counter import TokenCounter
from tokenlab.counting.crew import _lane
from tokenlab.counting.index import SENTINEL, IndexLimits, RawIndex, count_each
from tokenlab.counting.runs import InputSlices, MappedText, Runs
from tokenlab.errors import RefNotFoundError, StoreCorruptionError
from tokenlab.packet import ContextPacket
from tokenlab.pipeline import analyze
from tokenlab.run_settings import RunSettings
from tokenlab.store import FolderStore, open_store

# Tiny limits, so that short examples cross chunk, block and run boundaries.
TINY = IndexLimits(
    chunk_bytes=8,
    block_bytes=64,
    first_block_bytes=16,
    min_aligned_bytes=0,
    min_run_bytes=6,
    probe_bytes=4,
    runs_per_mb=1 << 24,
)

LINE_PIECES = [
    "a",
    "Z",
    "7",
    " ",
    "  ",
    "\t",
    "/",
    "/usr",
    "é",
    "日本",
    "!",
    "'s",
    "-",
    ";",
    "{",
    '"',
    "\u00a0",
    "\x85",
    "#ref:ctx_",
    "…",
]
lines = st.lists(st.sampled_from(LINE_PIECES), max_size=8).map(lambda parts: "".join(parts) + "\n")
ENDINGS = ["\n", "\r\n", "  \n", "\n\n"]


def exact(data: bytes) -> int:
    return tokens.count(data.decode("utf-8", errors="replace"))


@st.composite
def raw_and_texts(draw: st.DrawFn) -> tuple[bytes, list[bytes]]:
    raw_lines = [line.encode() for line in draw(st.lists(lines, min_size=1, max_size=60))]
    raw_lines[-1] = raw_lines[-1].rstrip(b"\n") + draw(st.sampled_from(ENDINGS)).encode()
    raw = b"".join(raw_lines) + draw(st.binary(max_size=3))
    kept = [line for line in raw_lines if draw(st.booleans())]
    start = draw(st.integers(0, len(raw)))
    end = draw(st.integers(start, len(raw)))
    foreign = draw(st.sampled_from([b"", b"#ref:ctx_abcdef\n", b"\xff\xfe", b"  \n"]))
    insert_at = draw(st.integers(0, len(kept)))
    texts = [
        b"".join(kept),  # folded lines in original order
        raw[start:end],  # a contiguous span, cut anywhere
        b"".join(kept[:insert_at]) + foreign + b"".join(kept[insert_at:]),  # with text not in the input
        raw,
        b"",
    ]
    return raw, texts


@settings(max_examples=300, deadline=None)
@given(raw_and_texts(), st.booleans(), st.sampled_from([TINY, IndexLimits()]))
def test_counts_from_the_index_equal_tokenizing_each_text(
    case: tuple[bytes, list[bytes]], early: bool, limits: IndexLimits
) -> None:
    raw, texts = case
    with TokenCounter(limits) as counter:
        counter.start_raw(raw)
        if early:  # counting started while the raw count may still run
            counter.prefetch(texts[:2])
        assert counter.count_texts(texts) == [exact(text) for text in texts]
        assert counter.raw_index().total == exact(raw)


@st.composite
def raw_and_slices(draw: st.DrawFn) -> tuple[bytes, InputSlices]:
    """An input and ranges of it cut anywhere (inside lines, between them, adjacent, empty)."""
    raw_lines = [line.encode() for line in draw(st.lists(lines, min_size=1, max_size=60))]
    raw = b"".join(raw_lines) + draw(st.binary(max_size=3))
    offsets = sorted(draw(st.lists(st.integers(0, len(raw)), max_size=16)))
    spans = list(zip(offsets[::2], offsets[1::2]))
    return raw, InputSlices(raw, spans)


@settings(max_examples=300, deadline=None)
@given(raw_and_slices(), st.booleans(), st.sampled_from([TINY, IndexLimits()]))
def test_input_slices_count_as_their_joined_bytes(
    case: tuple[bytes, InputSlices], early: bool, limits: IndexLimits
) -> None:
    raw, slices = case
    joined = b"".join(raw[start:end] for start, end in slices.spans)
    assert bytes(slices) == joined and len(slices) == len(joined)
    with TokenCounter(limits) as counter:
        counter.start_raw(raw)
        if early:
            counter.prefetch([slices])
        assert counter.count_texts([slices]) == [exact(joined)]


@st.composite
def raw_and_line_ranges(draw: st.DrawFn) -> tuple[bytes, InputSlices]:
    """An input and ranges of whole lines of it (a diff's folds): the joins fall at line starts."""
    raw_lines = [line.encode() for line in draw(st.lists(lines, min_size=1, max_size=60))]
    raw = b"".join(raw_lines)
    line_starts = list(accumulate(map(len, raw_lines), initial=0))
    offsets = sorted(set(draw(st.lists(st.sampled_from(line_starts), max_size=16))))
    return raw, InputSlices(raw, list(zip(offsets[::2], offsets[1::2])))


@settings(max_examples=300, deadline=None)
@given(raw_and_line_ranges(), st.booleans())
def test_ranges_of_whole_lines_count_as_their_joined_bytes(
    case: tuple[bytes, InputSlices], planned: bool
) -> None:
    """With the raw count cut at the ranges' ends (as a diff's plan cuts it) or not."""
    raw, slices = case
    cuts = [sorted({offset for span in slices.spans for offset in span})] if planned else None
    with TokenCounter(TINY) as counter:
        counter.start_raw(raw, cuts)
        assert counter.count_texts([slices]) == [exact(bytes(slices))]


def test_spans_looked_up_a_slice_at_a_time_add_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans go to the index a slice at a time (a diff's folds are millions); the slices'
    counts and edges (ranges that start with a blank line) add up."""
    monkeypatch.setattr(token_index, "_SPANS_LOOKED_UP", 2)
    raw_lines = [f"    step_{n}(record)\n".encode() if n % 3 else b" \n" for n in range(60)]
    at = list(accumulate(map(len, raw_lines), initial=0))
    raw = b"".join(raw_lines)
    slices = InputSlices(raw, [(at[n], at[n + 2]) for n in range(0, 56, 4)])
    with TokenCounter(TINY) as counter:
        counter.start_raw(raw, [sorted({offset for span in slices.spans for offset in span})])
        assert counter.count_texts([slices]) == [exact(bytes(slices))]


def test_ranges_joined_at_safe_cuts_are_counted_whole_from_the_index() -> None:
    """Only at a join that is not a safe cut of the joined text (the next range starts
    with a blank line) are the ranges on both sides counted from their inner safe cuts,
    the bytes between those tokenized."""
    raw_lines = [b" kept\n", b" folded one\n", b" folded two\n", b" kept\n", b" \n", b" folded\n", b" kept\n"]
    at = list(accumulate(map(len, raw_lines), initial=0))
    raw = b"".join(raw_lines)
    starts, ends, between = runs._slice_interiors(InputSlices(raw, [(at[1], at[3]), (at[4], at[6])]))
    assert list(zip(starts, ends)) == [(at[1], at[2]), (at[5], at[6])]
    assert between == [b" folded two\n \n"]


def test_ranges_that_are_their_own_interiors_share_the_slices_columns() -> None:
    """A diff's context folds are millions of ranges, nearly all their own interiors: those
    are not copied, and a range that is not its own interior still is."""
    raw = b" kept\n folded one\n kept\n folded two\n kept\n \n folded three\n"
    whole = InputSlices(raw, [(6, 18), (24, 36)])
    starts, ends, between = runs._slice_interiors(whole)
    assert starts is whole.starts and ends is whole.ends and between == []
    # " \n" after the join: the first range has no interior, the second starts after it.
    blank_first = InputSlices(raw, [(6, 18), (42, 58)])
    starts, ends, between = runs._slice_interiors(blank_first)
    assert starts is not blank_first.starts
    assert list(zip(starts, ends)) == [(44, 58)] and between == [b" folded one\n \n"]


def test_slices_of_another_input_are_tokenized_whole() -> None:
    other = b"error: one\nerror: two\n" * 50
    slices = InputSlices(other, [(0, 11), (22, 33)])
    with TokenCounter(TINY) as counter:
        counter.start_raw(b"something else\n" * 20)
        assert counter.count_texts([slices]) == [exact(bytes(slices))]


def test_texts_are_counted_without_a_raw_count_too() -> None:
    texts = [b"words of a long text\n" * 20_000, b"short", b""]
    with TokenCounter(TINY) as counter:
        assert counter.count_texts(texts) == [exact(text) for text in texts]


@st.composite
def raw_and_mapped(draw: st.DrawFn) -> tuple[bytes, MappedText, list[int]]:
    """A text built from raw ranges (cut anywhere) and foreign bytes, with its runs."""
    raw_lines = [line.encode() for line in draw(st.lists(lines, min_size=1, max_size=40))]
    raw = b"".join(raw_lines) + draw(st.binary(max_size=3))
    data, runs, cuts = b"", [], []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            data += draw(
                st.sampled_from([b"\xe2\x80\xa6 3 lines\n", b"#ref:ctx_abcdef", b"\n", b" ", b"\xff"])
            )
            continue
        start = draw(st.integers(0, len(raw)))
        end = draw(st.integers(start, len(raw)))
        claimed = draw(st.sampled_from([end - start, end - start, max(0, end - start - 1)]))
        runs.append((len(data), start, claimed))  # a claim one byte short is still true
        cuts += [start, end]
        data += raw[start:end]
    return raw, MappedText(data, Runs.of(runs)), cuts


@settings(max_examples=300, deadline=None)
@given(raw_and_mapped(), st.sampled_from([TINY, IndexLimits()]))
def test_mapped_texts_count_exactly(case: tuple[bytes, MappedText, list[int]], limits: IndexLimits) -> None:
    raw, mapped, cuts = case
    with TokenCounter(limits) as counter:
        ordered = sorted(cuts)
        counter.start_raw(raw, [ordered[: len(ordered) // 2], ordered[len(ordered) // 2 :]])
        assert counter.count_texts([mapped, mapped.data]) == [exact(mapped.data)] * 2
        assert counter.raw_index().total == exact(raw)


def test_a_run_that_does_not_match_the_input_is_tokenized() -> None:
    raw = b"alpha\nbeta\ngamma\n" * 20
    text = b"ALPHA\nBETA\n" + raw[12:]
    with TokenCounter() as counter:
        counter.start_raw(raw, [[0, 12]])
        runs = Runs.of([(0, 0, 11), (11, 12, len(raw) - 12)])
        assert counter.count_texts([MappedText(text, runs)]) == [exact(text)]


def test_default_limits_on_a_long_log_with_gaps() -> None:
    raw_lines = [
        f"2026-03-14 09:00:{i % 60:02d} INFO request {i} took {i % 97} ms\n".encode() for i in range(40_000)
    ]
    raw_lines[1234] = b"  indented continuation\n"
    raw = b"".join(raw_lines)
    folded = b"".join(line for i, line in enumerate(raw_lines) if i % 997)
    with TokenCounter() as counter:
        counter.start_raw(raw)
        assert counter.count_texts([folded, raw[1000:-1000], raw]) == [
            exact(folded),
            exact(raw[1000:-1000]),
            exact(raw),
        ]


def _counting_threads_noted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that build an encoding of their own from now on."""
    built: list[str] = []

    def new_encoding() -> object:
        built.append(threading.current_thread().name)
        return tokens.new_encoding.__wrapped__()  # type: ignore[attr-defined]

    new_encoding.__wrapped__ = tokens.new_encoding  # type: ignore[attr-defined]
    tokens.encoding()  # the shared one, built before counting
    monkeypatch.setattr(tokens, "new_encoding", new_encoding)
    return built


HELPED_RAW = "".join(f"worker {i} counted line {i * 7}\n  detail {i}\n" for i in range(3000)).encode()


def test_helper_threads_count_exactly_with_encodings_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    built = _counting_threads_noted(monkeypatch)
    raw = HELPED_RAW
    limits = dataclasses.replace(TINY, chunk_bytes=512, block_bytes=4096, parallel_bytes=len(raw))
    with TokenCounter(limits, workers=2) as counter:
        counter.start_raw(raw)
        assert counter.raw_index().total == exact(raw)
        assert counter.count_texts([raw[100:-100]]) == [exact(raw[100:-100])]
    assert built == ["tokenlab-tokenizer-1_0"]
    smaller = dataclasses.replace(limits, parallel_bytes=len(raw) + 1)
    with TokenCounter(smaller, workers=2) as counter:
        counter.start_raw(raw)
        assert counter.raw_index().total == exact(raw)
    assert len(built) == 1


def test_a_late_helper_joins_when_the_caller_waits_with_the_count_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = _counting_threads_noted(monkeypatch)
    helper_counted = threading.Event()
    index_block = token_index._index_block

    def thread_0_waits_for_the_helper(data: bytes, cuts: list[int]) -> tuple[list[int], list[int]]:
        if threading.current_thread().name != "tokenlab-tokenizer-0_0":
            helper_counted.set()
        elif not helper_counted.wait(10):
            raise TimeoutError("no helper came")
        return index_block(data, cuts)

    monkeypatch.setattr(token_index, "_index_block", thread_0_waits_for_the_helper)
    raw = HELPED_RAW
    limits = dataclasses.replace(
        TINY, chunk_bytes=512, block_bytes=4096, parallel_bytes=len(raw), late_helper_bytes=8192
    )
    with TokenCounter(limits, workers=2) as counter:
        counter.start_raw(raw, helpers_at_start=False)
        assert built == []  # none while the caller works
        assert counter.raw_index().total == exact(raw)
        assert counter.count_texts([raw[100:-100]]) == [exact(raw[100:-100])]
    assert built == ["tokenlab-tokenizer-1_0"]
    # The count kept pace (thread 0 waits no more): by the time the caller waits, less
    # than `late_helper_bytes` is left, and no encoding is built for it.
    kept_pace = dataclasses.replace(limits, late_helper_bytes=len(raw) + 1)
    with TokenCounter(kept_pace, workers=2) as counter:
        counter.start_raw(raw, helpers_at_start=False)
        assert counter.raw_index().total == exact(raw)
    assert len(built) == 1


def test_only_blocks_no_tokenizer_has_started_make_the_backlog_for_a_late_helper() -> None:
    from concurrent.futures import Future

    done: Future[object] = Future()
    done.set_result(None)
    running: Future[object] = Future()
    running.set_running_or_notify_cancel()
    limits = dataclasses.replace(TINY, late_helper_bytes=1000)
    with TokenCounter(limits) as counter:
        counter._raw_blocks.extend([(done, 5000), (running, 5000), (Future(), 600)])
        assert not counter._backlog_is_large()
        counter._raw_blocks.append((Future(), 400))
        assert counter._backlog_is_large()
        counter._raw_blocks.clear()


def test_blocks_are_counted_while_later_cuts_are_still_being_planned(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = "".join(f"line {i}\n" for i in range(2000)).encode()
    limits = dataclasses.replace(TINY, chunk_bytes=64, block_bytes=1024)
    first_block_counted = threading.Event()
    index_block = token_index._index_block

    def counted(data: bytes, cuts: list[int]) -> tuple[list[int], list[int]]:
        result = index_block(data, cuts)
        first_block_counted.set()
        return result

    monkeypatch.setattr(token_index, "_index_block", counted)
    seen_while_planning: list[bool] = []

    def planner() -> Iterator[list[int]]:
        offsets = [at for at in range(0, len(raw), 7) if raw[at - 1 : at] == b"\n"]
        yield offsets[: len(offsets) // 3]
        yield offsets[len(offsets) // 3 : len(offsets) // 2]
        seen_while_planning.append(first_block_counted.wait(5))
        yield offsets[len(offsets) // 2 :]

    with TokenCounter(limits) as counter:
        counter.start_raw(raw, planner())
        assert counter.raw_index().total == exact(raw)
    assert seen_while_planning == [True]


def test_raw_blocks_start_small_and_double_when_cuts_are_planned(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = "".join(f"line {i:04}\n" for i in range(4000)).encode()
    limits = dataclasses.replace(TINY, chunk_bytes=64, block_bytes=4096, first_block_bytes=256)
    sizes: list[int] = []
    index_block = token_index._index_block

    def noted(data: bytes, cuts: list[int]) -> tuple[list[int], list[int]]:
        sizes.append(cuts[-1] - cuts[0])
        return index_block(data, cuts)

    monkeypatch.setattr(token_index, "_index_block", noted)
    with TokenCounter(limits) as counter:
        counter.start_raw(raw, [[]])
        assert counter.raw_index().total == exact(raw)
    # Lines are 10 bytes, and a block ends at the first line end past its size.
    assert sizes[:7] == [260, 520, 1030, 2050, 4100, 4100, 4100]
    assert sum(sizes) == len(raw)
    sizes.clear()
    with TokenCounter(limits) as counter:  # nothing planned: whole blocks from the start
        counter.start_raw(raw)
        assert counter.raw_index().total == exact(raw)
    assert sizes[:2] == [4100, 4100]


def test_spans_in_input_order_are_looked_up_while_the_last_block_is_still_counting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = "".join(f"line {i}\n" for i in range(2000)).encode()
    limits = dataclasses.replace(TINY, chunk_bytes=64, block_bytes=1024)
    last_block_done, looked_up = threading.Event(), threading.Event()
    index_block = token_index._index_block

    def last_block_waits(data: bytes, cuts: list[int]) -> tuple[list[int], list[int]]:
        if cuts[-1] == len(data):
            looked_up.wait(5)
        result = index_block(data, cuts)
        if cuts[-1] == len(data):
            last_block_done.set()
        return result

    looked_up_before_the_last_block: list[bool] = []
    lookup = TokenCounter._looked_up

    def noted(
        index: token_index.RawIndex, starts: list[int], ends: list[int]
    ) -> tuple[int, list[memoryview]]:
        if starts:
            looked_up_before_the_last_block.append(not last_block_done.is_set())
            looked_up.set()
        return lookup(index, starts, ends)

    monkeypatch.setattr(token_index, "_index_block", last_block_waits)
    monkeypatch.setattr(TokenCounter, "_looked_up", staticmethod(noted))
    line_starts = [0] + [at + 1 for at in range(len(raw)) if raw[at] == 10]
    runs = [(start, start, end - start) for start, end in zip(line_starts[::50], line_starts[50::50])]
    text = MappedText(raw, Runs.of(runs))
    with TokenCounter(limits) as counter:
        counter.start_raw(raw)
        assert counter.count_texts([text]) == [exact(raw)]
    assert looked_up_before_the_last_block[0] is True


def test_crew_helpers_share_the_queue_and_leave_when_it_runs_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "new_encoding", object)  # these jobs never tokenize
    crew = token_index._Crew()
    first_taken, helper_ran = threading.Event(), threading.Event()

    def job(number: int) -> tuple[int, str]:
        name = threading.current_thread().name
        if number == 0:  # thread 0 holds the first job until the helper has run one
            first_taken.set()
            helper_ran.wait(5)
        elif name != "tokenlab-tokenizer-0_0":
            helper_ran.set()
        return number, name

    jobs = [crew.submit(job, number) for number in range(40)]
    assert first_taken.wait(5)
    crew.add_helpers(1)
    results = [future.result(5) for future in jobs]
    assert [number for number, _ in results] == list(range(40))
    assert {name for _, name in results} == {"tokenlab-tokenizer-0_0", "tokenlab-tokenizer-1_0"}
    _lane(1).submit(str).result(5)  # the helper's turn on its thread has ended
    assert crew.submit(job, 40).result(5) == (40, "tokenlab-tokenizer-0_0")
    crew.close()


def test_a_helper_whose_turn_finds_the_queue_empty_builds_no_encoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[str] = []
    monkeypatch.setattr(tokens, "new_encoding", lambda: built.append(threading.current_thread().name))
    crew = token_index._Crew()
    crew.add_helpers(1)
    _lane(1).submit(str).result(5)  # the helper's turn on its thread has ended
    assert built == []
    crew.close()


def test_a_small_analysis_is_not_kept_waiting_behind_a_large_one() -> None:
    large, small = token_index._Crew(), token_index._Crew()
    first_done, rest_released = threading.Event(), threading.Event()
    first = large.submit(first_done.wait, 5)
    rest = [large.submit(rest_released.wait, 5) for _ in range(3)]
    quick = small.submit(str, "done")
    first_done.set()
    assert quick.result(5) == "done"  # ran between the large crew's jobs, not after them
    assert not any(job.done() for job in rest)
    rest_released.set()
    large.close()
    small.close()
    assert first.result() is True


def test_crew_close_cancels_queued_jobs_and_errors_reach_the_caller() -> None:
    crew = token_index._Crew()
    failing = crew.submit(int, "not a number")
    with pytest.raises(ValueError):
        failing.result(5)
    started, gate = threading.Event(), threading.Event()

    def blocker() -> bool:
        started.set()
        return gate.wait(5)

    running = crew.submit(blocker)
    queued = crew.submit(str, "never run")
    assert started.wait(5)
    closing = threading.Thread(target=crew.close)
    closing.start()
    closing.join(0.2)
    assert closing.is_alive()  # waits for the running job
    gate.set()
    closing.join(5)
    assert running.result() is True
    assert queued.cancelled()


def test_a_crew_keeps_no_done_job_or_its_result() -> None:
    """A raw count's block results are taken into the index: the crew must not keep them too."""

    class Result:
        pass

    crew = token_index._Crew()
    first = crew.submit(Result)
    result = weakref.ref(first.result(5))
    del first
    crew.submit(int).result(5)  # thread 0 runs jobs in turn: the first one is settled
    assert result() is None
    crew.close()


def test_sentinel_text_in_the_input_is_counted_as_ordinary_text() -> None:
    raw = (f"line one {SENTINEL} and more\n" * 50).encode()
    with TokenCounter(TINY) as counter:
        counter.start_raw(raw)
        assert counter.raw_index().total == exact(raw)
    assert count_each([b"a\n", SENTINEL.encode(), b"\xe2\x82"]) == [
        exact(b"a\n"),
        exact(SENTINEL.encode()),
        exact(b"\xe2\x82"),
    ]


def test_pieces_cut_inside_utf8_sequences_count_as_decoded_alone() -> None:
    text = "naïve 日本語 text\n".encode() * 3
    pieces = [text[:7], text[7:8], text[8:20], text[20:]]
    assert count_each(pieces) == [exact(piece) for piece in pieces]


@pytest.mark.parametrize(
    "cut_before", ["  x = 1\n", "\tif y:\n", "    /path\n", "}\n", "-removed\n", " context\n", "… 4 lines\n"]
)
def test_indented_and_punctuated_lines_are_safe_cuts(cut_before: str) -> None:
    for before in ["value;\n", "text  \n", "a\r\n", "x'\n", "end.\n"]:
        whole = before + cut_before
        assert tokens.is_safe_cut(whole.encode(), len(before))
        assert tokens.count(whole) == tokens.count(before) + tokens.count(cut_before)


def test_blank_and_slash_lines_are_not_cuts() -> None:
    for after in [" \n", "\n", "  ", "\u00a0x\n"]:
        assert not tokens.is_safe_cut(("x\n" + after).encode(), 2)
    for before in [";\n", ".\n", "x \n", "é\n", "\n"]:  # a punctuation run may take "\n/"
        assert not tokens.is_safe_cut((before + "/etc\n").encode(), len(before.encode()))


@pytest.mark.parametrize("before", ["lib.so.3\n", "usr/bin\n", "x\n"])
def test_absolute_paths_after_a_letter_or_digit_are_safe_cuts(before: str) -> None:
    whole = before + "/usr/lib/python3/site.py\n"
    assert tokens.is_safe_cut(whole.encode(), len(before))
    assert tokens.count(whole) == tokens.count(before) + tokens.count(whole[len(before) :])


def test_store_holds_compares_streaming(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    data = bytes(range(256)) * 9000  # several read blocks
    ref_id = store.put(data, source="t", content_type="text", reason="r")
    assert store.holds(ref_id, data)
    assert not store.holds(ref_id, data[:-1] + b"!")
    assert not store.holds(ref_id, data + b"more")
    store.check(ref_id)
    path = store.ref_path(ref_id)
    path.write_bytes(path.read_bytes()[:-1] + b"!")
    with pytest.raises(StoreCorruptionError, match=ref_id):
        store.holds(ref_id, data)
    with pytest.raises(StoreCorruptionError, match=ref_id):
        store.check(ref_id)
    with pytest.raises(RefNotFoundError):
        store.holds("ctx_000000", b"")


def test_a_large_analysis_tunes_the_interpreter_and_restores_it(monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store()
    seen: list[tuple[bool, float]] = []
    real_classify = pipeline.classify_stage

    def classify_noting_gc(packet: ContextPacket, run: RunSettings) -> str:
        seen.append((gc.isenabled(), sys.getswitchinterval()))
        return real_classify(packet, run)

    monkeypatch.setattr(
        pipeline,
        "STAGES",
        tuple((n, classify_noting_gc if n == "CLASSIFY" else s) for n, s in pipeline.STAGES),
    )
    monkeypatch.setattr(pipeline, "LARGE_INPUT_BYTES", 500)
    interval = sys.getswitchinterval()
    assert gc.isenabled()
    packet = analyze(b"INFO tick\n" * 100, source="t", store=store)  # 1,000 bytes: large
    # What it allocated is moved to the oldest generation, not left for one long young scan.
    assert any(tracked is packet for tracked in gc.get_objects(generation=2))
    analyze(b"INFO tick\n", source="t", store=store)  # small: left as it is
    assert seen == [(False, pipeline._SWITCH_INTERVAL), (True, interval)]
    assert gc.isenabled()
    assert sys.getswitchinterval() == interval
    gc.disable()
    try:
        analyze(b"INFO tick\n" * 100, source="t", store=store)
        assert not gc.isenabled()
    finally:
        gc.enable()
    gc.freeze()  # a process that froze objects of its own keeps them frozen
    try:
        frozen = gc.get_freeze_count()
        analyze(b"INFO tick\n" * 100, source="t", store=store)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_the_index_gives_the_count_before_each_cut_and_minus_one_elsewhere() -> None:
    index = RawIndex(b"x" * 100)
    index.extend([10, 40, 100], [3, 5, 7])
    assert index.before_cuts([0, 10, 11, 40, 100, 101, 5]) == [0, 3, -1, 8, 15, -1, -1]


def test_runs_added_to_others_move_on_by_the_offset_given() -> None:
    runs = Runs.of([(0, 5, 3)])
    runs.extend(Runs.of([(0, 20, 4), (6, 30, 2)]), offset=3)
    assert list(runs) == [(0, 5, 3), (3, 20, 4), (9, 30, 2)]
    assert runs == Runs([0, 3, 9], [5, 20, 30], [3, 4, 2]) and len(runs) == 3
