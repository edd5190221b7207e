"""Edge cases: forward references, recursive aliases, generics, NewType, NamedTuple, Literal, Optional."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from typing import Generic, Literal, NamedTuple, NewType, Optional, TypeAlias, TypeVar

import jax

from jitcheck import JitGraph, NodeDefinition

T = TypeVar("T")

# Used before it is defined: judged once mypy knows the class.
early: JitGraph[Later, str]  # mypy-expect: jitcheck-label # mypy-says: "Later" is not a valid Label


@dataclasses.dataclass
class Later:
    text: str


# A recursive alias ends without recursing forever.
Tree: TypeAlias = tuple["Tree", ...]
tree_labels: JitGraph[Tree, str]


@dataclasses.dataclass(frozen=True)
class Box(Generic[T]):
    item: T


good_box: JitGraph[Box[str], str]
bad_box: JitGraph[Box[list[int]], str]  # mypy-expect: jitcheck-label # mypy-says: "list[int]" (field "item" of "Box") is a list

Names = NewType("Names", list[str])
new_type: JitGraph[Names, str]  # mypy-expect: type-var, jitcheck-label # mypy-says: it is a list


class Pair(NamedTuple):
    left: str
    right: jax.Array


good_literal: JitGraph[Literal["a", "b"], str]
named_tuple: JitGraph[Pair, str]  # mypy-expect: jitcheck-label # mypy-says: "Pair" is not a valid Label of "JitGraph": "jax.Array" (an item of the tuple) is an array
optional_bad: JitGraph[Optional[Later], str]  # mypy-expect: jitcheck-label


class ExplicitHash:
    def __eq__(self, other: object) -> bool:
        return other is self

    __hash__ = object.__hash__


explicit_hash: NodeDefinition[ExplicitHash]


def local_classes() -> None:
    @dataclasses.dataclass
    class Local:
        text: str

    @dataclasses.dataclass(eq=False)
    class LocalIdentity:
        text: str

    bad: JitGraph[Local, str]  # mypy-expect: jitcheck-label
    good: JitGraph[LocalIdentity, Hashable]
    del bad, good
