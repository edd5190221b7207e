"""Traced: one jaxpr for the whole graph and every place's shape, and its refusals by node."""

from __future__ import annotations

from typing import Any

import jax
import jax.extend
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck import CallableGraph, GraphWithValues, JitGraph, NestingGraph, NodeDefinition, Refused, ReturnedUnlike, TraceFailed, Traced, unchecked

from .graph_parts import add, matmul, scale, split, tree_out, two_level


def sds(shape: tuple[int, ...], dtype: Any = jnp.float32) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, dtype)


def test_two_level_graph_traced_shapes_match_eval_shape() -> None:
    graph = two_level()
    values = {"x": jnp.ones((2, 3))}
    traced = Traced(GraphWithValues(graph, values))
    expected = jax.eval_shape(lambda v: graph(v), values)
    assert list(traced.shapes) == ["x", "xs", "p", "q", "out"]
    assert traced.shapes["x"] == sds((2, 3))
    for place in expected:
        assert traced.shapes[place] == expected[place], place


def test_traced_jaxpr_is_one_closed_jaxpr_with_the_inputs_handed_in() -> None:
    traced = Traced(GraphWithValues(two_level(), {"x": sds((4,))}))
    jaxpr = traced.jaxpr
    assert isinstance(jaxpr, jax.extend.core.ClosedJaxpr)
    assert [v.aval.shape for v in jaxpr.jaxpr.invars] == [(4,)]
    assert len(jaxpr.jaxpr.outvars) == 4
    (out,) = jax.core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, jnp.arange(4.0))[-1:]
    np.testing.assert_allclose(out, two_level()({"x": jnp.arange(4.0)})["out"])


def test_shape_dtype_structs_trace_without_data_and_settings_stay_settings() -> None:
    graph = CallableGraph(NestingGraph({"mm": NodeDefinition(matmul, ("x", "w"), ("y",)), "t": NodeDefinition(tree_out, ("y",), ("stats",))}))
    traced = Traced(GraphWithValues(graph, {"x": sds((8, 4)), "w": sds((4, 2), jnp.bfloat16)}))
    assert traced.shapes["y"] == sds((8, 2))
    assert traced.shapes["stats"] == {"sum": sds(()), "double": sds((8, 2))}


def test_non_array_values_reach_bodies_as_they_are() -> None:
    def uses_python(x: jax.Array, n: int) -> jax.Array:
        assert isinstance(n, int)  # not traced
        return jnp.tile(x, n)

    graph = unchecked(CallableGraph, NestingGraph({"tile": NodeDefinition(uses_python, ("x", "n"), ("y",))}))
    traced = Traced(GraphWithValues(graph, {"x": sds((2,)), "n": 3}))
    assert traced.shapes["y"] == sds((6,))
    assert traced.shapes["n"] == 3


def test_body_failing_at_these_shapes_is_trace_failed_naming_the_node() -> None:
    inner = NestingGraph({"project": NodeDefinition(matmul, ("x", "w"), ("y",))})
    graph = JitGraph(NestingGraph({"model": inner}))
    with pytest.raises(TraceFailed) as caught:
        Traced(GraphWithValues(graph, {"x": sds((3, 4)), "w": sds((3, 4))}))
    error = caught.value
    assert error.node == "project"
    assert error.violations[0].graph == ("model",)
    assert "node 'model/project' failed to trace at input shapes {'x': float32[3, 4], 'w': float32[3, 4]}" in str(error)
    assert isinstance(error.__cause__, TypeError)
    assert "dot_general" in str(error.__cause__)


def test_body_returning_a_miscount_is_returned_unlike_naming_the_node() -> None:
    graph = JitGraph(NestingGraph({"one": NodeDefinition(scale, ("x",), ("a", "b"), {"factor": 2.0})}))
    with pytest.raises(ReturnedUnlike) as caught:
        Traced(GraphWithValues(graph, {"x": sds((3,))}))
    assert caught.value.node == "one"
    assert caught.value.codes == ("JC501",)


def test_values_must_name_exactly_the_free_inputs() -> None:
    with pytest.raises(Refused) as caught:
        GraphWithValues(two_level(), {"y": jnp.ones(2)})
    assert caught.value.codes == ("JC404",)
    assert "no value for the free input place(s) ['x']" in str(caught.value)
    assert "['y'], which no node reads" in str(caught.value)


def test_unchecked_traced_traces_lazily_and_raises_on_access() -> None:
    graph = JitGraph(NestingGraph({"project": NodeDefinition(matmul, ("x", "w"), ("y",))}))
    traced = unchecked(Traced, GraphWithValues(graph, {"x": sds((3, 4)), "w": sds((3, 4))}))
    with pytest.raises(TraceFailed):
        traced.shapes


def test_traced_is_the_same_jaxpr_as_make_jaxpr_of_the_composed_function() -> None:
    graph = CallableGraph(NestingGraph({"s": NodeDefinition(split, ("x",), ("a", "b")), "add": NodeDefinition(add, ("a", "b"), ("c",))}, outputs=("c",)))

    def composed(x: jax.Array) -> jax.Array:
        a, b = split(x)
        return add(a, b)

    ours = Traced(GraphWithValues(graph, {"x": sds((5,))})).jaxpr
    theirs = jax.make_jaxpr(composed)(sds((5,)))
    assert str(ours.jaxpr) == str(theirs.jaxpr)
