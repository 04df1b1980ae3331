"""Field names and record arrays: which keys decide, which are noise, which items stand out.

The JSON optimizer keeps decision fields visible and folds noise; this module owns those
word lists (as config) and the census of an array of similar objects that picks out the
anomalous items worth showing: a failing status, a non-empty error, a false `ok`, or a
number far from what its siblings hold (median ± k·MAD, ignored when too many items would
qualify, since then the value is not an anomaly but a spread).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from tokenlab.patterns import compile_on_use

_DECISION_KEYS = (
    "id uuid guid key name title status state phase error errors err message msg code "
    "error_code error_message status_code exit_code return_code returncode severity level "
    "version license license_expression type kind reason result outcome conclusion "
    "description ok success passed failed file path line filename file_name file_path "
    "filepath location rule rule_id"
)
# Counts and outcomes of a record, by how their names end (`errorCount`, `warning_count`,
# `tests_failed`, `total`): the numbers a person checks first, whatever the tool.
_DECISION_KEY_ENDINGS = r"(?:.*_)?(?:count|total|failed|failures|errors|warnings|status|severity)"
_NOISE_KEYS = (
    r"(?:padding|noise|filler|junk)(?:_.*)?"
    r"|(?:.*_)?(?:telemetry|traces?|tracing|spans|debug|metrics|diagnostics|profiling"
    r"|timings?|instrumentation|analytics|tracking)(?:_.*)?"
)
_STATUS_KEYS = (
    "status state result outcome conclusion level severity health phase status_code "
    "http_status log_level"
)
_ERROR_KEYS = (
    "error errors err exception failure fault error_message error_msg error_code traceback"
)
_OK_KEYS = "ok success succeeded successful passed healthy"
_FAILURE_VALUES = (
    r"(?:error|errored|errors|fail|failed|failing|failure|fatal|critical|crit|crash|crashed"
    r"|crashing|crashloopbackoff|panic|timeout|timed[ _-]?out|abort|aborted|rejected|denied"
    r"|unhealthy|exception|emerg|emergency|alert|broken|invalid|down|dead|killed|oomkilled"
    r"|unavailable)(?:[ _:.\-].*)?"
)


@dataclass(frozen=True)
class RecordsConfig:
    decision_keys: frozenset[str] = frozenset(_DECISION_KEYS.split())
    decision_key_pattern: str = _DECISION_KEY_ENDINGS  # full match on the normalised key
    noise_key_pattern: str = _NOISE_KEYS  # full match on the normalised key
    status_keys: frozenset[str] = frozenset(_STATUS_KEYS.split())
    error_keys: frozenset[str] = frozenset(_ERROR_KEYS.split())
    ok_keys: frozenset[str] = frozenset(_OK_KEYS.split())
    failure_value_pattern: str = _FAILURE_VALUES  # full match, case-insensitive
    server_error_status: int = 500  # numeric statuses from here up are failures
    outlier_min_items: int = 8
    outlier_mad_factor: float = 8.0
    outlier_max_fraction: float = 0.02


class KeyKind(Enum):
    DECISION = "decision"
    NOISE = "noise"
    OTHER = "other"


class KeyRole(Enum):
    STATUS = "status"
    ERROR = "error"
    OK = "ok"


_CAMEL_BOUNDARY = compile_on_use(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = compile_on_use(r"[\s\-.]+")


_NEEDS_NORMALISING = compile_on_use(r"[A-Z\s\-.]")


def normalize_key(key: str) -> str:
    """`errorMessage`, `error-message` and `_error_message` all become `error_message`."""
    if _NEEDS_NORMALISING.search(key) is None:
        return key.lstrip("_")
    return _SEPARATORS.sub("_", _CAMEL_BOUNDARY.sub("_", key)).lower().lstrip("_")


class KeyClassifier:
    """Classifies keys once each; one instance lives for one optimize call."""

    def __init__(self, config: RecordsConfig) -> None:
        self.config = config
        self._noise = re.compile(config.noise_key_pattern)
        self._decision = re.compile(config.decision_key_pattern)
        self._failure = re.compile(config.failure_value_pattern, re.IGNORECASE)
        self._kinds: dict[str, KeyKind] = {}
        self._roles: dict[str, KeyRole | None] = {}

    def kind(self, key: str) -> KeyKind:
        kind = self._kinds.get(key)
        if kind is None:
            name = normalize_key(key)
            if name in self.config.decision_keys or self._decision.fullmatch(name):
                kind = KeyKind.DECISION
            elif self._noise.fullmatch(name):
                kind = KeyKind.NOISE
            else:
                kind = KeyKind.OTHER
            self._kinds[key] = kind
        return kind

    def role(self, key: str) -> KeyRole | None:
        if key in self._roles:
            return self._roles[key]
        name = normalize_key(key)
        role = None
        if name in self.config.error_keys:
            role = KeyRole.ERROR
        elif name in self.config.status_keys:
            role = KeyRole.STATUS
        elif name in self.config.ok_keys:
            role = KeyRole.OK
        self._roles[key] = role
        return role

    def is_failure(self, role: KeyRole, value: Any) -> bool:
        if role is KeyRole.ERROR:
            return bool(value) and value is not True
        if role is KeyRole.OK:
            return value is False
        if isinstance(value, str):
            return len(value) <= 64 and self._failure.fullmatch(value.strip()) is not None
        return type(value) is int and value >= self.config.server_error_status


class Census:
    """Looks at each item of an array once and remembers only what anomaly-finding needs."""

    def __init__(self, keys: KeyClassifier) -> None:
        self.keys = keys
        self.count = 0
        self.objects = 0
        self._failed: list[int] = []
        self._numbers: dict[str, list[tuple[int, float]]] = {}
        self._ranked: list[int] | None = None
        self._sorted: list[int] = []

    def add(self, value: Any) -> None:
        index = self.count
        self.count += 1
        if type(value) is not dict:
            return
        self.objects += 1
        if self._has_failure(value, nested=True):
            self._failed.append(index)
        numbers = self._numbers
        for key, item in value.items():
            if type(item) is int or type(item) is float:
                numbers.setdefault(key, []).append((index, item))

    def is_records(self) -> bool:
        return self.objects >= 2 and self.objects >= 0.8 * self.count

    def anomalies(self) -> list[int]:
        """Anomalous item indices, most telling first: failures, then the widest outliers."""
        if self._ranked is None:
            failed = set(self._failed)
            outliers = [i for i in self._outliers() if i not in failed]
            self._ranked = self._failed + outliers
            self._sorted = sorted(self._ranked)
        return self._ranked

    def failures_are_usual(self) -> bool:
        """Do most items fail? Then a failure tells one item from another no more than an id."""
        return len(self._failed) * 2 > self.count

    def outliers(self) -> list[int]:
        """The anomalies that are not failures: items with a number far from the others'."""
        failed = set(self._failed)
        return [index for index in self.anomalies() if index not in failed]

    def anomalies_between(self, first: int, stop: int) -> int:
        self.anomalies()
        return bisect.bisect_left(self._sorted, stop) - bisect.bisect_left(self._sorted, first)

    def _has_failure(self, record: dict[str, Any], nested: bool) -> bool:
        keys = self.keys
        for key, value in record.items():
            role = keys.role(key)
            if role is not None and keys.is_failure(role, value):
                return True
            if (
                nested
                and type(value) is dict
                and keys.kind(key) is not KeyKind.NOISE
                and self._has_failure(value, nested=False)
            ):
                return True
        return False

    def _outliers(self) -> list[int]:
        config = self.keys.config
        scored: dict[int, float] = {}
        allowed = max(1, int(config.outlier_max_fraction * self.count))
        for key, pairs in self._numbers.items():
            if len(pairs) < config.outlier_min_items or self.keys.kind(key) is KeyKind.NOISE:
                continue
            found = _far_from_median(pairs, config.outlier_mad_factor)
            if 0 < len(found) <= allowed:
                for index, score in found:
                    scored[index] = max(score, scored.get(index, 0.0))
        return sorted(scored, key=lambda index: (-scored[index], index))


def _far_from_median(pairs: list[tuple[int, float]], factor: float) -> list[tuple[int, float]]:
    values = sorted(value for _, value in pairs)
    median = values[len(values) // 2]
    spread = sorted(abs(value - median) for value in values)[len(values) // 2]
    if spread == 0:
        return [(index, float("inf")) for index, value in pairs if value != median]
    limit = factor * spread
    return [
        (index, abs(value - median) / spread)
        for index, value in pairs
        if abs(value - median) > limit
    ]
