"""User subclasses of the graph classes: their own type parameters are mapped onto Label and Place."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

import jax

from jitcheck import JitGraph, NestingGraph, NodeDefinition, OrderedMap
from jitcheck.core.names import N, V
from tests.mypy.cases.keys_lib import EqOnly, MutableName

M = TypeVar("M", bound=Hashable)


class MyGraph(JitGraph[N, V], Generic[N, V]):
    """Same parameters as JitGraph."""


class StrPlaces(JitGraph[M, str], Generic[M]):
    """One parameter of its own, the Label."""


class MyNode(NodeDefinition[V], Generic[V]):
    """A node with an extra field."""

    note: str = ""


class Deeper(MyGraph[M, str], Generic[M]):
    """Two levels down."""


def double(x: jax.Array) -> jax.Array:
    return x * 2


ok_sub: MyGraph[str, str]
ok_str_places: StrPlaces[int]
bad_sub_label: MyGraph[MutableName, str]  # mypy-expect: jitcheck-label # mypy-says: not a valid Label of "MyGraph"
bad_sub_place: MyGraph[str, EqOnly]  # mypy-expect: jitcheck-place # mypy-says: not a valid Place of "MyGraph"
bad_own_param: StrPlaces[MutableName]  # mypy-expect: jitcheck-label # mypy-says: JC301 ( # mypy-says: "MutableName" is not a valid Label of "StrPlaces"
bad_deeper: Deeper[EqOnly]  # mypy-expect: jitcheck-label # mypy-says: not a valid Label of "Deeper"
bad_my_node: MyNode[MutableName]  # mypy-expect: jitcheck-place


class FixedBad(StrPlaces[MutableName]):  # mypy-expect: jitcheck-label
    """A subclass fixing a bad Label."""


node = MyNode(double, ("x",), ("y",), note="doubles")
inferred_bad_node = MyNode(double, (MutableName("x"),), ())  # mypy-expect: jitcheck-place # mypy-says: not a valid Place of "MyNode"
graph = StrPlaces(NestingGraph(OrderedMap({EqOnly((1,)): node})))  # mypy-expect: jitcheck-label # mypy-says: not a valid Label of "NestingGraph"
reveal_type(graph)  # mypy-says: Revealed type is "tests.mypy.cases.subclasses.StrPlaces[tests.mypy.cases.keys_lib.EqOnly]"
reveal_type(node)  # mypy-says: Revealed type is "tests.mypy.cases.subclasses.MyNode[str]"


class Worker:
    def step(self, x: jax.Array) -> jax.Array:
        return x

    def build(self) -> MyNode[str]:
        return MyNode(self.step, ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC101 ( # mypy-says: Bound method "self.step"
