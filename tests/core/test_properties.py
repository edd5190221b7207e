"""Property tests: random DAG-shaped graphs of elementwise bodies.

Traced shapes equal the shapes of actually calling the graph; rebuilding a graph
from the same description gives an equal graph with an equal hash.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jitcheck import GraphWithValues, JitGraph, NestingGraph, NodeDefinition, ValuePartial, Traced


def add(x: jax.Array, y: jax.Array) -> jax.Array:
    return x + y


def mul(x: jax.Array, y: jax.Array) -> jax.Array:
    return x * y


def sin(x: jax.Array) -> jax.Array:
    return jnp.sin(x)


def tanh(x: jax.Array) -> jax.Array:
    return jnp.tanh(x)


def scaled(x: jax.Array, *, factor: float) -> jax.Array:
    return x * factor


def halves(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x / 2, x - x / 2


UNARY = [sin, tanh, "scaled", "halves"]
BINARY = [add, mul]
SHAPES = [(), (3,), (2, 3), (1, 3)]


@st.composite
def graph_descriptions(draw: st.DrawFn) -> tuple[list[tuple[Any, ...]], list[tuple[int, ...]], list[int]]:
    """Inputs' shapes, node specs (kind, input indices, setting) and a declaration order."""
    input_shapes = draw(st.lists(st.sampled_from(SHAPES), min_size=1, max_size=3))
    places = len(input_shapes)
    nodes: list[tuple[Any, ...]] = []
    for _ in range(draw(st.integers(1, 7))):
        if places >= 2 and draw(st.booleans()):
            fn = draw(st.sampled_from(BINARY))
            args = tuple(draw(st.lists(st.integers(0, places - 1), min_size=2, max_size=2)))
            nodes.append((fn, args, None, 1))
            places += 1
        else:
            fn = draw(st.sampled_from(UNARY))
            arg = (draw(st.integers(0, places - 1)),)
            if fn == "halves":
                nodes.append((fn, arg, None, 2))
                places += 2
            else:
                factor = draw(st.sampled_from([0.5, 2.0, 3.0])) if fn == "scaled" else None
                nodes.append((fn, arg, factor, 1))
                places += 1
    order = draw(st.permutations(range(len(nodes))))
    return nodes, input_shapes, list(order)


def build(nodes: list[tuple[Any, ...]], input_shapes: list[tuple[int, ...]], order: list[int]) -> JitGraph[str, str]:
    definitions: dict[str, NodeDefinition[str]] = {}
    produced = len(input_shapes)
    for i, (fn, args, factor, outs) in enumerate(nodes):
        outputs = tuple(f"p{produced + k}" for k in range(outs))
        produced += outs
        inputs = tuple(f"p{a}" for a in args)
        if fn == "scaled":
            body: Any = ValuePartial(scaled, factor=factor)
        elif fn == "halves":
            body = halves
        else:
            body = fn
        definitions[f"n{i}"] = NodeDefinition(body, inputs, outputs)
    # Declared in a shuffled order, split across a nested graph: the run must still work.
    shuffled = [(label, definitions[label]) for label in (f"n{i}" for i in order)]
    half = len(shuffled) // 2
    inner = NestingGraph(dict(shuffled[:half]))
    outer: dict[str, Any] = {"inner": inner} if shuffled[:half] else {}
    outer.update(shuffled[half:])
    return JitGraph(NestingGraph(outer))


@settings(max_examples=30, deadline=None)
@given(graph_descriptions())
def test_traced_shapes_equal_the_shapes_of_calling_the_graph(description: Any) -> None:
    nodes, input_shapes, order = description
    graph = build(nodes, input_shapes, order)
    values = {f"p{i}": jnp.full(shape, 0.5 + i, jnp.float32) for i, shape in enumerate(input_shapes)}
    values = {p: v for p, v in values.items() if p in graph.inputs}
    traced = Traced(GraphWithValues(graph, values))
    computed = graph(values)
    for place, value in computed.items():
        assert traced.shapes[place] == jax.ShapeDtypeStruct(value.shape, value.dtype, weak_type=value.weak_type), place
    assert list(traced.shapes)[len(values):] == list(computed)
    # And the jaxpr computes what calling does.
    outs = jax.core.eval_jaxpr(traced.jaxpr.jaxpr, traced.jaxpr.consts, *values.values())
    for ours, theirs in zip(outs, computed.values()):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


@settings(max_examples=60, deadline=None)
@given(graph_descriptions())
def test_rebuilt_graphs_are_equal_and_hash_equal(description: Any) -> None:
    first = build(*description)
    second = build(*description)
    assert first is not second
    assert first == second
    assert hash(first) == hash(second)
