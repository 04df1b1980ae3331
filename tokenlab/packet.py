"""The ContextPacket: the one mutable object the pipeline stages read and write."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from tokenlab.counting.runs import InputSlices, Runs
from tokenlab.counting.tokens import estimate
from tokenlab.mapped import RawInput
from tokenlab.optimizers import ContentType
from tokenlab.spooled_text import SpooledText

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import Any


class Status(str, Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    SKIP = "SKIP"


@dataclass(frozen=True)
class TraceEntry:
    stage: str
    detail: str


@dataclass(frozen=True)
class StoredRef:
    """A ref written by the Optimize stage: its id and the exact bytes it must reload to."""

    id: str
    reason: str
    content: bytes | InputSlices  # the bytes, or input ranges holding them (`Omission.content`)
    source: Sequence[tuple[int, int]] = ()  # input ranges whose bytes, joined, are `data`

    @property
    def data(self) -> bytes:
        """The exact bytes (joined, when held as input ranges)."""
        return self.content if isinstance(self.content, bytes) else bytes(self.content)

    @property
    def marker(self) -> str:
        return f"#ref:{self.id}"


@dataclass(frozen=True)
class Measurement:
    bytes: int
    tokens: int

    @property
    def est_tokens(self) -> int:
        """The cheap estimate shown beside the exact count: bytes / 4."""
        return estimate(self.bytes)


@dataclass
class ContextPacket:
    source: str
    raw: RawInput = b""  # a large input is mapped from a file (`mapped.py`)
    content_type: ContentType | None = None
    classify_reason: str = ""
    # The visible text as UTF-8 (lone surrogates passed through), as it was written: a large
    # input's is large, so it goes to a file once it is (`spooled_text.py`), and the CLI
    # copies it out a block at a time. `visible_bytes` and `visible` give it whole, for
    # callers that need it at once (small texts, JSON answers, tests).
    visible_text: SpooledText = field(default_factory=SpooledText)
    # (offset in the visible text's UTF-8 bytes, offset in the input, length) of input
    # bytes shown unchanged, when the optimizer mapped them: counted from the raw count.
    visible_runs: Runs = field(default_factory=Runs)
    refs: list[StoredRef] = field(default_factory=list)
    original_ref: StoredRef | None = None
    # Refs reloaded and compared right after they were written: id -> failure, or None.
    reload_failures: dict[str, str | None] = field(default_factory=dict)
    raw_measure: Measurement | None = None
    visible_measure: Measurement | None = None
    marker_tokens: int = 0
    referenced_tokens: int = 0
    secrets_masked: int = 0
    signals: tuple[str, ...] = ()  # expected strings given by the caller
    automatic_signals: tuple[str, ...] = ()  # failures and summaries the optimizer's rules found
    signal_status: Status = Status.SKIP
    missing_signals: tuple[str, ...] = ()
    recovery_status: Status = Status.SKIP
    recovery_failures: tuple[str, ...] = ()
    trace: list[TraceEntry] = field(default_factory=list)

    @property
    def visible_bytes(self) -> bytes:
        """The whole visible text, as UTF-8 (read at each call: keep it only while it is needed)."""
        return self.visible_text.getvalue()

    @visible_bytes.setter
    def visible_bytes(self, data: bytes) -> None:
        self.visible_text.close()
        self.visible_text = SpooledText(data)

    @property
    def visible(self) -> str:
        """The visible text (decoded at each call: keep it only while it is needed)."""
        return self.visible_bytes.decode("utf-8", errors="surrogatepass")

    @visible.setter
    def visible(self, text: str) -> None:
        self.visible_bytes = text.encode("utf-8", errors="surrogatepass")

    def record(self, stage: str, detail: str) -> None:
        self.trace.append(TraceEntry(stage, detail))

    @property
    def saved_pct(self) -> float:
        if not self.raw_measure or not self.visible_measure or self.raw_measure.tokens == 0:
            return 0.0
        return 100.0 * (1 - self.visible_measure.tokens / self.raw_measure.tokens)

    @property
    def all_refs(self) -> list[StoredRef]:
        """Every marker written, in order, the footer's last (an id may repeat)."""
        return self.refs + ([self.original_ref] if self.original_ref else [])

    @property
    def unique_refs(self) -> list[StoredRef]:
        """Each distinct ref once: equal bytes share one id in the store."""
        first: dict[str, StoredRef] = {}
        for ref in self.all_refs:
            first.setdefault(ref.id, ref)
        return list(first.values())

    def as_dict(self) -> dict[str, Any]:
        """The stable `--json` shape documented in the README."""
        raw = self.raw_measure or Measurement(len(self.raw), 0)
        shown = self.visible_measure or Measurement(0, 0)
        return {
            "source": self.source,
            "type": self.content_type.value if self.content_type else None,
            "raw": {"bytes": raw.bytes, "tokens": raw.tokens, "est_tokens": raw.est_tokens},
            "visible": {"text": self.visible, "bytes": shown.bytes, "tokens": shown.tokens},
            "marker_tokens": self.marker_tokens,
            "referenced_tokens": self.referenced_tokens,
            "saved_pct": round(self.saved_pct, 2),
            "refs": [
                {"id": ref.id, "reason": ref.reason, "bytes": len(ref.content)} for ref in self.unique_refs
            ],
            "secrets_masked": self.secrets_masked,
            "signal": {
                "status": self.signal_status.value,
                "missing": list(self.missing_signals),
                "expected": list(self.signals),
                "automatic": list(self.automatic_signals),
            },
            "recovery": {
                "status": self.recovery_status.value,
                "failures": list(self.recovery_failures),
            },
            "trace": [{"stage": entry.stage, "detail": entry.detail} for entry in self.trace],
        }
