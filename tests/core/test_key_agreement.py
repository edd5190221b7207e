"""Property: jitcheck's cache keys are equal exactly when jax.jit hits its cache and the types agree all the way down.

For random pairs of static values (ints, floats, bools, strings, tuples and frozen
dataclasses of them), two JitGraphs whose node setting is each value, and the two
StatefulFunction cache keys with each value as a static argument, are equal exactly
when ``jax.jit`` of a fresh function, called with one value and then the other as a
static argument, traces once, and the two values have the same types inside too.
``jax.jit`` compares only the outer type: it shares one program between ``(1, "a")``
and ``(1.0, "a")``, a silent wrong result (the int program for a float) that
jitcheck's keys, type-strict inside containers, refuse to repeat. Pairs such as 0 and
0.0 or 1 and True, equal in Python, must be different keys.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from jitcheck import JitGraph, NestingGraph, NodeDefinition
from jitcheck.stateful import StatefulFunction


@dataclasses.dataclass(frozen=True)
class Pair:
    first: Any
    second: Any


@dataclasses.dataclass(frozen=True)
class Other:
    """Same fields as Pair, another type."""

    first: Any
    second: Any


def keep(x: jax.Array, *, factor: Any) -> jax.Array:
    return x


SCALARS = st.one_of(
    st.integers(-2, 2),
    st.sampled_from([0.0, -0.0, 1.0, 2.0, 0.5]) | st.floats(allow_nan=False, allow_infinity=True, width=32),
    st.booleans(),
    st.sampled_from(["", "a", "1"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(tuple),
        st.builds(Pair, inner, inner),
        st.builds(Other, inner, inner),
    ),
    max_leaves=4,
)


def cousin(value: Any) -> Any:
    """A value that Python may find equal but of other types: 1 -> 1.0 -> True, Pair -> Other, ..."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, tuple):
        return tuple(cousin(v) for v in value)
    if isinstance(value, Pair):
        return Other(value.first, value.second)
    if isinstance(value, Other):
        return Pair(cousin(value.first), value.second)
    return value


def rebuilt(value: Any) -> Any:
    """An equal value built again (a new object where Python makes one)."""
    if isinstance(value, tuple):
        return tuple(rebuilt(v) for v in value)
    if isinstance(value, (Pair, Other)):
        return type(value)(rebuilt(value.first), rebuilt(value.second))
    if isinstance(value, str):
        return "".join(list(value))
    return value


PAIRS = st.one_of(
    st.tuples(VALUES, VALUES),
    VALUES.map(lambda v: (v, rebuilt(v))),
    VALUES.map(lambda v: (v, cousin(v))),
)

X = jnp.zeros(2)


def jax_hits(first: Any, second: Any) -> bool:
    """Whether ``jax.jit`` of a fresh function traces once for ``first`` then ``second`` as a static argument."""
    traced: list[Any] = []

    def fresh(x: jax.Array, static: Any) -> jax.Array:
        traced.append(static)
        return x

    jitted = jax.jit(fresh, static_argnums=1)
    jitted(X, first)
    jitted(X, second)
    return len(traced) == 1


def same_types(first: Any, second: Any) -> bool:
    """Whether the two values have the same type at every level (tuples and dataclasses walked)."""
    if type(first) is not type(second):
        return False
    if isinstance(first, tuple):
        return len(first) == len(second) and all(same_types(a, b) for a, b in zip(first, second))
    if dataclasses.is_dataclass(first):
        return all(same_types(getattr(first, f.name), getattr(second, f.name)) for f in dataclasses.fields(first))
    return True


def should_share(first: Any, second: Any) -> bool:
    """One program for both: jax hits its cache, and no type differs inside (where jax does not look)."""
    return jax_hits(first, second) and same_types(first, second)


def graph(value: Any) -> JitGraph[str, str]:
    return JitGraph(NestingGraph({"keep": NodeDefinition(keep, ("x",), ("y",), {"factor": value})}))


# Pairs always tried: equal in Python, three keys in jax (1, 1.0, True); equal fields, two types.
KNOWN_PAIRS = [(1, 1.0), (1, True), (0.0, -0.0), ((1, "a"), (1.0, "a")), (Pair(1, 2), Other(1, 2)), (Pair(1, 2), Pair(1, 2))]


def known_pairs(test: Any) -> Any:
    for pair in KNOWN_PAIRS:
        test = example(pair)(test)
    return test


@settings(phases=[Phase.explicit, Phase.generate])
@known_pairs
@given(PAIRS)
def test_jit_graphs_are_equal_exactly_when_jax_hits_its_cache(pair: tuple[Any, Any]) -> None:
    first, second = pair
    equal = graph(first) == graph(second)
    assert equal == should_share(first, second), f"{first!r} vs {second!r}: jitcheck equal={equal}"
    if equal:
        assert hash(graph(first)) == hash(graph(second))


def _static(x: jax.Array, value: Any) -> jax.Array:
    return x


@settings(phases=[Phase.explicit, Phase.generate])
@known_pairs
@given(PAIRS)
def test_stateful_function_keys_are_equal_exactly_when_jax_hits_its_cache(pair: tuple[Any, Any]) -> None:
    first, second = pair
    sf = StatefulFunction(_static, static_argnums=1)
    equal = sf.get_arg_cache_key(X, first) == sf.get_arg_cache_key(X, second)
    assert equal == should_share(first, second), f"{first!r} vs {second!r}: jitcheck equal={equal}"
    if equal:
        assert hash(sf.get_arg_cache_key(X, first)) == hash(sf.get_arg_cache_key(X, second))
