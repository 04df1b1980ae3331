"""Peer comparison: tokenlab against headroom-ai on the same captures.

For every capture under `fixtures/real/` (any file but the `*.signals` and `*.questions.md`
sidecars) and the top-level `fixtures/*.{log,json,diff,txt,md}`, both tools compress the
same bytes and are measured the same way:

* raw and visible tokens with o200k_base, built offline exactly as tokenlab builds it
  (`tokenlab.counting.tokens.encoding()`), one count of each text by the same function; saved % is
  `1 - visible / raw`;
* signals kept: how many lines of `<capture>.signals` are still in the visible text
  (`signal_kept` is the one place that decides; plain substring today);
* byte-exact recovery: tokenlab's `restore` of its visible text against its store, and
  for the peer what its own retrieval (CCR: `headroom_retrieve(hash)`, i.e. the
  compression store's `retrieve`) gives back for the markers in its output.

tokenlab runs in this process (`pipeline.analyze` into a fresh temporary store). The peer
runs in a worker process started with `spawn`, so a capture that hangs it can be ended
after `--timeout` seconds without losing the run. The worker uses the peer's one-function
library API the way its MCP tool `headroom_compress` does (the tool output as one `tool`
message, default model and options) with its ML text compressor switched off. It runs
offline: `HEADROOM_OFFLINE=1`, Hugging Face offline, telemetry off, its workspace (CCR
SQLite store) in a temporary folder, its tiktoken cache filled with the vocabulary
tokenlab already holds, and every socket connect or DNS lookup refused and counted.

Run with the peer's own venv (`make bench-peer` creates it):
    .venv-peer/bin/python bench/peer.py [--fixtures fixtures] [--out bench/PEER.md]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import multiprocessing
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TOP_LEVEL_SUFFIXES = (".log", ".json", ".diff", ".txt", ".md")
SIGNALS_SUFFIX = ".signals"
SIDECAR_SUFFIXES = (SIGNALS_SUFFIX, ".questions.md")  # as tokenlab.sources names them
# The peer's retrieval markers: `Retrieve more: hash=H`, `Retrieve original: hash=H` and
# `<<ccr:H …>>` (every form its transforms write, per its `parser.CCR_RETRIEVAL_MARKER_RE`).
PEER_MARKER_RE = re.compile(r"(?:Retrieve (?:more|original): hash=|<<ccr:)([0-9a-f]{8,64})")
# The peer's documented switch for its ML text compressor (Kompress, a Hugging Face model).
PEER_OPTIONS: dict[str, Any] = {"kompress_model": "disabled"}
PEER_READY_SECONDS = 180.0


# ---------------------------------------------------------------------------------------
# Captures and signals


@dataclass(frozen=True)
class Capture:
    name: str  # path relative to the fixtures folder
    path: Path
    signals: tuple[str, ...]


def find_captures(fixtures: Path) -> list[Capture]:
    """fixtures/real/** (but `*.signals`), then the top-level fixtures of the known kinds."""
    real = fixtures / "real"
    found = sorted(p for p in real.rglob("*") if _is_capture(p)) if real.is_dir() else []
    found += sorted(p for p in fixtures.iterdir() if _is_capture(p) and p.suffix in TOP_LEVEL_SUFFIXES)
    return [Capture(str(p.relative_to(fixtures)), p, _signals(p)) for p in found]


def _is_capture(path: Path) -> bool:
    return path.is_file() and not path.name.endswith(SIDECAR_SUFFIXES) and not path.name.startswith(".")


def _signals(path: Path) -> tuple[str, ...]:
    from tokenlab.errors import TokenlabError
    from tokenlab.sources import read_signals

    sidecar = path.with_name(path.name + SIGNALS_SUFFIX)
    try:
        return read_signals(sidecar) if sidecar.is_file() else ()
    except TokenlabError:
        return ()  # a sidecar being written right now: count the capture without signals


def signal_kept(signal: str, visible: str) -> bool:
    """Whether one expected signal survives in a visible text, by tokenlab's SIGNAL rule
    (itself, or its values in a folded group's line), applied alike to both tools."""
    from tokenlab.optimizers.lines import shown as line_shown

    return not line_shown.not_shown((signal,), visible)


def signals_kept(signals: tuple[str, ...], visible: str) -> int:
    return sum(signal_kept(signal, visible) for signal in signals)


_SPACE_RE = re.compile(r"\s+")


def kept_ignoring_space(signals: tuple[str, ...], visible: str) -> int:
    """Signals found once all whitespace is removed from both sides; a footnote only, for
    output that re-serializes JSON compactly (`"a":1` where the signal says `"a": 1`)."""
    squeezed = _SPACE_RE.sub("", visible)
    return sum(_SPACE_RE.sub("", signal) in squeezed for signal in signals)


def count_tokens(text: str) -> int:
    """Exact o200k_base tokens, for raw and visible texts of both tools alike."""
    from tokenlab.counting.tokens import encoding

    return len(encoding().encode_ordinary(text))


# ---------------------------------------------------------------------------------------
# tokenlab, in process


@dataclass(frozen=True)
class Outcome:
    """One tool's result on one capture; `visible` is None when it did not finish."""

    visible: str | None
    recovery: str
    note: str = ""  # the peer's route, or why there is no result
    seconds: float = 0.0
    own_counts: tuple[int | None, int | None] | None = None  # (raw, visible) as the tool counted them


def run_tokenlab(data: bytes, source: str) -> tuple[Outcome, str]:
    """tokenlab's visible text and recovery, and its content type."""
    from tokenlab.errors import TokenlabError
    from tokenlab.pipeline import analyze
    from tokenlab.restore import restore
    from tokenlab.store import FolderStore

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tokenlab-peer-") as tmp:
        store = FolderStore(Path(tmp))
        try:
            packet = analyze(data, source=source, store=store)
        except TokenlabError as error:
            return Outcome(None, "-", f"error: {error}", time.perf_counter() - started), "?"
        elapsed = time.perf_counter() - started
        try:
            rebuilt = restore(packet.visible.encode("utf-8", errors="surrogatepass"), store)
            recovery = "yes" if rebuilt == data else "no"
        except TokenlabError as error:
            recovery = f"no ({error})"
    kind = packet.content_type.value if packet.content_type else "?"
    own = (getattr(packet.raw_measure, "tokens", None), getattr(packet.visible_measure, "tokens", None))
    return Outcome(packet.visible, recovery, "", elapsed, own), kind


# ---------------------------------------------------------------------------------------
# The peer, in a worker process


def _peer_environment(workdir: Path) -> None:
    """Environment that keeps the peer offline and its state in `workdir`."""
    os.environ.update(
        HEADROOM_OFFLINE="1",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        HEADROOM_TELEMETRY="off",
        HEADROOM_BEACON="off",
        DO_NOT_TRACK="1",
        HEADROOM_WORKSPACE_DIR=str(workdir / "headroom"),
        TIKTOKEN_CACHE_DIR=str(workdir / "tiktoken"),
    )


def fill_tiktoken_cache(folder: Path) -> None:
    """Put tokenlab's hash-checked o200k_base vocabulary where tiktoken looks for it.

    The peer counts tokens with tiktoken for its own decisions; without the file it
    would try to download it, fail here, and fall back to an estimate.
    """
    from tokenlab.counting import tokens

    folder.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha1(tokens._VOCAB_ADDRESS.encode()).hexdigest()
    (folder / key).write_bytes(tokens.vocabulary_bytes())


class _NetworkRefused:
    """Refuses every DNS lookup and socket connect in the worker, and counts them."""

    def __init__(self) -> None:
        import socket

        self.attempts: list[str] = []
        socket.getaddrinfo = self._refuse
        socket.socket.connect = self._refuse  # type: ignore[method-assign]
        socket.socket.connect_ex = self._refuse  # type: ignore[method-assign]

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        target = next((a for a in args if not hasattr(a, "fileno")), "?")
        self.attempts.append(repr(target)[:80])
        raise OSError("network refused by bench/peer.py (the peer must run offline)")


class _Warnings:
    """Collects the peer's WARNING-and-above log records (its failures are logged, not raised)."""

    def __init__(self) -> None:
        import logging

        self.messages: list[str] = []
        handler = logging.Handler(level=logging.WARNING)
        handler.emit = lambda record: self.messages.append(f"{record.name}: {record.getMessage()}"[:300])  # type: ignore[method-assign]
        logging.getLogger("headroom").addHandler(handler)

    def take(self) -> list[str]:
        taken, self.messages = self.messages, []
        return taken


def peer_worker(conn: Connection, workdir: str) -> None:
    """Worker loop: answer each (name, bytes) with the peer's outcome as a dict."""
    _peer_environment(Path(workdir))
    network = _NetworkRefused()
    warnings = _Warnings()
    import headroom
    from headroom import compress

    compress([{"role": "tool", "content": "warm-up " * 400}], **PEER_OPTIONS)
    conn.send({"ready": getattr(headroom, "__version__", "?"), "warnings": warnings.take()})
    while True:
        request = conn.recv()
        if request is None:
            return
        _name, data = request
        started = time.perf_counter()
        answer = _peer_compress(compress, data)
        answer["seconds"] = time.perf_counter() - started
        answer["warnings"] = warnings.take()
        answer["network"] = list(network.attempts)
        conn.send(answer)


def _peer_compress(compress: Any, data: bytes) -> dict[str, Any]:
    try:
        text, exact = data.decode("utf-8"), True
    except UnicodeDecodeError:
        text, exact = data.decode("utf-8", errors="replace"), False
    try:
        result = compress([{"role": "tool", "content": text}], **PEER_OPTIONS)
    except Exception as error:  # noqa: BLE001 (any failure of the peer is a row, not a stop)
        return {"visible": None, "recovery": "-", "note": f"error: {type(error).__name__}: {error}"}
    visible = result.messages[0].get("content", text)
    if not isinstance(visible, str):
        return {"visible": None, "recovery": "-", "note": f"non-text output {type(visible).__name__}"}
    route = ",".join(result.transforms_applied) or "none"
    recovery = peer_recovery(data, text, visible) if exact else "no (input not UTF-8)"
    return {"visible": visible, "recovery": recovery, "note": route}


def peer_recovery(data: bytes, text: str, visible: str) -> str:
    """What the peer's own retrieval gives back for its output, judged against the input bytes.

    `yes` when its output is the input, or when one of its markers retrieves exactly the
    input (`headroom_retrieve(hash)` returns the store entry's `original_content`);
    `no (N refs, partial)` when its markers retrieve only parts (e.g. dropped JSON rows)
    and neither that nor resolving every marker in place rebuilds the input; `no` when
    the output changed and names nothing to retrieve.
    """
    if visible == text:
        return "yes (unchanged)"
    from headroom.cache.compression_store import get_compression_store
    from headroom.ccr.marker_resolution import resolve_markers_in_text

    store = get_compression_store()
    hashes = list(dict.fromkeys(PEER_MARKER_RE.findall(visible)))
    for hash_key in hashes:
        entry = store.retrieve(hash_key)
        if entry is not None and str(entry.original_content).encode("utf-8", errors="surrogatepass") == data:
            return "yes"
    if hashes and resolve_markers_in_text(visible, store=store) == text:
        return "yes (markers resolved in place)"
    return f"no ({len(hashes)} refs, partial)" if hashes else "no"


class Peer:
    """The worker process, restarted after a timeout."""

    def __init__(self, workdir: Path, timeout: float) -> None:
        self.workdir, self.timeout = workdir, timeout
        self.version = "?"
        self.notes: dict[str, int] = {}  # warning or event -> times seen
        self.network: list[str] = []
        self._process: Any = None
        self._conn: Connection | None = None

    def _start(self) -> Connection:
        context = multiprocessing.get_context("spawn")
        here, there = context.Pipe()
        self._process = context.Process(target=peer_worker, args=(there, str(self.workdir)), daemon=True)
        self._process.start()
        there.close()
        if not here.poll(PEER_READY_SECONDS):
            self._stop()
            raise RuntimeError(f"the peer worker did not start within {PEER_READY_SECONDS:.0f} s")
        hello = here.recv()
        self.version = hello["ready"]
        self._note(hello["warnings"])
        return here

    def submit(self, name: str, data: bytes) -> None:
        if self._conn is None:
            self._conn = self._start()
        self._conn.send((name, data))
        self._sent = time.perf_counter()

    def result(self) -> Outcome:
        assert self._conn is not None
        remaining = self.timeout - (time.perf_counter() - self._sent)
        try:
            answered = self._conn.poll(max(remaining, 0.0))
            answer = self._conn.recv() if answered else None
        except (EOFError, OSError):
            self._stop()
            self._note(["worker died (restarted for the next capture)"])
            return Outcome(None, "-", "crashed")
        if answer is None:
            self._stop()
            self._note([f"timeout after {self.timeout:g} s (worker restarted)"])
            return Outcome(None, "-", "timeout")
        self._note(answer["warnings"])
        self.network = answer["network"]
        return Outcome(answer["visible"], answer["recovery"], answer["note"], answer["seconds"])

    def _note(self, messages: list[str]) -> None:
        for message in messages:
            self.notes[message] = self.notes.get(message, 0) + 1

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join()
        self._process, self._conn = None, None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.send(None)
            self._process.join(timeout=10)
        self._stop()


# ---------------------------------------------------------------------------------------
# Rows and the table


@dataclass(frozen=True)
class Side:
    """One tool's measured result on one capture."""

    visible_tokens: int | None
    kept: int
    recovery: str
    note: str
    seconds: float

    def saved_pct(self, raw: int) -> float | None:
        if self.visible_tokens is None:
            return None
        return 100.0 * (1 - self.visible_tokens / raw) if raw else 0.0


@dataclass(frozen=True)
class Row:
    name: str
    kind: str
    raw_tokens: int
    signals: int
    tokenlab: Side
    peer: Side
    absent_from_input: int  # signals that are not in the input itself (tokenlab's notation)
    peer_kept_ignoring_space: int

    @property
    def behind(self) -> bool:
        """tokenlab saves less than the peer on a capture where the peer keeps every signal."""
        ours, theirs = self.tokenlab.visible_tokens, self.peer.visible_tokens
        if ours is None or theirs is None or self.peer.kept < self.signals:
            return False
        return ours > theirs


def measure(capture: Capture, peer: Peer) -> Row:
    data = capture.path.read_bytes()
    peer.submit(capture.name, data)  # the peer works in its process while tokenlab runs here
    ours, kind = run_tokenlab(data, str(capture.path))
    theirs = peer.result()
    text = data.decode("utf-8", errors="replace")
    absent = len(capture.signals) - signals_kept(capture.signals, text)
    spaced = kept_ignoring_space(capture.signals, theirs.visible) if theirs.visible is not None else 0
    sides = _side(ours, capture), _side(theirs, capture)
    counted = (count_tokens(text), sides[0].visible_tokens)
    if ours.own_counts is not None and ours.own_counts != counted:  # they should never differ
        print(f"warning: {capture.name}: tokenlab counts {ours.own_counts}, bench {counted}", file=sys.stderr)
    return Row(capture.name, kind, counted[0], len(capture.signals), *sides, absent, spaced)


def _side(outcome: Outcome, capture: Capture) -> Side:
    if outcome.visible is None:
        return Side(None, 0, outcome.recovery, outcome.note, outcome.seconds)
    kept = signals_kept(capture.signals, outcome.visible)
    return Side(count_tokens(outcome.visible), kept, outcome.recovery, outcome.note, outcome.seconds)


COLUMNS = (
    "capture",
    "type",
    "raw tokens",
    "tokenlab saved %",
    "tokenlab signals",
    "tokenlab recovery",
    "peer saved %",
    "peer signals",
    "peer recovery",
    "behind",
    "peer route",
)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _signals_cell(side: Side, total: int) -> str:
    return "-" if side.visible_tokens is None else f"{side.kept}/{total}"


def _row_cells(row: Row) -> list[str]:
    ours, theirs = row.tokenlab, row.peer
    return [
        f"`{row.name}`",
        row.kind,
        f"{row.raw_tokens:,}",
        _pct(ours.saved_pct(row.raw_tokens)) if ours.visible_tokens is not None else ours.note,
        _signals_cell(ours, row.signals),
        ours.recovery,
        _pct(theirs.saved_pct(row.raw_tokens)) if theirs.visible_tokens is not None else theirs.note,
        _signals_cell(theirs, row.signals),
        theirs.recovery,
        "**BEHIND**" if row.behind else "",
        f"`{theirs.note}`" if theirs.visible_tokens is not None else "",
    ]


def _totals_cells(rows: list[Row]) -> list[str]:
    """Totals over the captures both tools finished (saved % of the summed tokens)."""
    done = [r for r in rows if r.tokenlab.visible_tokens is not None and r.peer.visible_tokens is not None]
    raw = sum(r.raw_tokens for r in done)

    def saved(side: str) -> str:
        visible = sum(getattr(r, side).visible_tokens or 0 for r in done)
        return _pct(100.0 * (1 - visible / raw) if raw else 0.0)

    def kept(side: str) -> str:
        return f"{sum(getattr(r, side).kept for r in done)}/{sum(r.signals for r in done)}"

    def recovered(side: str) -> str:
        return f"{sum(getattr(r, side).recovery.startswith('yes') for r in done)}/{len(done)} yes"

    skipped = len(rows) - len(done)
    label = f"**total** ({len(done)} captures" + (f", {skipped} left out: no result" if skipped else "") + ")"
    behind = sum(r.behind for r in done)
    return [
        label,
        "",
        f"{raw:,}",
        saved("tokenlab"),
        kept("tokenlab"),
        recovered("tokenlab"),
        saved("peer"),
        kept("peer"),
        recovered("peer"),
        f"{behind} rows" if behind else "",
        "",
    ]


def markdown_table(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    lines += ["| " + " | ".join(_row_cells(row)) + " |" for row in rows]
    lines.append("| " + " | ".join(_totals_cells(rows)) + " |")
    return "\n".join(lines)


def _tokenlab_version() -> str:
    """tokenlab's version, and the commit of the tree it ran from (read-only git calls)."""
    from importlib.metadata import version

    sha = _git("rev-parse", "--short", "HEAD")
    dirty = _git("status", "--porcelain", "--untracked-files=no", "--", "tokenlab")
    where = f" (tree at {sha}{', with uncommitted changes to tokenlab/' if dirty else ''})" if sha else ""
    return f"tokenlab {version('tokenlab')}{where}"


def _git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip()


def report(rows: list[Row], peer: Peer, seconds: dict[str, float]) -> str:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    head = [
        "# Peer bench: tokenlab against headroom-ai",
        "",
        (
            f"Run {now} on {machine}. {_tokenlab_version()}; peer **headroom-ai {peer.version}** through "
            '`headroom.compress([{"role": "tool", "content": text}], kompress_model="disabled")`, '
            "offline (see `bench/README.md`). Tokens are o200k_base; saved % = 1 − visible/raw. "
            "Signals: lines of `<capture>.signals` still visible. Recovery: the exact input bytes back, "
            "tokenlab by `restore`, the peer by retrieving the hashes its markers name. "
            "**BEHIND**: tokenlab saves less than the peer on a capture where the peer keeps every signal."
        ),
        "",
        f"Time (sum over captures): tokenlab {seconds['tokenlab']:.1f} s, peer {seconds['peer']:.1f} s.",
        "",
        markdown_table(rows),
    ]
    return "\n".join(head + _signal_notes(rows) + _peer_notes(peer)) + "\n"


def _signal_notes(rows: list[Row]) -> list[str]:
    """Footnotes that explain signal counts a plain substring check makes look odd."""
    lines = []
    for row in rows:
        if row.absent_from_input:
            lines.append(
                f"- `{row.name}`: {row.absent_from_input} of {row.signals} signals are not substrings of "
                "the input itself."
            )
        if row.peer.visible_tokens is not None and row.peer_kept_ignoring_space > row.peer.kept:
            lines.append(
                f"- `{row.name}`: the peer keeps {row.peer_kept_ignoring_space}/{row.signals} signals "
                "if whitespace is ignored."
            )
    return ["", "Signal notes:", *lines] if lines else []


def _peer_notes(peer: Peer) -> list[str]:
    lines = ["", "Peer events:" if peer.notes or peer.network else "Peer events: none."]
    lines += [f"- {message} ({times}×)" for message, times in sorted(peer.notes.items())]
    if peer.network:
        lines.append(f"- network attempts refused: {len(peer.network)} (e.g. {peer.network[0]})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=Path("fixtures"))
    parser.add_argument("--out", type=Path, default=Path("bench/PEER.md"))
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per capture for the peer")
    args = parser.parse_args(argv)
    captures = find_captures(args.fixtures)
    if not captures:
        print(f"no captures under {args.fixtures}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tokenlab-peer-") as workdir:
        fill_tiktoken_cache(Path(workdir) / "tiktoken")
        peer = Peer(Path(workdir), args.timeout)
        try:
            rows = [_progress(measure(capture, peer)) for capture in captures]
        finally:
            peer.close()
    seconds = {side: sum(getattr(r, side).seconds for r in rows) for side in ("tokenlab", "peer")}
    text = report(rows, peer, seconds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


def _progress(row: Row) -> Row:
    print(
        f"  {row.name}: tokenlab {row.tokenlab.seconds:.2f} s, peer {row.peer.seconds:.2f} s", file=sys.stderr
    )
    return row


if __name__ == "__main__":
    sys.exit(main())
