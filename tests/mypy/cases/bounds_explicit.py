"""Label and Place bounds in written type arguments: annotations, aliases, bases, casts."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, TypeAlias, TypeVar, cast

import jax
import numpy as np

import jitcheck
from jitcheck import CallableGraph, GraphWithValues, JitGraph, NestingGraph, NodeDefinition, OrderedMap, Traced
from jitcheck.core import graphs
from tests.mypy.cases.keys_lib import (
    Colour,
    EqAndHash,
    EqOnly,
    FrozenHoldingList,
    FrozenHoldingTuple,
    FrozenName,
    HashedMutableName,
    HashNone,
    IdentityName,
    MutableName,
    Plain,
    Record,
    RecordWithEq,
    SubMutableName,
    UnsafeHashName,
)

# Valid labels and places: nothing to report.
ok_str: JitGraph[str, str]
ok_int: NestingGraph[int, tuple[str, int]]
ok_frozen: JitGraph[FrozenName, FrozenName]
ok_identity: CallableGraph[IdentityName, str]
ok_unsafe: JitGraph[UnsafeHashName, str]
ok_hashed: JitGraph[HashedMutableName, str]
ok_eq_and_hash: JitGraph[EqAndHash, str]
ok_plain: JitGraph[Plain, str]
ok_enum: JitGraph[Colour, Colour]
ok_record: JitGraph[Record, Record]
ok_frozen_tuple: NodeDefinition[FrozenHoldingTuple]
ok_any: JitGraph[Any, Hashable]
ok_frozenset: JitGraph[frozenset[str], str]
ok_map: JitGraph[OrderedMap[str, int], str]

# mypy already refuses list, dict and set for a Hashable bound; the plugin says what to use.
bad_list: JitGraph[list[int], str]  # mypy-expect: type-var, jitcheck-label # mypy-says: JC301 ( # mypy-says: "list[int]" is not a valid Label of "JitGraph": it is a list # mypy-says: a tuple instead of a list
bad_dict: NestingGraph[str, dict[str, int]]  # mypy-expect: type-var, jitcheck-place # mypy-says: JC302 ( # mypy-says: "dict[str, int]" is not a valid Place of "NestingGraph"
bad_set: NodeDefinition[set[str]]  # mypy-expect: type-var, jitcheck-place # mypy-says: it is a set

# What mypy lets through.
bad_dataclass: JitGraph[MutableName, str]  # mypy-expect: jitcheck-label # mypy-says: JC301 ( # mypy-says: "MutableName" is not a valid Label of "JitGraph": it is not frozen # mypy-says: declare "MutableName" with "@dataclass(frozen=True)"
bad_sub_dataclass: JitGraph[SubMutableName, str]  # mypy-expect: jitcheck-label # mypy-says: "SubMutableName" is not a valid Label of "JitGraph": it inherits from "MutableName", which is not frozen # mypy-says: declare "MutableName" with "@dataclass(frozen=True)"
bad_eq: NestingGraph[EqOnly, str]  # mypy-expect: jitcheck-label # mypy-says: JC301 ( # mypy-says: "EqOnly" is not a valid Label of "NestingGraph": it defines "__eq__" but not "__hash__" # mypy-says: define "__hash__" on "EqOnly"
bad_hash_none: JitGraph[str, HashNone]  # mypy-expect: type-var, jitcheck-place # mypy-says: JC302 ( # mypy-says: "HashNone" is not a valid Place of "JitGraph": it sets "__hash__" to None
bad_ndarray: NodeDefinition[np.ndarray[Any, np.dtype[np.float64]]]  # mypy-expect: type-var, jitcheck-place # mypy-says: "ndarray[Any, dtype[float64]]" is not a valid Place of "NodeDefinition": it is an array
bad_jax: CallableGraph[jax.Array, str]  # mypy-expect: jitcheck-label # mypy-says: JC301 ( # mypy-says: "jax.Array" is not a valid Label of "CallableGraph": it is an array
bad_tuple_of_arrays: JitGraph[str, tuple[jax.Array, ...]]  # mypy-expect: jitcheck-place # mypy-says: "tuple[Array, ...]" is not a valid Place of "JitGraph": "jax.Array" (an item of the tuple) is an array
bad_tuple_of_list: JitGraph[tuple[str, list[int]], str]  # mypy-expect: jitcheck-label # mypy-says: "list[int]" (an item of the tuple) is a list
bad_frozenset_of_eq: JitGraph[frozenset[EqOnly], str]  # mypy-expect: jitcheck-label # mypy-says: (an item of the frozenset)
bad_frozen_field: JitGraph[FrozenHoldingList, str]  # mypy-expect: jitcheck-label # mypy-says: "list[int]" (field "parts" of "FrozenHoldingList") is a list
bad_record_eq: JitGraph[RecordWithEq, str]  # mypy-expect: jitcheck-label # mypy-says: "RecordWithEq" is not a valid Label
bad_union: JitGraph[str | MutableName, str]  # mypy-expect: jitcheck-label # mypy-says: "str | MutableName" is not a valid Label of "JitGraph": "MutableName" is not frozen
bad_map_value: JitGraph[OrderedMap[str, MutableName], str]  # mypy-expect: jitcheck-label # mypy-says: (a value of the OrderedMap)
bad_both: JitGraph[EqOnly, MutableName]  # mypy-expect: jitcheck-label, jitcheck-place

# Every graph class, imported from jitcheck, jitcheck.core.graphs or through the module.
bad_module_attr: jitcheck.JitGraph[MutableName, str]  # mypy-expect: jitcheck-label
bad_core_module: graphs.NestingGraph[str, MutableName]  # mypy-expect: jitcheck-place
bad_with_values: GraphWithValues[JitGraph[str, str], MutableName]  # mypy-expect: jitcheck-place # mypy-says: not a valid Place of "GraphWithValues"
bad_traced: Traced[EqOnly, str]  # mypy-expect: jitcheck-label # mypy-says: not a valid Label of "Traced"
bad_inner: GraphWithValues[JitGraph[MutableName, str], str]  # mypy-expect: jitcheck-label # mypy-says: not a valid Label of "JitGraph"


# In signatures, aliases, casts and bases.
def takes(graph: JitGraph[EqOnly, str]) -> None:  # mypy-expect: jitcheck-label
    del graph


def gives() -> NodeDefinition[MutableName]:  # mypy-expect: jitcheck-place
    raise NotImplementedError


BadAlias: TypeAlias = JitGraph[MutableName, str]  # mypy-expect: jitcheck-label
uses_alias: BadAlias  # judged where the alias is written, not again here
OldAlias = NestingGraph[str, EqOnly]  # mypy-expect: jitcheck-place


def casts(value: object) -> None:
    graph = cast(JitGraph[MutableName, str], value)  # mypy-expect: jitcheck-label
    del graph


class BadBase(JitGraph[MutableName, str]):  # mypy-expect: jitcheck-label
    pass


# TypeVars: judged by their bound.
T = TypeVar("T", bound=Hashable)
B = TypeVar("B", bound=MutableName)


def generic_ok(graph: JitGraph[T, str]) -> T:
    raise NotImplementedError


def generic_bad(graph: JitGraph[B, str]) -> B:  # mypy-expect: jitcheck-label # mypy-says: "B" is not a valid Label of "JitGraph": "MutableName" (the bound of "B") is not frozen
    raise NotImplementedError


# A bad bound is reported once, where the TypeVar is first used as a Label.
def generic_bad_again(graph: JitGraph[B, str], other: JitGraph[B, int]) -> JitGraph[B, str]:
    return graph
