"""Static arguments: judged as cache keys by the shared rules, bound through the signature."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck import rules
from jitcheck.core.partial import ValuePartial
from jitcheck.stateful import State, StatefulFunction, StaticArgumentRefused

TRACES: list[object] = []


def scale_by(x: jax.Array, how: Any) -> jax.Array:
    """Traced with ``how`` static: counts its traces."""
    TRACES.append(how)
    return x * 2


def double(x: jax.Array) -> jax.Array:
    return x * 2


class Scaler:
    def apply(self, x: jax.Array) -> jax.Array:
        return x * 3


@dataclasses.dataclass
class MutableConfig:
    width: int


@dataclasses.dataclass(frozen=True)
class FrozenConfig:
    width: int


class EqualsOnly:
    def __init__(self, value: int) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EqualsOnly) and other.value == self.value


class Opaque:
    pass


def _nested() -> Callable[[jax.Array], jax.Array]:
    def inner(x: jax.Array) -> jax.Array:
        return x

    return inner


BAD_STATICS: list[tuple[str, Callable[[], object], rules.Rule]] = [
    ("array", lambda: jnp.arange(3), rules.ARRAY_STATIC),
    ("numpy array", lambda: np.arange(3), rules.ARRAY_STATIC),
    ("list", lambda: [1, 2], rules.MUTABLE_CONTAINER_STATIC),
    ("dict", lambda: {"a": 1}, rules.MUTABLE_CONTAINER_STATIC),
    ("set", lambda: {1, 2}, rules.MUTABLE_CONTAINER_STATIC),
    ("bound method", lambda: Scaler().apply, rules.BOUND_METHOD),
    ("functools.partial", lambda: functools.partial(double), rules.FUNCTOOLS_PARTIAL),
    ("tree_util.Partial", lambda: jax.tree_util.Partial(double), rules.TREE_UTIL_PARTIAL),
    ("lambda", lambda: (lambda x: x), rules.LAMBDA),
    ("nested function", _nested, rules.NESTED_FUNCTION),
    ("non-frozen dataclass", lambda: MutableConfig(3), rules.MUTABLE_DATACLASS),
    ("__eq__ without __hash__", lambda: EqualsOnly(3), rules.EQ_WITHOUT_HASH),
    ("identity-compared object", lambda: Opaque(), rules.IDENTITY_VALUE),
]


@pytest.mark.parametrize(("kind", "make", "rule"), BAD_STATICS, ids=[b[0] for b in BAD_STATICS])
def test_a_bad_static_argument_is_refused_naming_argument_leaf_rule_and_fix(
    kind: str, make: Callable[[], object], rule: rules.Rule
) -> None:
    TRACES.clear()
    sf = StatefulFunction(scale_by, static_argnums=1)
    for call in (lambda: sf(jnp.ones(2), make()), lambda: sf.get_arg_cache_key(jnp.ones(2), make())):
        with pytest.raises(StaticArgumentRefused) as raised:
            call()
        assert isinstance(raised.value, TypeError)
        assert raised.value.codes == (rule.code,)
        text = str(raised.value)
        assert "args[1]" in text and "`scale_by`" in text
        assert raised.value.violations[0].help.split("`")[0] in text  # the rule's fix
    assert TRACES == []


def test_a_bad_static_keyword_argument_names_the_keyword_and_the_leaf() -> None:
    sf = StatefulFunction(scale_by, static_argnames="how")
    with pytest.raises(StaticArgumentRefused) as raised:
        sf(jnp.ones(2), how=(1, [2, 3]))
    violation = raised.value.violations[0]
    assert violation.code == "JC202"
    assert violation.leaf == "kwargs['how'][1]"
    assert "the static argument kwargs['how'] of `scale_by`" in violation.message


def test_every_bad_leaf_of_one_static_argument_is_listed() -> None:
    sf = StatefulFunction(scale_by, static_argnums=1)
    with pytest.raises(StaticArgumentRefused) as raised:
        sf(jnp.ones(2), (jnp.ones(2), [1], lambda x: x))
    assert raised.value.codes == ("JC201", "JC202", "JC104")
    assert [v.leaf for v in raised.value.violations] == ["args[1][0]", "args[1][1]", "args[1][2]"]


@pytest.mark.parametrize(
    "make",
    [
        lambda: (64, 64),
        lambda: FrozenConfig(64),
        lambda: ValuePartial(double),
        lambda: double,
        lambda: "relu",
        lambda: jnp.float32,
    ],
    ids=["tuple", "frozen dataclass", "ValuePartial", "module function", "str", "dtype"],
)
def test_good_static_arguments_are_keyed_by_value(make: Callable[[], object]) -> None:
    TRACES.clear()
    sf = StatefulFunction(scale_by, static_argnums=1)
    sf(jnp.ones(2), make())
    sf(jnp.ones(2), make())  # rebuilt: equal, so a cache hit
    assert len(TRACES) == 1


def test_a_state_may_be_a_static_argument() -> None:
    counter = State(jnp.zeros(()), name="counter")

    def bump(x: jax.Array, state: State) -> jax.Array:
        state.value = state.value + x.sum()
        return x

    sf = StatefulFunction(bump, static_argnums=1)
    sf(jnp.ones(2), counter)
    sf(jnp.ones(2), counter)
    assert float(counter.value) == 4.0
    assert sf.cache_info()["traces"] == 1
    assert sf.get_write_states(sf.get_arg_cache_key(jnp.ones(2), counter)) == (counter,)


def repeat(x: jax.Array, times: int) -> jax.Array:
    """Needs ``times`` concrete (a Python loop)."""
    TRACES.append(times)
    for _ in range(times):
        x = x + 1
    return x


def test_static_argnames_are_bound_through_the_signature() -> None:
    TRACES.clear()
    sf = StatefulFunction(repeat, static_argnames="times")
    assert sf.static_argnums == (1,) and sf.static_argnames == ("times",)
    np.testing.assert_allclose(sf(jnp.zeros(2), 3), [3.0, 3.0])  # passed positionally: still static
    np.testing.assert_allclose(sf(jnp.zeros(2), times=3), [3.0, 3.0])
    np.testing.assert_allclose(sf(jnp.zeros(2), 4), [4.0, 4.0])
    assert TRACES == [3, 3, 4]  # positional and keyword calls are distinct keys, as in jax.jit
    assert sf.get_arg_cache_key(jnp.zeros(2), 3).static_args == ((1, 3),)


def test_static_argnums_bind_the_keyword_too() -> None:
    sf = StatefulFunction(repeat, static_argnums=1)
    assert sf.static_argnames == ("times",)
    np.testing.assert_allclose(sf(jnp.zeros(2), times=2), [2.0, 2.0])


def test_negative_static_argnums_are_normalised() -> None:
    sf = StatefulFunction(repeat, static_argnums=-1)
    assert sf.static_argnums == (1,) and sf.static_argnames == ("times",)
    np.testing.assert_allclose(sf(jnp.zeros(2), 2), [2.0, 2.0])
    assert sf.get_arg_cache_key(jnp.zeros(2), 2).static_args == ((1, 2),)


def test_negative_static_argnums_of_a_varargs_function_count_from_the_call_end() -> None:
    def last_is_count(*args: Any) -> jax.Array:
        total = args[0]
        for _ in range(args[-1]):
            total = total + 1
        return total

    sf = StatefulFunction(last_is_count, static_argnums=-1)
    np.testing.assert_allclose(sf(jnp.zeros(2), 2), [2.0, 2.0])
    np.testing.assert_allclose(sf(jnp.zeros(2), jnp.ones(2), 3), [3.0, 3.0])
    assert sf.get_arg_cache_key(jnp.zeros(2), jnp.ones(2), 3).static_args == ((2, 3),)


@pytest.mark.parametrize("index", [2, -3, 7])
def test_an_out_of_range_static_argnum_is_refused_at_construction(index: int) -> None:
    with pytest.raises(ValueError) as raised:
        StatefulFunction(repeat, static_argnums=index)
    text = str(raised.value)
    assert f"static_argnums contains {index}" in text
    assert "`repeat` takes 2 positional parameters (x, times)" in text and "[-2, 1]" in text


def test_an_unknown_static_argname_is_refused_listing_the_parameters() -> None:
    with pytest.raises(ValueError, match=r"'time', which is not a parameter of `repeat` \(its keyword parameters: times, x\)"):
        StatefulFunction(repeat, static_argnames="time")


def test_a_positional_only_static_argname_is_refused_with_the_index_to_use() -> None:
    def f(x: jax.Array, n: int, /) -> jax.Array:
        return x

    with pytest.raises(ValueError, match="static_argnums=1"):
        StatefulFunction(f, static_argnames="n")


def test_a_bool_static_argnums_is_refused() -> None:
    with pytest.raises(TypeError, match="static_argnums must be ints"):
        StatefulFunction(repeat, static_argnums=True)
