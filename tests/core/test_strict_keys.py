"""Type-strict cache keys: 2, 2.0 and True are three keys everywhere jitcheck builds one, as in jax.jit.

Each silent-wrong-result test compares jitcheck's answer with eager jax: before keys
were type-strict, a graph built with ``2.0`` after one built with ``2`` reused the
integer program and returned an overflowed int32 where eager gives a float.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck import (
    GraphWithValues,
    JitGraph,
    NestingGraph,
    NodeDefinition,
    OrderedMap,
    StatefulFunction,
    Traced,
    ValuePartial,
)
from jitcheck.core.keys import Strict, strict, strict_key

from .graph_parts import scale

BIG = jnp.full((3,), 2**30, jnp.int32)


def by_setting(factor: Any) -> JitGraph[str, str]:
    return JitGraph(NestingGraph({"s": NodeDefinition(scale, ("x",), ("y",), {"factor": factor})}))


def by_partial(factor: Any) -> JitGraph[str, str]:
    return JitGraph(NestingGraph({"s": NodeDefinition(ValuePartial(scale, factor=factor), ("x",), ("y",))}))


def scale_by_first(x: jax.Array, *, factors: tuple[Any, ...]) -> jax.Array:
    return x * factors[0]


def by_nested(factors: tuple[Any, ...]) -> JitGraph[str, str]:
    return JitGraph(NestingGraph({"s": NodeDefinition(scale_by_first, ("x",), ("y",), {"factors": factors})}))


@pytest.mark.parametrize("build", [by_setting, by_partial], ids=["setting", "value-partial"])
def test_int_then_float_then_bool_static_gives_what_eager_gives(build: Any) -> None:
    for factor in (2, 2.0, True):
        got = build(factor).jit_call({"x": BIG})["y"]
        eager = BIG * factor
        assert got.dtype == eager.dtype, factor
        np.testing.assert_array_equal(np.asarray(got), np.asarray(eager))
    assert float(by_setting(2.0).jit_call({"x": BIG})["y"][0]) == 2.0**31  # not the int32 overflow


def test_nested_containers_are_type_strict_too() -> None:
    as_int = by_nested((2, 1)).jit_call({"x": BIG})["y"]
    as_float = by_nested((2.0, 1)).jit_call({"x": BIG})["y"]
    assert as_int.dtype == jnp.int32 and int(as_int[0]) == -(2**31)
    assert as_float.dtype == jnp.float32 and float(as_float[0]) == 2.0**31
    assert by_nested((1, 2)) != by_nested((1.0, 2))


def test_the_graphs_own_hash_and_equality_are_type_strict() -> None:
    assert by_setting(2) == by_setting(2) and hash(by_setting(2)) == hash(by_setting(2))
    assert by_setting(2) != by_setting(2.0)
    assert by_setting(1) != by_setting(True)
    assert by_setting(np.int32(2)) != by_setting(2)
    assert by_partial(2) != by_partial(2.0)
    assert ValuePartial(scale, factor=2) != ValuePartial(scale, factor=2.0)
    assert OrderedMap({"a": 2}) != OrderedMap({"a": 2.0})
    assert OrderedMap({"a": (1, 2)}) == OrderedMap({"a": (1, 2)})


def test_places_and_labels_are_type_strict() -> None:
    def graph(place: Any, label: Any) -> JitGraph[Any, Any]:
        return JitGraph(NestingGraph({label: NodeDefinition(scale, (place,), ("y",), {"factor": 2.0})}))

    assert graph(1, "s") != graph(1.0, "s")
    assert graph("x", 1) != graph("x", True)
    assert graph("x", 1) == graph("x", 1)


def test_jax_jit_keeps_the_rebuilt_graphs_apart_by_type() -> None:
    traces = 0

    def run(graph: JitGraph[str, str], values: dict[str, jax.Array]) -> Any:
        nonlocal traces
        traces += 1
        return graph(values)

    jitted = jax.jit(run, static_argnums=0)
    for factor in (2, 2, 2.0, 2.0, True):
        jitted(by_setting(factor), {"x": BIG})
    assert traces == 3


def test_stateful_function_static_arguments_are_type_strict() -> None:
    def times(x: jax.Array, n: Any) -> jax.Array:
        return x * (n[0] if isinstance(n, tuple) else n)

    sf = StatefulFunction(times, static_argnums=1)
    for n in (2, 2.0, True, 2):
        got = sf(BIG, n)
        eager = BIG * n
        assert got.dtype == eager.dtype, n
        np.testing.assert_array_equal(np.asarray(got), np.asarray(eager))
    assert sf.cache_info()["traces"] == 3
    assert sf(BIG, (2, 1)).dtype == jnp.int32
    assert sf(BIG, (2.0, 1)).dtype == jnp.float32
    assert sf.cache_info()["traces"] == 5


def test_stateful_function_static_keyword_is_type_strict() -> None:
    def times(x: jax.Array, *, n: Any) -> jax.Array:
        return x * n

    sf = StatefulFunction(times, static_argnames="n")
    assert sf(BIG, n=2).dtype == jnp.int32
    assert sf(BIG, n=2.0).dtype == jnp.float32


@pytest.mark.parametrize(
    ("one", "other"),
    [(2, 2.0), (1, True), (0, False), ((1, 2), (1.0, 2)), (frozenset({1}), frozenset({1.0})), ({"a": 1}, {"a": 1.0}), (np.float32(1), np.float64(1))],
)
def test_strict_key_keeps_equal_values_of_other_types_apart(one: Any, other: Any) -> None:
    assert one == other  # Python says equal
    assert strict_key(one) != strict_key(other)
    assert Strict(one) != Strict(other) and Strict(one) == Strict(one)
    assert Strict(one) == one and Strict(one) != other


def test_strict_leaves_strict_values_unwrapped() -> None:
    partial = ValuePartial(scale, factor=2.0)
    assert strict("mode") == "mode" and type(strict("mode")) is str
    assert strict(partial) is partial
    assert strict(scale) is scale
    assert isinstance(strict(2), Strict) and repr(strict(2)) == "2"
    assert hash(strict((1, 2))) == hash((1, 2))


def test_equality_never_raises_with_arrays() -> None:
    graph = by_setting(2.0)
    first = GraphWithValues(graph, {"x": jnp.ones(3)})
    same = GraphWithValues(graph, {"x": jnp.ones(3)})
    other = GraphWithValues(graph, {"x": jnp.zeros(3)})
    as_numpy = GraphWithValues(graph, {"x": np.ones(3, np.float32)})
    assert first == same and first != other and first != as_numpy
    assert GraphWithValues(graph, {"x": jnp.ones(3)}) != GraphWithValues(graph, {"x": jnp.ones(4)})
    assert Traced(first) == Traced(same) and Traced(first) != Traced(other)
    assert OrderedMap({"x": jnp.ones(3)}) == OrderedMap({"x": jnp.ones(3)})
    with pytest.raises(TypeError):
        hash(first)
