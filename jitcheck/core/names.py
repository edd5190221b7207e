"""`Label` and `Place`: what may name a node, and what may name a value.

Both are part of a graph's jit cache key, so both must hash and compare by value:
``str``, ``int``, enums, tuples of them, frozen dataclasses. The static type is
``Hashable``; the checks of :mod:`jitcheck.core.graphs` (at runtime) and the mypy
plugin (statically) also refuse what ``Hashable`` lets through: non-frozen
dataclasses, classes defining ``__eq__`` alone, arrays.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypeAlias, TypeVar

Label: TypeAlias = Hashable
"""The type of a node's name."""

Place: TypeAlias = Hashable
"""The type of a value's name: the places nodes read and write."""

N = TypeVar("N", bound=Label)
"""A graph's label type."""

V = TypeVar("V", bound=Place)
"""A graph's place type."""

__all__ = ["Label", "N", "Place", "V"]
