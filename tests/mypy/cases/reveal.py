"""The plugin judges types, it never changes them: reveal_type stays precise (the one exception,
a function decorated with partial(jax.pmap, static_broadcasted_argnums=...), is in jit_sites.py)."""

from __future__ import annotations

import jax

import jitcheck
from jitcheck import CallableGraph, GraphWithValues, JitGraph, NestingGraph, NodeDefinition, OrderedMap
from jitcheck.core import graphs
from tests.mypy.cases.keys_lib import FrozenName, MutableName


def double(x: jax.Array) -> jax.Array:
    return x * 2


node = NodeDefinition(double, ("x",), ("y",))
reveal_type(node)  # mypy-says: Revealed type is "jitcheck.core.graphs.NodeDefinition[str]"
nesting = NestingGraph(OrderedMap({"a": node}))
reveal_type(nesting)  # mypy-says: Revealed type is "jitcheck.core.graphs.NestingGraph[str, str]"
graph = JitGraph(nesting)
reveal_type(graph)  # mypy-says: Revealed type is "jitcheck.core.graphs.JitGraph[str, str]"
reveal_type(CallableGraph(nesting))  # mypy-says: Revealed type is "jitcheck.core.graphs.CallableGraph[str, str]"
reveal_type(graphs.JitGraph(nesting))  # mypy-says: Revealed type is "jitcheck.core.graphs.JitGraph[str, str]"
reveal_type(jitcheck.JitGraph(nesting))  # mypy-says: Revealed type is "jitcheck.core.graphs.JitGraph[str, str]"
frozen = NestingGraph(OrderedMap({FrozenName("a"): NodeDefinition(double, (FrozenName("x"),), (FrozenName("y"),))}))
reveal_type(frozen)  # mypy-says: Revealed type is "jitcheck.core.graphs.NestingGraph[tests.mypy.cases.keys_lib.FrozenName, tests.mypy.cases.keys_lib.FrozenName]"
valued = GraphWithValues(graph, OrderedMap({"x": 1.0}))
reveal_type(valued)  # mypy-says: Revealed type is "jitcheck.core.traced.GraphWithValues[jitcheck.core.graphs.JitGraph[str, str], str]"
reveal_type(graph.jit_call)  # mypy-says: def (values: typing.Mapping[str, Any]) -> jitcheck.core.frozen.OrderedMap[str, Any]

# Even where the plugin reports, the type is the one mypy inferred.
bad = NodeDefinition(double, (MutableName("x"),), ())  # mypy-expect: jitcheck-place
reveal_type(bad)  # mypy-says: Revealed type is "jitcheck.core.graphs.NodeDefinition[tests.mypy.cases.keys_lib.MutableName]"
written: JitGraph[MutableName, str]  # mypy-expect: jitcheck-label
reveal_type(written)  # mypy-says: Revealed type is "jitcheck.core.graphs.JitGraph[tests.mypy.cases.keys_lib.MutableName, str]"
