"""Classes used as labels and places by the other cases: each hashes, or not, for its own reason.

This module itself draws no error: a class is judged only where it is used as a key.
"""

from __future__ import annotations

import dataclasses
import enum

import jitcheck


@dataclasses.dataclass
class MutableName:
    text: str


@dataclasses.dataclass(frozen=True)
class FrozenName:
    text: str


@dataclasses.dataclass(eq=False)
class IdentityName:
    """eq=False: dataclass leaves object's identity hash alone, so it hashes."""

    text: str


@dataclasses.dataclass(unsafe_hash=True)
class UnsafeHashName:
    text: str


@dataclasses.dataclass
class HashedMutableName:
    """A non-frozen dataclass with its own __hash__ keeps it."""

    text: str

    def __hash__(self) -> int:
        return hash(self.text)


class SubMutableName(MutableName):
    """Not a dataclass itself: inherits `__hash__ = None`."""


class EqOnly:
    def __init__(self, dims: tuple[int, ...]) -> None:
        self.dims = dims

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EqOnly) and self.dims == other.dims


class EqAndHash(EqOnly):
    def __hash__(self) -> int:
        return hash(self.dims)


class HashNone:
    __hash__ = None  # type: ignore[assignment]


class Plain:
    """Compares and hashes by identity: hashable (the runtime layer judges identity)."""


class Colour(enum.Enum):
    RED = 1


@dataclasses.dataclass(frozen=True)
class FrozenHoldingList:
    """Frozen, but its hash hashes a list: TypeError at the first hash."""

    parts: list[int]


@dataclasses.dataclass(frozen=True)
class FrozenHoldingTuple:
    parts: tuple[int, ...]


class Record(jitcheck.Frozen):
    """A jitcheck.Frozen record: a frozen dataclass hashed by its fields."""

    name: str


class RecordWithEq(jitcheck.Frozen):
    """Frozen keeps a body's own __eq__ (eq=False), and the body's implicit __hash__ = None stands."""

    name: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RecordWithEq) and other.name == self.name
