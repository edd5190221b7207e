"""`BoundedCache`: a thread-safe least-recently-used map, with a lock-free hit.

A hit is one dict lookup and one stamp from a shared clock (both atomic in
CPython), so concurrent callers never wait on each other to find an entry.
Insertions, replacements and evictions take a lock. An entry is replaced in one
assignment, so a reader sees the old entry or the new one, never a gap; only an
eviction (the least recently used entry, when a new key arrives at ``maxsize``)
removes one.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

V = TypeVar("V")


class _Slot(Generic[V]):
    """One entry and the clock reading of its last use."""

    __slots__ = ("value", "used")

    def __init__(self, value: V, used: int) -> None:
        self.value = value
        self.used = used


class BoundedCache(Generic[V]):
    """At most ``maxsize`` entries; the least recently used goes first."""

    __slots__ = ("maxsize", "_slots", "_clock", "_lock")

    def __init__(self, maxsize: int = 128) -> None:
        if not isinstance(maxsize, int) or isinstance(maxsize, bool) or maxsize < 1:
            raise ValueError(f"maxsize must be a positive int, got {maxsize!r}")
        self.maxsize = maxsize
        self._slots: dict[Hashable, _Slot[V]] = {}
        self._clock = itertools.count()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The entry under ``key`` (marking it most recently used), or None."""
        slot = self._slots.get(key)
        if slot is None:
            return None
        slot.used = next(self._clock)
        return slot.value

    def hit_path(self) -> tuple[dict[Hashable, _Slot[V]], itertools.count[int]]:
        """The slot map and clock, for a caller that inlines `get` on its hot path.

        A slot found in the map is marked used with ``slot.used = next(clock)``; the
        map must never be written through this view.
        """
        return self._slots, self._clock

    def peek(self, key: Hashable) -> V | None:
        """The entry under ``key`` without touching its recency, or None."""
        slot = self._slots.get(key)
        return None if slot is None else slot.value

    def put(self, key: Hashable, value: V) -> None:
        """Store ``value`` under ``key``, replacing in place or evicting the least recently used."""
        with self._lock:
            slot = self._slots.get(key)
            if slot is not None:
                slot.value = value
                slot.used = next(self._clock)
                return
            while len(self._slots) >= self.maxsize:
                oldest = min(self._slots.items(), key=lambda item: item[1].used)[0]
                del self._slots[oldest]
            self._slots[key] = _Slot(value, next(self._clock))

    def discard(self, key: Hashable, value: V) -> None:
        """Remove ``key`` if it still holds ``value`` (and not a newer entry)."""
        with self._lock:
            slot = self._slots.get(key)
            if slot is not None and slot.value is value:
                del self._slots[key]

    def clear(self) -> None:
        """Remove every entry."""
        with self._lock:
            self._slots.clear()

    def keys(self) -> list[Hashable]:
        """The keys, least recently used first."""
        with self._lock:
            items = sorted(self._slots.items(), key=lambda item: item[1].used)
        return [key for key, _ in items]

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._slots

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.keys())
