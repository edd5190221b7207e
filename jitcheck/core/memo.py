"""Bounded, thread-safe memos keyed by type-strict keys: check results and interned keys.

A graph rebuilt every step is equal, type-strictly, to the one built the step before.
Its checks give the same answer, so :data:`checked` keeps the answer by the graph's
key; :func:`intern` hands back one canonical object per distinct key, so two equal
keys built apart compare by identity (``is``) rather than leaf by leaf. Both forget
their oldest entries past a bound; forgetting costs only speed, never correctness
(an equal key that is not the canonical one is compared in full).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")

class BoundedMemo(Generic[K, T]):
    """A mapping that keeps at most ``maxsize`` entries, dropping the oldest quarter past it.

    Reads take no lock (a dictionary read is atomic); writes and evictions take one.
    """

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._data: dict[K, T] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> T | None:
        """The value kept for ``key``, or None."""
        return self._data.get(key)

    def setdefault(self, key: K, value: T) -> T:
        """The value kept for ``key``, keeping ``value`` first when there is none."""
        with self._lock:
            kept = self._data.setdefault(key, value)
            if len(self._data) > self.maxsize:
                for old in list(itertools.islice(self._data, max(1, self.maxsize // 4))):
                    del self._data[old]
            return kept

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


_interned: BoundedMemo[Hashable, Hashable] = BoundedMemo(16384)

checked: BoundedMemo[Hashable, tuple[object, ...]] = BoundedMemo(1024)
"""Every violation a graph's checks found, by the graph's key (a graph rebuilt equal is not checked again)."""

node_problems: BoundedMemo[Hashable, tuple[object, ...]] = BoundedMemo(16384)
"""The bad-key leaves of a node, by the node's key."""


def intern(key: K) -> K:
    """The canonical object equal to ``key`` (``key`` itself the first time). ``key`` must hash."""
    found = _interned.get(key)
    if found is not None:
        return found  # type: ignore[return-value]
    return _interned.setdefault(key, key)  # type: ignore[return-value]


def clear() -> None:
    """Forget every memo (tests, and programs that want memory back)."""
    _interned.clear()
    checked.clear()
    node_problems.clear()


__all__ = ["BoundedMemo", "checked", "clear", "intern", "node_problems"]
