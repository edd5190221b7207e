"""Issue 24, item 5: a copied or pickled graph is equal to the original and hits jax's cache."""

from __future__ import annotations

import copy
import enum
import pickle
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck import JitGraph, NestingGraph, NodeDefinition, ValuePartial

TRACES: list[Any] = []


class Kind(enum.Enum):
    A = 1


def shifted(x: jax.Array, *, shift: tuple[int, float], kind: Kind = Kind.A) -> jax.Array:
    TRACES.append(shift)
    return x + shift[0] + shift[1]


def mixed(x: jax.Array, y: jax.Array) -> jax.Array:
    TRACES.append("mixed")
    return x * y


def build() -> JitGraph[Any, Any]:
    return JitGraph(
        NestingGraph(
            {
                ("shift", 1): NodeDefinition(shifted, (("x", 0),), (("h", 1),), {"shift": (1, 2.5), "kind": Kind.A}),
                2: NodeDefinition(ValuePartial(mixed), (("h", 1), ("y", 0)), (3,)),
                "inner": NestingGraph({Kind.A: NodeDefinition(shifted, (3,), ("out",), {"shift": (0, 0.5)})}),
            },
            outputs=("out",),
        )
    )


COPIES = {
    "deepcopy": copy.deepcopy,
    "copy": copy.copy,
    "pickle": lambda g: pickle.loads(pickle.dumps(g)),
}


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("used_first", [False, True])
def test_a_copied_graph_is_equal_hashes_equal_and_hits_the_cache(how: str, used_first: bool) -> None:
    graph = build()
    values = {("x", 0): jnp.arange(3.0), ("y", 0): jnp.full(3, 2.0)}
    if used_first:  # keys, hashes and checks kept on the original before it is copied
        expected = graph.jit_call(values)["out"]
    copied = COPIES[how](graph)
    assert copied == graph and graph == copied
    assert hash(copied) == hash(graph)
    if not used_first:
        expected = graph.jit_call(values)["out"]
    before = len(TRACES)
    np.testing.assert_allclose(copied.jit_call(values)["out"], expected)
    assert len(TRACES) == before, "the copy traced again: jax saw a new cache key"
    np.testing.assert_allclose(expected, (jnp.arange(3.0) + 3.5) * 2.0 + 0.5)


def test_a_copy_of_a_copy_and_a_rebuilt_graph_are_all_one_key() -> None:
    graph = build()
    twice = pickle.loads(pickle.dumps(copy.deepcopy(graph)))
    assert {graph, twice, build()} == {graph}
