"""Bounded, thread-safe memos keyed by type-strict keys: graphs already seen, and node problems.

A graph rebuilt every step is equal, type-strictly, to the one built the step before.
:func:`graph_entry` hands back one `GraphEntry` per distinct graph key: the canonical
key object (so two equal graphs built apart compare by identity, ``is``, not leaf by
leaf), its hash, and the result of the graph's checks once run (so a rebuilt graph is
not checked again). Both memos forget their oldest entries past a bound; forgetting
costs only speed, never correctness (an equal key that is not the canonical one is
compared in full, and checked again).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

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


class GraphEntry:
    """What is kept per distinct graph key: the canonical key, its hash, the checks' violations."""

    __slots__ = ("key", "hash", "violations")

    def __init__(self, key: Hashable) -> None:
        self.key = key
        self.hash = hash(key)
        self.violations: tuple[Any, ...] | None = None


graphs: BoundedMemo[Hashable, GraphEntry] = BoundedMemo(1024)
"""One `GraphEntry` per distinct graph key."""

node_problems: BoundedMemo[Hashable, tuple[Any, ...]] = BoundedMemo(16384)
"""The bad-key leaves of a node, by the node's key."""


def graph_entry(key: Hashable) -> GraphEntry | None:
    """The entry of the graph whose type-strict key is ``key``, or None when it does not hash."""
    try:
        found = graphs.get(key)
    except TypeError:
        return None
    if found is None:
        found = graphs.setdefault(key, GraphEntry(key))
    return found


def clear() -> None:
    """Forget every memo (tests, and programs that want memory back)."""
    graphs.clear()
    node_problems.clear()


__all__ = ["BoundedMemo", "GraphEntry", "clear", "graph_entry", "graphs", "node_problems"]
