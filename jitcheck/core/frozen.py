"""Immutable, value-compared, hashable records (`Frozen`) and mappings (`OrderedMap`).

Both are what a jit cache key is made of: equal when built again from equal parts,
with equal hashes. `Frozen` records also run their class hierarchy's checks at
construction (see :mod:`jitcheck.core.checking`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, TypeVar, dataclass_transform, overload

import jax.tree_util

from jitcheck.core import checking
from jitcheck.core.keys import compares_strictly, keyed_by, keys_equal, ordered_key, strict_key

K = TypeVar("K")
T = TypeVar("T")
Vt = TypeVar("Vt")


@dataclass_transform(frozen_default=True, eq_default=True)
class Frozen:
    """A base for immutable records compared and hashed by their fields, type-strictly.

    Every subclass is made a frozen dataclass. After ``__init__`` the checks that
    each class of its hierarchy declares (``checks``, see
    :func:`jitcheck.core.checking.per_level`) run, and all their violations are
    raised as one :class:`~jitcheck.core.violations.Refused` error, unless the
    object is built with :func:`~jitcheck.core.checking.unchecked`.

    Two records are equal when they are of the same class and their fields have
    equal :func:`~jitcheck.core.keys.strict_key` (``2`` and ``2.0`` differ, as in
    ``jax.jit``); comparing never raises, even with arrays inside. The key is
    built once and kept, and so is the hash: a record used as a static argument
    of ``jax.jit`` is hashed and compared on every call.
    """

    __slots__ = ()

    checks: ClassVar[tuple[Any, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(frozen=True, eq=False, repr="__repr__" not in cls.__dict__)(cls)

    def __post_init__(self) -> None:
        checking.run_checks(self)

    def jitcheck_key(self) -> Any:
        """The record's type-strict key, built once and kept: its class and its fields' keys."""
        key = self.__dict__.get("_jitcheck_key")
        if key is None:
            key = self.__dict__["_jitcheck_key"] = self.strict_key()
        return key

    def strict_key(self) -> Any:
        """Build the key :meth:`jitcheck_key` keeps (a subclass may build it faster)."""
        return (type(self), *[strict_key(value) for value in compared_fields(self)])

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self):
            return NotImplemented
        mine = self.__dict__.get("_jitcheck_key")
        if mine is not None and mine is other.__dict__.get("_jitcheck_key"):
            return True  # one canonical key (a rebuilt graph against the one in jax's cache)
        mine, theirs = self.jitcheck_key(), other.jitcheck_key()
        return mine is theirs or keys_equal(mine, theirs)

    def __getstate__(self) -> dict[str, Any]:
        """The fields alone: a copy or a pickle leaves the kept key, hash and check results
        behind, and builds its own from its fields (equal, so it is the same cache key)."""
        names = _ALL_FIELDS.get(type(self))
        if names is None:
            names = _ALL_FIELDS[type(self)] = tuple(f.name for f in dataclasses.fields(self))  # type: ignore[arg-type]
        kept = self.__dict__
        return {name: kept[name] for name in names if name in kept}

    def __hash__(self) -> int:
        memo: dict[str, Any] = self.__dict__
        cached: int | None = memo.get("_jitcheck_hash")
        if cached is None:
            key = self.jitcheck_key()
            cached = memo.get("_jitcheck_hash")  # an interned key comes with its hash
            if cached is None:
                cached = memo["_jitcheck_hash"] = hash(key)
        return cached


compares_strictly(Frozen)

_FIELDS: dict[type, tuple[str, ...]] = {}
_ALL_FIELDS: dict[type, tuple[str, ...]] = {}


def compared_fields(record: Frozen) -> tuple[Any, ...]:
    """The values of the fields ``record`` is compared by, in declaration order."""
    cls = type(record)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(record) if f.compare)  # type: ignore[arg-type]
    return tuple(getattr(record, name) for name in names)


class OrderedMap(Mapping[K, Vt]):
    """An immutable, hashable, insertion-ordered mapping.

    Two maps are equal when they hold equal items *in the same order* (order is part
    of a graph's meaning: it breaks ties in the order nodes run). An ``OrderedMap``
    is a pytree (its keys are static), so it can carry arrays through ``jax.jit``;
    it hashes only when its values do.
    """

    __slots__ = ("_items", "_index", "_hash")

    _items: tuple[tuple[K, Vt], ...]
    _index: dict[K, Vt] | None
    """Key to value, built on first use (a map jax hands back from a call may never be indexed)."""
    _hash: int | None

    @overload
    def __init__(self) -> None: ...
    @overload
    def __init__(self, items: Mapping[K, Vt]) -> None: ...
    @overload
    def __init__(self, items: Iterable[tuple[K, Vt]]) -> None: ...

    def __init__(self, items: Mapping[K, Vt] | Iterable[tuple[K, Vt]] = ()) -> None:
        pairs = tuple(items.items()) if isinstance(items, Mapping) else tuple(items)
        try:
            index = dict(pairs)
        except TypeError:
            refused = _unhashable_key(pairs)
            if refused is None:
                raise
            raise refused from None
        if len(index) != len(pairs):
            seen: set[Any] = set()
            dupes = [k for k, _ in pairs if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
            raise ValueError(f"OrderedMap given the key(s) {dupes!r} more than once")
        object.__setattr__(self, "_items", pairs)
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise dataclasses.FrozenInstanceError(f"OrderedMap is immutable; cannot set {name!r}")

    def _indexed(self) -> dict[K, Vt]:
        index = self._index
        if index is None:
            index = dict(self._items)
            object.__setattr__(self, "_index", index)
        return index

    def __getitem__(self, key: K) -> Vt:
        index = self._index
        if index is None:
            index = self._indexed()
        return index[key]

    def __iter__(self) -> Iterator[K]:
        return (k for k, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        try:
            return key in self._indexed()
        except TypeError:
            return False

    def __eq__(self, other: object) -> bool:
        """Equal items in the same order, compared type-strictly (``{"a": 2}`` is not
        ``{"a": 2.0}``); never raises, even when the values are arrays."""
        if self is other:
            return True
        if not isinstance(other, OrderedMap):
            return NotImplemented
        if len(self._items) != len(other._items):
            return False
        return keys_equal(strict_key(self), strict_key(other))

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash((OrderedMap, self._items)))
        assert self._hash is not None
        return self._hash

    def __repr__(self) -> str:
        inner = ", ".join(f"{k!r}: {v!r}" for k, v in self._items)
        return f"OrderedMap({{{inner}}})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (OrderedMap, (self._items,))

    def set(self, key: K, value: Vt) -> OrderedMap[K, Vt]:
        """A copy with ``key`` set to ``value`` (kept in place if present, else appended)."""
        if key in self._indexed():
            return OrderedMap((k, value if k == key else v) for k, v in self._items)
        return OrderedMap((*self._items, (key, value)))

    def map(self, fn: Any) -> OrderedMap[K, Any]:
        """A copy with ``fn`` applied to every value."""
        return OrderedMap((k, fn(v)) for k, v in self._items)


def _unhashable_key(pairs: tuple[Any, ...]) -> Exception | None:
    """The error for the first key of ``pairs`` that does not hash: rule, key and fix."""
    from jitcheck import rules
    from jitcheck.core.violations import LabelRefused, violation_from

    for position, pair in enumerate(pairs):
        if not isinstance(pair, tuple) or len(pair) != 2:
            return None
        key = pair[0]
        try:
            hash(key)
        except TypeError as error:
            fields = {
                "type": type(key).__qualname__,
                "graph": "OrderedMap",
                "reason": f"{error}; the keys of an OrderedMap (node labels, places) must hash and compare by value",
            }
            found = violation_from(rules.LABEL_BOUND, fields, leaf=f"key {key!r} (item {position})")
            return LabelRefused("OrderedMap", [found])
    return None


def _flatten_with_keys(m: OrderedMap[Any, Any]) -> tuple[list[tuple[Any, Any]], tuple[Any, ...]]:
    return [(jax.tree_util.DictKey(k), v) for k, v in m._items], tuple(k for k, _ in m._items)


def _flatten(m: OrderedMap[Any, Any]) -> tuple[list[Any], tuple[Any, ...]]:
    return [v for _, v in m._items], tuple(k for k, _ in m._items)


def _unflatten(keys: tuple[Any, ...], values: Iterable[Any]) -> OrderedMap[Any, Any]:
    # The keys come from a flattened OrderedMap, so they are distinct: skip the checks.
    # Called by jax for every map a jitted call returns, so kept to the slots' own setters.
    rebuilt: OrderedMap[Any, Any] = _new_map(OrderedMap)
    _set_items(rebuilt, tuple(zip(keys, values)))
    _set_index(rebuilt, None)
    _set_hash(rebuilt, None)
    return rebuilt


_new_map = object.__new__
_set_items: Any = OrderedMap.__dict__["_items"].__set__  # the slots' own setters (no __setattr__ call)
_set_index: Any = OrderedMap.__dict__["_index"].__set__
_set_hash: Any = OrderedMap.__dict__["_hash"].__set__


jax.tree_util.register_pytree_with_keys(OrderedMap, _flatten_with_keys, _unflatten, _flatten)
keyed_by(OrderedMap, ordered_key)


def frozen_map(items: Mapping[K, T] | Iterable[tuple[K, T]] | None) -> OrderedMap[K, T]:
    """``items`` as an ``OrderedMap`` (itself when it already is one)."""
    if isinstance(items, OrderedMap):
        return items
    return OrderedMap(items or ())


__all__ = ["Frozen", "OrderedMap", "compared_fields", "frozen_map"]
