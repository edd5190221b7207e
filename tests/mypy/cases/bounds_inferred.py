"""Label and Place bounds in inferred type arguments: constructor calls, reported where the type enters."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jitcheck import CallableGraph, GraphWithValues, JitGraph, NestingGraph, NodeDefinition, OrderedMap
from tests.mypy.cases.keys_lib import EqOnly, FrozenName, MutableName


def double(x: jax.Array) -> jax.Array:
    return x * 2


# Clean: str places and labels.
node = NodeDefinition(double, ("x",), ("y",))
nesting = NestingGraph(OrderedMap({"double": node}))
graph = JitGraph(nesting)
callable_graph = CallableGraph(nesting)
frozen_node = NodeDefinition(double, (FrozenName("x"),), (FrozenName("y"),))
valued = GraphWithValues(graph, OrderedMap({"x": jnp.ones(3)}))

# A bad place enters at the node; the graphs built from it are not blamed again.
bad_node = NodeDefinition(double, (MutableName("x"),), ())  # mypy-expect: jitcheck-place # mypy-says: JC302 ( # mypy-says: "MutableName" is not a valid Place of "NodeDefinition"
bad_nesting = NestingGraph(OrderedMap({"a": bad_node}))
bad_graph = JitGraph(bad_nesting)

# A bad label enters at the nesting graph (from the dict's keys).
eq_nesting = NestingGraph(OrderedMap({EqOnly((1,)): node}))  # mypy-expect: jitcheck-label # mypy-says: JC301 ( # mypy-says: "EqOnly" is not a valid Label of "NestingGraph"
eq_graph = JitGraph(eq_nesting)
inline = JitGraph(NestingGraph(OrderedMap({MutableName("a"): node})))  # mypy-expect: jitcheck-label # mypy-says: not a valid Label of "NestingGraph"

# Mypy's own bound check catches lists; the plugin adds what to use instead.
list_node = NodeDefinition(double, ([1],), ())  # mypy-expect: type-var, jitcheck-place # mypy-says: a tuple instead of a list

# Arrays as places.
array_node = NodeDefinition(double, (jnp.ones(3),), ())  # mypy-expect: jitcheck-place # mypy-says: is an array

# The values of a GraphWithValues are keyed by places, which are judged as places.
bad_values = GraphWithValues(graph, OrderedMap({MutableName("x"): jnp.ones(3)}))  # mypy-expect: jitcheck-place # mypy-says: not a valid Place of "GraphWithValues"


def annotated() -> None:
    # The annotation is judged; the call, inferred from it, says the same on the same line.
    written: NestingGraph[MutableName, str] = NestingGraph(OrderedMap({MutableName("a"): node}))  # mypy-expect: jitcheck-label
    del written


def through_any(value: Any) -> None:
    anything = NodeDefinition(double, (value,), ())
    del anything

# Mixed elements: mypy joins them (to `object` here) and the join hides the bad one.
mixed_places = NodeDefinition(double, ("x", MutableName("w")), ("y",))  # mypy-expect: jitcheck-place # mypy-says: JC302 ( # mypy-says: "MutableName" is not a valid Place of "NodeDefinition"
mixed_arrays = NodeDefinition(double, ("x", jnp.ones(3)), ("y",))  # mypy-expect: jitcheck-place # mypy-says: JC302 ( # mypy-says: "jax.Array" is not a valid Place of "NodeDefinition": it is an array
mixed_labels = NestingGraph(OrderedMap({"a": node, EqOnly((1,)): node}))  # mypy-expect: jitcheck-label # mypy-says: JC301 ( # mypy-says: "EqOnly" is not a valid Label of "NestingGraph"
mixed_outputs = NestingGraph(OrderedMap({"a": node}), outputs=("y", MutableName("z")))  # mypy-expect: misc, jitcheck-place
mixed_values = GraphWithValues(graph, OrderedMap([("x", jnp.ones(3)), (EqOnly((2,)), jnp.ones(3))]))  # mypy-expect: jitcheck-place


# A variable of places: mypy joins its item type away (NodeDefinition[object]); the argument's type is judged.
def lost_argument(loose_places: tuple[MutableName, ...], good_places: tuple[str, ...], listed: list[MutableName]) -> None:
    NodeDefinition(double, loose_places, ("y",))  # mypy-expect: jitcheck-place # mypy-says: "MutableName" is not a valid Place of "NodeDefinition": it is not frozen
    NodeDefinition(double, good_places, ("y",))
    NodeDefinition(double, ("x",), listed)  # mypy-expect: jitcheck-place, arg-type

# The caret points at the offending key inside the call, not at the call.
caret = NestingGraph(OrderedMap({"ok": node, MutableName("k"): node}))  # mypy-expect: jitcheck-label # mypy-caret: MutableName("k")
caret_place = NodeDefinition(double, ("x", MutableName("p")), ("y",))  # mypy-expect: jitcheck-place # mypy-caret: MutableName("p")
