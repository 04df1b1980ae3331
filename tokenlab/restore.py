"""Full restore: rebuild the original bytes from visible text plus the store."""

from __future__ import annotations

from collections.abc import Callable

from tokenlab import markers
from tokenlab.errors import RefNotFoundError, StoreCorruptionError
from tokenlab.store import Store


def restore(visible: bytes, store: Store) -> bytes:
    """The exact original input behind `visible`.

    Visible text that tokenlab changed ends with a footer naming the ref of the whole
    original; text it passed through unchanged has no footer and is its own original, and
    so is text that only had secrets masked, once each secret is put back.
    """
    text = visible.decode("utf-8", errors="replace")
    found = markers.parse_footer(text)
    if found is None:
        if not markers.find_markers(text):
            return visible
        rebuilt = unmasked(visible, lambda ref_id: store.load(ref_id).data)
        if rebuilt is None:
            raise StoreCorruptionError(
                "visible text has refs but no '[original … bytes: #ref:…]' footer line; "
                "pass the whole visible text"
            )
        return rebuilt
    length, ref_id = found
    try:
        record = store.load(ref_id)
    except RefNotFoundError:
        raise StoreCorruptionError(
            f"ref {ref_id} holding the original is missing from store {store.name}"
        ) from None
    if record.length != length:
        raise StoreCorruptionError(
            f"ref {ref_id}: holds {record.length} bytes, the footer says {length}"
        )
    return record.data


def unmasked(visible: bytes, secret: Callable[[str], bytes]) -> bytes | None:
    """`visible` with each masked secret put back (`secret(ref_id)` gives its bytes); None
    if it holds a marker that is not a masked secret."""
    pieces: list[bytes] = []
    cursor = 0
    for match in markers.SECRET_MARKER_RE.finditer(visible):
        pieces += [visible[cursor : match.start()], secret(match.group(1).decode())]
        cursor = match.end()
    pieces.append(visible[cursor:])
    if any(markers.find_markers(piece.decode("utf-8", errors="replace")) for piece in pieces[::2]):
        return None
    return b"".join(pieces)
