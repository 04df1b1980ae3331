"""Full restore: rebuild the original bytes from visible text plus the store."""

from __future__ import annotations

from tokenlab import markers
from tokenlab.errors import RefNotFoundError, StoreCorruptionError
from tokenlab.store import Store


def restore(visible: bytes, store: Store) -> bytes:
    """The exact original input behind `visible`.

    Visible text that tokenlab changed ends with a footer naming the ref of the whole
    original; text it passed through unchanged has no footer and is its own original.
    """
    text = visible.decode("utf-8", errors="replace")
    found = markers.parse_footer(text)
    if found is None:
        if markers.find_markers(text):
            raise StoreCorruptionError(
                "visible text has refs but no '[original … bytes: #ref:…]' footer line; "
                "pass the whole visible text"
            )
        return visible
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
