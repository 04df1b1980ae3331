"""A bounded table from hashes to the first number recorded under each, in two flat arrays.

`repeats.py` looks hunk bodies up by hash: a 1 GB diff has about a million bodies and
three million slice hashes. As a `dict` of int objects each entry took about 100 bytes and
the tables grew with the input; here a slot takes 12 bytes (an 8-byte key, a 4-byte
number), the arrays double as they fill, and the table stops taking keys at a fixed
count, so what a diff's planner holds to find repeats is bounded, whatever its size.
"""

from __future__ import annotations

from array import array

# `hash()` never returns -1 (CPython maps it to -2), so -1 marks an empty slot.
_EMPTY = -1
_FIRST_SLOTS = 1 << 10


class FirstByKey:
    """Each key's first recorded number, for up to `max_keys` keys (open addressing,
    linear probing: the keys are `hash()` values, already well mixed)."""

    __slots__ = ("_count", "_keys", "_mask", "_max_keys", "_numbers")

    def __init__(self, max_keys: int) -> None:
        self._max_keys = max_keys
        self._count = 0
        self._keys = array("q", [_EMPTY]) * _FIRST_SLOTS
        self._numbers = array("i", [0]) * _FIRST_SLOTS
        self._mask = _FIRST_SLOTS - 1

    def __len__(self) -> int:
        return self._count

    def get(self, key: int) -> int | None:
        slot = self._slot(key)
        return self._numbers[slot] if self._keys[slot] == key else None

    def add(self, key: int, number: int) -> int | None:
        """The number recorded under `key` before, if any; else records `number` under it
        (while the table has room) and returns None."""
        slot = self._slot(key)
        keys = self._keys
        if keys[slot] == key:
            return self._numbers[slot]
        if self._count < self._max_keys:
            keys[slot] = key
            self._numbers[slot] = number
            self._count += 1
            if 2 * self._count > len(keys):  # at most half full: probes stay short
                self._grow()
        return None

    def _slot(self, key: int) -> int:
        """The slot holding `key`, else the empty slot where it would go."""
        keys, mask = self._keys, self._mask
        slot = key & mask
        while (found := keys[slot]) != key and found != _EMPTY:
            slot = (slot + 1) & mask
        return slot

    def _grow(self) -> None:
        old_keys, old_numbers = self._keys, self._numbers
        size = 2 * len(old_keys)
        self._keys = keys = array("q", [_EMPTY]) * size
        self._numbers = numbers = array("i", [0]) * size
        self._mask = mask = size - 1
        for key, number in zip(old_keys, old_numbers):
            if key == _EMPTY:
                continue
            slot = key & mask
            while keys[slot] != _EMPTY:
                slot = (slot + 1) & mask
            keys[slot] = key
            numbers[slot] = number
