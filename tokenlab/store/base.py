"""The store interface: what the pipeline, the commands and the servers use, whatever the backend.

The contract every backend keeps (and `tests/test_store_contract.py` checks on each):

- **Ids.** A ref id is `ctx_` + the first 6 hex digits of the sha256 of the stored bytes;
  when those digits already name *different* bytes, the id takes one more digit, and so
  on. The same bytes always get the same id in a given store; writers racing on the same
  bytes, or on colliding prefixes, agree without a lost update. Changing the scheme
  changes every id, so each backend versions its layout.
- **Never replaced.** Once an id names some bytes, it names them until `gc` removes it.
- **Verified reads.** Every read re-hashes the bytes; a mismatch raises
  `StoreCorruptionError` naming the ref. A ref is readable only once complete: a writer
  killed midway leaves nothing readable.
- **Streaming maintenance.** `stats`, `verify`, `gc` and `copy` walk a store without
  holding it in memory.

`root` is the local folder for this process's local state (the run spool, the savings
ledger, the warm worker's socket, caches): the store folder itself for the folder store.
`name` is how messages name the store, never with a password; `spec` re-opens the same
store in this process (it may hold a password: never print it).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tokenlab.errors import InputError, StoreCorruptionError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import Self

ID_PREFIX = "ctx_"
MIN_ID_DIGITS = 6
DEFAULT_LOCATION = Path("var") / "context"
_ID_RE = re.compile(r"(?:#ref:)?ctx_([0-9a-f]{6,64})")


@dataclass(frozen=True)
class RefRecord:
    id: str
    sha256: str
    source: str
    content_type: str
    reason: str
    length: int
    created: float
    data: bytes

    @property
    def marker(self) -> str:
        return f"#ref:{self.id}"


@dataclass(frozen=True)
class RefInfo:
    """A ref's metadata without its bytes, as maintenance and `copy` walk them."""

    id: str
    sha256: str
    source: str
    content_type: str
    reason: str
    length: int
    created: float
    last_use: float


@dataclass(frozen=True)
class StoreStats:
    refs: int
    bytes: int
    oldest_use: float | None
    newest_use: float | None


@dataclass
class VerifyReport:
    checked: int = 0
    corrupt: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)
    incomplete_writes: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.corrupt and not self.orphaned


def parse_ref_id(text: str) -> str:
    """Accept `ctx_…` or `#ref:ctx_…`; return the hex part."""
    match = _ID_RE.fullmatch(text.strip())
    if not match:
        raise InputError(f"not a ref id: {text.strip()!r} (expected ctx_<hex> or #ref:ctx_<hex>)")
    return match.group(1)


def mismatch(hex_id: str) -> StoreCorruptionError:
    return StoreCorruptionError(
        f"ref {ID_PREFIX}{hex_id}: stored bytes do not match their sha256 (corrupt or truncated)"
    )


class Store(ABC):
    """A content-addressed ref store. `resolve.open_store(value)` opens the backend a
    `--store` value names; `FolderStore(path)` is the folder store."""

    root: Path

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def name(self) -> str:
        return str(self.root)

    @property
    def spec(self) -> str:
        return str(self.root.absolute())

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Give back connections; the folder store holds none."""

    # The pipeline's interface.
    @abstractmethod
    def put(self, data: bytes, *, source: str, content_type: str, reason: str) -> str:
        """Store `data` (idempotent) and return its ref id, e.g. `ctx_31154f`."""

    @abstractmethod
    def put_and_reload(
        self, data: bytes, *, source: str, content_type: str, reason: str
    ) -> tuple[str, str | None]:
        """`put`, then reload the ref and compare it with `data` byte for byte.
        Returns the ref id and why it does not reload as exactly `data` (None if it does)."""

    def put_stream_and_reload(
        self,
        blocks: Callable[[], Iterable[bytes | memoryview]],
        *,
        source: str,
        content_type: str,
        reason: str,
    ) -> tuple[str, str | None]:
        """`put_and_reload` of the bytes `blocks()` yields, joined. A backend that writes
        block by block never joins them (`blocks` may be called more than once)."""
        data = b"".join(blocks())
        return self.put_and_reload(data, source=source, content_type=content_type, reason=reason)

    @abstractmethod
    def load(self, ref_id: str) -> RefRecord:
        """A ref's exact bytes, verified against their hash."""

    @abstractmethod
    def holds(self, ref_id: str, data: bytes) -> bool:
        """Whether the ref reloads as exactly `data` (verified as `load` verifies)."""

    @abstractmethod
    def check(self, ref_id: str) -> None:
        """Verify a ref as `load` does, streaming."""

    # Maintenance and moving refs: backends implement these; in-memory stand-ins need not.
    def init(self) -> str:
        """Create what the store needs (folder, schema) if missing; one line saying what is there."""
        raise NotImplementedError

    def stats(self) -> StoreStats:
        raise NotImplementedError

    def verify(self) -> VerifyReport:
        raise NotImplementedError

    def gc(self, older_than_days: float, dry_run: bool) -> list[str]:
        raise NotImplementedError

    def refs(self, ids: list[str] | None = None) -> Iterator[RefInfo]:
        """Every ref's metadata (or those of `ids` that exist), streaming."""
        raise NotImplementedError

    def read_blocks(self, ref_id: str) -> tuple[RefInfo, Iterator[bytes]]:
        """A ref's metadata and its bytes block by block, unverified: the caller hashes."""
        raise NotImplementedError

    def put_blocks(self, info: RefInfo, blocks: Iterator[bytes]) -> bool:
        """Store a copied ref under exactly `info.id`, verifying `info.sha256` before it
        becomes visible. True if written, False if already held; corruption if the id
        names other bytes here or the blocks do not hash to `info.sha256`."""
        raise NotImplementedError
