"""The OPTIMIZE stage's writing of the visible text (see `pipeline.py`): each omission stored
behind its marker on I/O threads, the text between omissions masked (marker look-alikes
escaped, secrets behind refs), and the footer naming the whole original when the visible
text alone cannot rebuild the input. The text is written to `packet.visible_text` as it
is built, part by part, so a large output is never held whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tokenlab import markers
from tokenlab.counting.runs import InputSlices, Runs
from tokenlab.mapped import RawInput, let_go
from tokenlab.optimizers import Excerpt, Omission, Part
from tokenlab.optimizers import whole as whole_input
from tokenlab.packet import ContextPacket, StoredRef
from tokenlab.redact import CUT_LOOKBEHIND, can_cut_after, redact
from tokenlab.restore import unmasked
from tokenlab.run_settings import RunSettings
from tokenlab.spooled_text import SpooledText

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor


def render_parts(
    packet: ContextPacket, run: RunSettings, parts: Iterator[Part], omits: bool, mapped: bool
) -> None:
    """Store the omissions behind markers, mask the rest, and add the footer if needed,
    writing the visible text to `packet.visible_text` as it is built."""
    original = Omission(whole_input(packet.raw), "original input, byte for byte")
    # Storing (hashing, writing, fsync) and reloading refs runs without the GIL on two I/O
    # threads while this thread masks, so the omissions need not wait for the original.
    with _IoThreads() as io:
        stored_early = io.submit(_store_and_reload, packet, run, original) if omits else None
        shown = packet.visible_text
        _write_visible(packet, run, parts, mapped, io)
        if _needs_footer(packet, omits):
            stored = _settled(packet, stored_early) if stored_early else _store(packet, run, original)
            packet.original_ref = stored
            if len(shown) and not shown.endswith_newline():
                shown.write(b"\n")
            shown.write(markers.footer(len(packet.raw), stored.id, folded=omits).encode())


class _IoThreads:
    """Two I/O threads, started at the first job: `concurrent.futures` (which loads
    `logging`) is not imported by an analysis that stores nothing, an empty output's."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None

    def submit(self, function: Callable[..., Stored], *args: object) -> Future[Stored]:
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=2)
        return self._pool.submit(function, *args)

    def __enter__(self) -> _IoThreads:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)


def counted_whole(omission: Omission | StoredRef) -> bool:
    """Whether an omission is counted as a text of its own rather than mapped onto the input
    by its `source`: input ranges (`InputSlices`) are counted from the raw count's index
    without being joined, which a large input's mapped copy would need."""
    return isinstance(omission.content, InputSlices) or not omission.source


def _needs_footer(packet: ContextPacket, omits: bool) -> bool:
    """Whether the visible text needs the footer to rebuild the input: not when it is the
    input, or the input with only secrets masked (`restore.unmasked` puts them back)."""
    if _is_the_input(packet.visible_text, packet.raw):
        return bool(packet.refs)
    if omits or not packet.secrets_masked:
        return True
    secrets = {ref.id: ref.data for ref in packet.refs}
    shown = unmasked(packet.visible_bytes, lambda ref_id: secrets.get(ref_id, b""))
    return not _is_the_input(SpooledText(shown), packet.raw)


def _is_the_input(text: SpooledText, raw: RawInput) -> bool:
    """Whether the text is the input's bytes, for a mapped input too (whose pages are given back after)."""
    if len(text) != len(raw):
        return False
    same, at = True, 0
    with memoryview(raw) as view:
        for block in text.blocks():
            if view[at : at + len(block)] != block:
                same = False
                break
            at += len(block)
    let_go(raw, 0, len(raw))
    return same


def _write_visible(
    packet: ContextPacket, run: RunSettings, parts: Iterator[Part], mapped: bool, io: _IoThreads
) -> None:
    """Write the parts to the visible text: omissions stored on `io` behind markers, the rest
    masked. A part that masking leaves as it is stays its own bytes, not a copy.

    Pieces wait for their markers until about `_PENDING_BYTES` of them are pending, so
    storing overlaps masking; refs keep the order of their markers.
    """
    pending: list[bytes | Future[Stored]] = []
    pending_bytes = 0
    refs: list[StoredRef | Future[Stored]] = []
    unchanged: dict[int, list[str | Excerpt]] = {}  # first piece -> its group, still input bytes
    for group in _between_omissions(parts):
        if isinstance(group, Omission):
            if counted_whole(group):  # counted on the tokenizer thread while this thread masks
                run.counter.prefetch([group.content])
            stored = io.submit(_store_and_reload, packet, run, group)
            pending.append(stored)
            refs.append(stored)
            continue
        text = "".join(part.text if isinstance(part, Excerpt) else part for part in group)
        masked = _masked(packet, run, text, refs)
        if masked != text:
            pieces = [utf8(masked)]
        else:
            del text, masked  # a large excerpt's text is twice its bytes
            if mapped:
                unchanged[len(pending)] = group
            # Each part's own bytes (joined here, a large excerpt would be held twice);
            # a group of empty parts stays one empty piece.
            pieces = [piece for piece in map(_utf8_of, group) if piece] or [b""]
        pending += pieces
        pending_bytes += sum(map(len, pieces))
        if pending_bytes >= _PENDING_BYTES:
            _write_pending(packet, pending, unchanged)
            pending, pending_bytes, unchanged = [], 0, {}
            run.counter.take_counted()  # the raw count runs beside: its blocks join the index
    _write_pending(packet, pending, unchanged)
    packet.refs += [ref if isinstance(ref, StoredRef) else _settled(packet, ref) for ref in refs]


# Visible text held before it is written out (its markers wait for their refs' ids).
_PENDING_BYTES = 4 << 20


def _write_pending(
    packet: ContextPacket, pending: list[bytes | Future[Stored]], unchanged: dict[int, list[str | Excerpt]]
) -> None:
    """Write pieces to the visible text, each ref's marker once it is stored, and the runs
    of input the unchanged groups among them show."""
    shown = packet.visible_text
    for at, piece in enumerate(pending):
        if at in unchanged:
            _add_excerpt_runs(packet.visible_runs, unchanged[at], len(shown))
        shown.write(piece if isinstance(piece, bytes) else _settled(packet, piece).marker.encode())


def _between_omissions(parts: Iterator[Part]) -> Iterator[Omission | list[str | Excerpt]]:
    """Each omission, and the text between omissions as lists of parts, each masked as one
    text: a long text is cut after a part once it holds `_MASKED_BYTES`, where masking the
    two sides apart finds what masking them joined does (`redact.can_cut_after`)."""
    text: list[str | Excerpt] = []
    size = 0
    for part in parts:
        if isinstance(part, Omission):
            if text:
                yield text
                text, size = [], 0
            yield part
            continue
        text.append(part)
        size += len(part.data) if isinstance(part, Excerpt) else len(part)
        if size >= _MASKED_BYTES and can_cut_after(_tail(text)):
            yield text
            text, size = [], 0
    if text:
        yield text


# Text masked at once, at least, before it may be cut (`_between_omissions`).
_MASKED_BYTES = 1 << 20


def _tail(parts: list[str | Excerpt]) -> str:
    """The last `CUT_LOOKBEHIND` characters, at least, of the parts joined."""
    tail: list[str] = []
    size = 0
    for part in reversed(parts):
        piece = part if isinstance(part, str) else part.data[-4 * CUT_LOOKBEHIND :].decode("utf-8", "replace")
        tail.append(piece[-CUT_LOOKBEHIND:])
        size += len(tail[-1])
        if size >= CUT_LOOKBEHIND:
            break
    return "".join(reversed(tail))


def utf8(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogatepass")


def _utf8_of(part: str | Excerpt) -> bytes:
    return part.data if isinstance(part, Excerpt) else utf8(part)


def _add_excerpt_runs(runs: Runs, parts: list[str | Excerpt], offset: int) -> None:
    """Add the excerpts' runs to `runs`, by offset in the visible text's UTF-8 bytes."""
    for part in parts:
        if isinstance(part, Excerpt):
            runs.extend(part.runs, offset)
        offset += len(_utf8_of(part))


def _masked(
    packet: ContextPacket, run: RunSettings, text: str, refs: list[StoredRef | Future[Stored]]
) -> str:
    """Visible text with marker look-alikes escaped and secrets stored behind refs."""
    text = markers.escape_literal_markers(text)
    if not run.redact_secrets:
        return text
    return "".join(
        piece if isinstance(piece, str) else _store_secret(packet, run, piece, refs) for piece in redact(text)
    )


def _store(packet: ContextPacket, run: RunSettings, omission: Omission) -> StoredRef:
    if isinstance(omission.content, InputSlices):  # written from the input, never joined
        stored, failure = _store_and_reload(packet, run, omission)
        packet.reload_failures[stored.id] = failure
        return stored
    ref_id = run.store.put(omission.data, **_ref_meta(packet, omission))
    return StoredRef(ref_id, omission.reason, omission.content, omission.source)


# A stored ref, and why it failed to reload byte-exactly (None: it reloaded).
Stored = tuple[StoredRef, str | None]


def _store_and_reload(packet: ContextPacket, run: RunSettings, omission: Omission) -> Stored:
    """Store an omission and check at once that it reloads (RECOVERY reports the result)."""
    content = omission.content
    if isinstance(content, InputSlices):  # written from the input, never joined
        ref_id, failure = run.store.put_stream_and_reload(content.blocks, **_ref_meta(packet, omission))
    else:
        ref_id, failure = run.store.put_and_reload(content, **_ref_meta(packet, omission))
    return StoredRef(ref_id, omission.reason, content, omission.source), failure


def _ref_meta(packet: ContextPacket, omission: Omission) -> dict[str, str]:
    assert packet.content_type is not None
    return {"source": packet.source, "content_type": packet.content_type.value, "reason": omission.reason}


def _settled(packet: ContextPacket, job: Future[Stored]) -> StoredRef:
    stored, failure = job.result()
    packet.reload_failures[stored.id] = failure
    return stored

def _store_secret(
    packet: ContextPacket, run: RunSettings, secret: Omission, refs: list[StoredRef | Future[Stored]]
) -> str:
    packet.secrets_masked += 1
    stored = _store(packet, run, secret)
    refs.append(stored)
    return f"[{secret.reason} {stored.marker}]"

