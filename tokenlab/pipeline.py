"""The analysis pipeline: the stage order, defined once, over one ContextPacket.

    LOAD → CLASSIFY → MEASURE_RAW → OPTIMIZE → MEASURE_OPT → SIGNAL → RECOVERY

Each stage reads and writes named packet fields and returns the one-line detail that the
runner appends to the packet's trace. The Optimize stage is the only one that writes to
the store: it stores each omission, renders its marker, and stores the whole original
so that `restore` can rebuild it byte for byte (`visible_writer.py` writes that text;
`run_settings.py` holds what a run is given).

The cost floor of an analysis is one tokenizer pass over the input, so the stages are
arranged around it: MEASURE_RAW starts the exact raw count on a tokenizer thread (with
helpers for large inputs, see `counting/`) and returns at once (the tokenizer releases
the GIL, so it runs on another core while OPTIMIZE works); its trace detail is filled in
when MEASURE_OPT needs the count. For types whose optimizer maps its output to input
ranges (`MAPS_INPUT`: diffs, whose kept and folded lines alternate every few lines),
OPTIMIZE starts the count instead, as the optimizer plans a batch of files at a time
which lines it leaves out, cut where they begin and end, and then renders the text. Omissions are
stored and reloaded on I/O threads while the visible text is masked. The visible text is
written to the packet's `visible_text` as it is built, part by part (a large diff keeps
most of its lines: held whole, its text was the analysis's largest holder), and a large
one is read back a piece at a time wherever it is read. MEASURE_OPT counts
the visible text and the omissions from the raw count's index rather than tokenizing
them again (see `counting/`), and RECOVERY reports the reloads. Trace entries are
still recorded in stage order. While a large input is analysed, the cyclic garbage
collector is paused (optimizers build many small acyclic objects, and repeated full
collections made large inputs cost more than linear time) and the GIL's switch interval
is shortened, so that tokenizer threads are not kept waiting for it. A large input may be
a mapping of its file (`mapped.py`): CLASSIFY gives the types whose optimizer reads bytes
a copy, and a pager gives the mapping's pages back while the stages read it.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import accumulate
from operator import itemgetter, sub

from tokenlab import markers
from tokenlab.classify import classify
from tokenlab.counting.counter import Started, TokenCounter
from tokenlab.counting.runs import MappedText, Runs, pieces_at_safe_cuts
from tokenlab.errors import TokenlabError
from tokenlab.mapped import RawInput, as_bytes, paged
from tokenlab.optimizers import (
    MAPS_INPUT,
    READS_MAPPED,
    ContentType,
    Omission,
    OptimizerConfig,
    OptimizeResult,
    Span,
    optimizer_for,
    planner_for,
)
from tokenlab.optimizers import visible as visible_text  # `visible` names the text built here
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.packet import ContextPacket, Measurement, Status, StoredRef
from tokenlab.redact import redact
from tokenlab.run_settings import RunSettings
from tokenlab.spooled_text import SpooledText
from tokenlab.store import Store
from tokenlab.visible_writer import counted_whole, render_parts, utf8

# started in the background has finished.
Detail = str | Callable[[], str]
Stage = Callable[[ContextPacket, RunSettings], Detail]


def load_stage(packet: ContextPacket, run: RunSettings) -> str:
    return f"source={packet.source} bytes={len(packet.raw)}"


def classify_stage(packet: ContextPacket, run: RunSettings) -> str:
    found = classify(packet.raw)
    packet.content_type = found.content_type
    packet.classify_reason = found.reason
    mapped = ""
    if not isinstance(packet.raw, bytes):
        if found.content_type in READS_MAPPED:
            mapped = " mapped"
        else:  # this type's optimizer reads bytes
            packet.raw = as_bytes(packet.raw)
    return f"type={found.content_type.value} ({found.reason}){mapped}"


# A large input's raw count gets helper tokenizer threads, each with an encoding of its own
# (`counting/crew.py`: about 55 MB). A log's gets one only if the count is behind when the
# optimizer is done: by then the optimizer's per-line state is freed, so the encoding is not
# added to it (a helper from the start broke the 200 MB log's memory limit). It still raises
# a 100 MB log's peak RSS, by about 55 MB, when it comes.
LATE_HELPED_COUNTS = frozenset({ContentType.LOG})


def measure_raw_stage(packet: ContextPacket, run: RunSettings) -> Detail:
    if packet.content_type not in MAPS_INPUT:  # else OPTIMIZE starts it, with the cuts
        run.counter.start_raw(packet.raw, helpers_at_start=packet.content_type not in LATE_HELPED_COUNTS)

    def detail() -> str:
        m = _raw_measure(packet, run)
        return f"bytes={m.bytes} tokens={m.tokens} est_tokens(bytes/4)={m.est_tokens}"

    return detail


def _raw_measure(packet: ContextPacket, run: RunSettings) -> Measurement:
    """The raw count MEASURE_RAW started, waiting for it if it is still running."""
    if packet.raw_measure is None:
        packet.raw_measure = Measurement(len(packet.raw), run.counter.raw_index().total)
    return packet.raw_measure


def optimize_stage(packet: ContextPacket, run: RunSettings) -> str:
    assert packet.content_type is not None
    mapped = packet.content_type in MAPS_INPUT
    if mapped:
        plan = planner_for(packet.content_type)(packet.raw, run.optimizer)
        run.counter.start_raw(packet.raw, plan.input_cuts())  # counts while the rest is planned
        stream = plan.stream()
        del plan  # what it kept to decide (a large diff's hunk bodies) is not needed to render
        render_parts(packet, run, stream.parts, stream.omits, mapped)
        return _optimized(packet, run)
    if not packet.raw and packet.content_type is ContentType.TEXT:
        result = OptimizeResult(())  # what text's optimizer answers (see `classify`), unimported
    else:
        result = optimizer_for(packet.content_type)(packet.raw, run.optimizer)
    packet.automatic_signals = result.signals
    render_parts(packet, run, iter(result.parts), any(result.omissions), mapped)
    return _optimized(packet, run)


def _optimized(packet: ContextPacket, run: RunSettings) -> str:
    assert packet.content_type is not None
    secrets = f" secrets_masked={packet.secrets_masked}" if run.redact_secrets else " redaction=off"
    return f"type={packet.content_type.value} refs={len(packet.refs)}{secrets}"


def _source_runs(source: Sequence[Span]) -> Runs:
    """The runs of an omission made of input ranges, by offset in its bytes."""
    starts = list(map(itemgetter(0), source))
    lengths = list(map(sub, map(itemgetter(1), source), starts))
    return Runs(accumulate(lengths, initial=0), starts, lengths)


def _reload_failure(run: RunSettings, ref: StoredRef) -> str | None:
    try:
        return None if run.store.holds(ref.id, ref.data) else f"{ref.id}: reloaded bytes differ"
    except TokenlabError as error:
        return str(error)


def measure_opt_stage(packet: ContextPacket, run: RunSettings) -> str:
    _measure_visible(packet, run)
    raw_tokens = _raw_measure(packet, run).tokens
    shown_tokens = packet.visible_measure.tokens if packet.visible_measure else 0
    passed_through = ""
    if shown_tokens >= raw_tokens and _show_the_input_instead(packet, run):
        passed_through = f" (the optimized text had {shown_tokens} tokens: the input is shown instead)"
    assert packet.visible_measure is not None
    return (
        f"visible_tokens={packet.visible_measure.tokens} marker_tokens={packet.marker_tokens} "
        f"referenced_tokens={packet.referenced_tokens} saved={packet.saved_pct:.1f}%{passed_through}"
    )


def _measure_visible(packet: ContextPacket, run: RunSettings) -> None:
    text = packet.visible_text
    shown = _visible_counted(packet, run)
    refs = [
        ref.content if counted_whole(ref) else MappedText(ref.data, _source_runs(ref.source))
        for ref in packet.refs
    ]
    marker_text = [markers.marker(ref.id).encode() for ref in packet.all_refs]
    # Mapping the texts onto the input needs only its bytes: it runs while the raw count does.
    counts = run.counter.count_texts([shown, *refs, *marker_text])
    _raw_measure(packet, run)
    packet.visible_measure = Measurement(len(text), counts[0])
    packet.referenced_tokens = sum(counts[1 : 1 + len(packet.refs)])
    packet.marker_tokens = sum(counts[1 + len(packet.refs) :])


def _visible_counted(packet: ContextPacket, run: RunSettings) -> bytes | MappedText | Started:
    """The visible text as the counter takes it: whole while it is in memory, else read back
    a piece at a time, each piece's counting started as it is read."""
    text, runs = packet.visible_text, packet.visible_runs
    if text.spilled:
        return run.counter.start_pieces(pieces_at_safe_cuts(text.blocks(_COUNTED_BYTES), runs))
    whole = text.getvalue()
    return MappedText(whole, runs) if runs else whole


# Pieces of a visible text read back to be counted (`pieces_at_safe_cuts`).
_COUNTED_BYTES = 4 << 20


def _show_the_input_instead(packet: ContextPacket, run: RunSettings) -> bool:
    """Never show more than the input: when the optimized text is no smaller, show the input
    itself (still masked and escaped, so it keeps a footer only if those changed it).

    Returns whether the input replaced the optimized text. Refs the optimizer wrote stay in
    the store, unreferenced, until `store gc` removes them.
    """
    trial = ContextPacket(source=packet.source, raw=packet.raw, content_type=packet.content_type)
    trial.raw_measure = packet.raw_measure
    render_parts(trial, run, iter((visible_text(as_bytes(packet.raw)),)), False, mapped=False)
    if trial.visible_text.equals(packet.visible_text):
        trial.visible_text.close()
        return False
    _measure_visible(trial, run)
    assert trial.visible_measure is not None and packet.visible_measure is not None
    if trial.visible_measure.tokens > packet.visible_measure.tokens:
        trial.visible_text.close()
        return False
    packet.visible_text.close()
    packet.visible_text, packet.visible_runs = trial.visible_text, trial.visible_runs
    packet.refs, packet.original_ref = trial.refs, trial.original_ref
    packet.reload_failures.update(trial.reload_failures)
    packet.secrets_masked = trial.secrets_masked
    packet.visible_measure = trial.visible_measure
    packet.referenced_tokens, packet.marker_tokens = trial.referenced_tokens, trial.marker_tokens
    return True


def signal_stage(packet: ContextPacket, run: RunSettings) -> str:
    """Every expected signal, and every one the optimizer's rules found in the input
    (failures, summaries), must be visible: as itself, or by its values in a group line."""
    given = [_as_shown(signal, run) for signal in (*packet.signals, *packet.automatic_signals)]
    expected = tuple(dict.fromkeys(signal for signal in given if signal))
    if not expected:
        packet.signal_status = Status.SKIP
        return "SKIP (no expected signals given, none found in the input)"
    missing = _not_shown(expected, packet.visible_text)
    packet.missing_signals = missing
    packet.signal_status = Status.FAIL if missing else Status.PASS
    counts = f"{len(packet.signals)} given, {len(packet.automatic_signals)} found"
    if missing:
        return f"FAIL missing {len(missing)}/{len(expected)} ({counts}): " + "; ".join(map(repr, missing))
    return f"PASS {len(expected)}/{len(expected)} signals visible ({counts})"


def _not_shown(expected: tuple[str, ...], shown: SpooledText) -> tuple[str, ...]:
    """`line_shown.not_shown`, reading the visible text whole only when a signal is not in
    it as it is (UTF-8 finds a text's bytes exactly where the text is)."""
    if not shown.missing(map(utf8, expected)):
        return ()
    return line_shown.not_shown(expected, shown.getvalue().decode("utf-8", errors="surrogatepass"))


def _as_shown(signal: str, run: RunSettings) -> str:
    """An expected line as the visible text can show it: marker look-alikes escaped, and
    cut where a secret that is masked begins (empty if it begins with one)."""
    signal = markers.escape_literal_markers(signal)
    if run.redact_secrets:
        pieces = redact(signal)
        if any(isinstance(piece, Omission) for piece in pieces):
            first = pieces[0]
            return first.strip() if isinstance(first, str) else ""
    return signal


def recovery_stage(packet: ContextPacket, run: RunSettings) -> str:
    checked = packet.reload_failures  # refs the Optimize stage reloaded right after writing
    failures = [
        failure
        for ref in packet.unique_refs
        if (failure := checked[ref.id] if ref.id in checked else _reload_failure(run, ref))
    ]
    packet.recovery_failures = tuple(failures)
    packet.recovery_status = Status.FAIL if failures else Status.PASS
    if failures:
        return "FAIL " + "; ".join(failures)
    return f"PASS {len(packet.unique_refs)} refs reload byte-exactly"


STAGES: tuple[tuple[str, Stage], ...] = (
    ("LOAD", load_stage),
    ("CLASSIFY", classify_stage),
    ("MEASURE_RAW", measure_raw_stage),
    ("OPTIMIZE", optimize_stage),
    ("MEASURE_OPT", measure_opt_stage),
    ("SIGNAL", signal_stage),
    ("RECOVERY", recovery_stage),
)


def analyze(
    data: RawInput,
    *,
    source: str,
    store: Store,
    config: OptimizerConfig | None = None,
    signals: tuple[str, ...] = (),
    redact_secrets: bool = True,
) -> ContextPacket:
    """Run every stage over `data`; the packet carries the visible text and the trace."""
    packet = ContextPacket(source=source, raw=data, signals=signals)
    with _tuned_for_a_large_input(len(data) >= LARGE_INPUT_BYTES), paged(data), TokenCounter() as counter:
        run = RunSettings(store, counter, config or OptimizerConfig(), redact_secrets)
        details = [(name, stage(packet, run)) for name, stage in STAGES]
        for name, detail in details:
            packet.record(name, detail if isinstance(detail, str) else detail())
    return packet


# Smaller inputs build too few objects for full collections to matter, and are counted
# in a few small blocks; leaving the interpreter as it is for them keeps a busy server
# from running long without collections. (At 1 MB the tuning still saves 6-8 ms of a
# 60 ms analysis.)
LARGE_INPUT_BYTES = 256 << 10
# A tokenizer thread needs the GIL for a moment after each block it counts; with the
# default 5 ms switch interval it waits that long behind this thread's Python work each
# time, which made up most of the difference between a 10 MB diff's raw count alone
# (0.36 s) and beside its optimizer (0.46 s).
_SWITCH_INTERVAL = 0.001
_tuning_lock = threading.Lock()
_large_runs = 0  # large analyses running now, in any thread
_gc_was_enabled = False
_switch_interval_was = 0.005


@contextmanager
def _tuned_for_a_large_input(large: bool = True) -> Iterator[None]:
    """Pause the cyclic collector and shorten the GIL's switch interval while any large
    analysis runs; restore both after the last."""
    global _large_runs, _gc_was_enabled, _switch_interval_was
    if not large:
        yield
        return
    with _tuning_lock:
        if _large_runs == 0:
            _gc_was_enabled, _switch_interval_was = gc.isenabled(), sys.getswitchinterval()
            gc.disable()
            sys.setswitchinterval(_SWITCH_INTERVAL)
        _large_runs += 1
    try:
        yield
    finally:
        with _tuning_lock:
            _large_runs -= 1
            if _large_runs == 0:
                sys.setswitchinterval(_switch_interval_was)
                if _gc_was_enabled:
                    # What the analyses allocated meanwhile is all in the youngest
                    # generation: the first collection would scan it at once (about 50 ms
                    # after a 100 MB diff). Move it to the oldest, as if it had survived,
                    # unless the process froze objects of its own, which must stay frozen.
                    if gc.get_freeze_count() == 0:
                        gc.freeze()
                        gc.unfreeze()
                    gc.enable()
