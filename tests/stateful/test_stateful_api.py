"""Every method of StatefulFunction (issue 3), on real jax traces."""

from __future__ import annotations

from typing import Any

import jax
import jax.extend.core as jex
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck import State as ExportedState
from jitcheck import StatefulFunction as ExportedStatefulFunction
from jitcheck.stateful import CacheKey, State, StatefulFunction, UnknownCacheKey


class Model:
    """Three states: ``weight`` only read, ``total`` read and written, ``last`` only written."""

    def __init__(self) -> None:
        self.weight = State(jnp.arange(3.0), name="weight")
        self.total = State(jnp.zeros(()), name="total")
        self.last = State(jnp.zeros(3), name="last")
        self.traces = 0

    def step(self, x: jax.Array) -> jax.Array:
        self.traces += 1
        y = self.weight.value * x
        self.last.value = y
        self.total.value = self.total.value + y.sum()
        return y + 1

    def eager(self, weight: jax.Array, total: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        """The same computation written without states: (output, new total, new last)."""
        y = weight * x
        return y + 1, total + y.sum(), y


def test_exported_from_the_package_root() -> None:
    assert ExportedState is State and ExportedStatefulFunction is StatefulFunction


def test_read_write_and_all_state_sets_are_exact() -> None:
    model = Model()
    sf = StatefulFunction(model.step)
    key = sf.get_arg_cache_key(jnp.ones(3))
    sf.make_jaxpr(jnp.ones(3))
    assert sf.get_states(key) == (model.weight, model.last, model.total)  # order of first use
    assert sf.get_read_states(key) == (model.weight,)
    assert sf.get_write_states(key) == (model.last, model.total)


def test_a_second_call_with_equal_shapes_hits_the_cache_and_other_shapes_miss() -> None:
    model = Model()
    sf = StatefulFunction(model.step)
    sf(jnp.ones(3))
    sf(jnp.full(3, 2.0, jnp.float32))
    assert model.traces == 1
    model.weight.reset(jnp.arange(4.0))
    model.last.reset(jnp.zeros(4))
    sf(jnp.ones(4))
    assert model.traces == 2
    assert sf.cache_info()["size"] == 2


def test_make_jaxpr_records_the_jaxpr_shapes_and_tree_under_the_key() -> None:
    model = Model()
    sf = StatefulFunction(model.step)
    spec = jax.ShapeDtypeStruct((3,), jnp.float32)
    assert sf.make_jaxpr(spec) is sf
    key = sf.get_arg_cache_key(spec)
    assert key == sf.get_arg_cache_key(jnp.ones(3))  # a ShapeDtypeStruct keys like the array
    closed = sf.get_jaxpr(key)
    assert isinstance(closed, jex.ClosedJaxpr)
    # inputs: the argument, then every state in get_states order
    assert [a.shape for a in closed.in_avals] == [(3,), (3,), (3,), ()]
    out_shapes, state_shapes = sf.get_out_shapes(key)
    assert out_shapes.shape == (3,) and [s.shape for s in state_shapes] == [(3,), (3,), ()]
    # the tree unflattens the jaxpr's outputs into (output, [state values])
    flat = jex.jaxpr_as_fun(closed)(jnp.ones(3), model.weight.value, model.last.value, model.total.value)
    out, states = jax.tree_util.tree_unflatten(sf.get_out_treedef(key), flat)
    np.testing.assert_allclose(out, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(states[2], 3.0)
    assert model.traces == 1


def test_the_cache_key_holds_static_values_and_dynamic_shapes_dtypes_and_tree() -> None:
    def f(x: jax.Array, n: int) -> jax.Array:
        return x * n

    sf = StatefulFunction(f, static_argnums=1)
    key = sf.get_arg_cache_key(jnp.ones(3), 2)
    assert isinstance(key, CacheKey)
    assert key.static_args == ((1, 2),)
    assert [a.shape for a in key.avals] == [(3,)]
    assert key == sf.get_arg_cache_key(jnp.zeros(3), 2)
    assert key != sf.get_arg_cache_key(jnp.ones(3), 3)  # static value
    assert key != sf.get_arg_cache_key(jnp.ones(4), 2)  # shape
    assert key != sf.get_arg_cache_key(jnp.ones(3, jnp.int32), 2)  # dtype
    assert sf.get_arg_cache_key(jnp.asarray(1.0), 2) != sf.get_arg_cache_key(jnp.float32(1.0), 2)  # weak type
    assert key != sf.get_arg_cache_key((jnp.ones(3),), 2)  # tree structure
    assert key != sf.get_arg_cache_key(x=jnp.ones(3), n=2)  # keyword, as jax.jit keys it


def test_an_unknown_cache_key_is_refused_listing_the_known_keys() -> None:
    model = Model()
    sf = StatefulFunction(model.step)
    with pytest.raises(UnknownCacheKey, match="has not been traced"):
        sf.get_jaxpr(sf.get_arg_cache_key(jnp.ones(3)))
    sf.make_jaxpr(jnp.ones(3))
    missing = sf.get_arg_cache_key(jnp.ones(5))
    for getter in (sf.get_jaxpr, sf.get_out_shapes, sf.get_out_treedef, sf.get_states, sf.get_read_states, sf.get_write_states):
        with pytest.raises(KeyError) as raised:
            getter(missing)
        text = str(raised.value)
        assert "dynamic (f32[5])" in text and "Known keys: 1:" in text and "dynamic (f32[3])" in text


def test_the_default_key_is_the_only_cached_one_and_ambiguous_otherwise() -> None:
    def f(x: jax.Array) -> jax.Array:
        return x + 1

    sf = StatefulFunction(f)
    sf.make_jaxpr(jnp.ones(2))
    assert sf.get_jaxpr().in_avals[0].shape == (2,)
    sf.make_jaxpr(jnp.ones(3))
    with pytest.raises(UnknownCacheKey, match="Known keys: 2"):
        sf.get_jaxpr()


def test_clear_cache_forgets_every_trace() -> None:
    model = Model()
    sf = StatefulFunction(model.step)
    sf(jnp.ones(3))
    sf.clear_cache()
    assert sf.cache_info()["size"] == 0
    sf(jnp.ones(3))
    assert model.traces == 2


def test_compile_and_get_states_by_static_args_traces_once() -> None:
    model = Model()
    sf = StatefulFunction(model.step)
    assert sf.compile_and_get_states_by_static_args(jnp.ones(3)) == (model.weight, model.last, model.total)
    assert sf.compile_and_get_states_by_static_args(jnp.ones(3)) == (model.weight, model.last, model.total)
    assert model.traces == 1


def test_jaxpr_call_equals_eager_execution_and_leaves_the_states_alone() -> None:
    model = Model()
    sf = StatefulFunction(model.step)
    weight, last, total = jnp.array([1.0, -2.0, 0.5]), jnp.zeros(3), jnp.asarray(10.0)
    x = jnp.array([3.0, 1.0, 4.0])
    new_values, out = sf.jaxpr_call([weight, last, total], x)
    want_out, want_total, want_last = model.eager(weight, total, x)
    np.testing.assert_allclose(out, want_out)
    assert len(new_values) == 3
    np.testing.assert_allclose(new_values[0], weight)  # read only: returned as given
    np.testing.assert_allclose(new_values[1], want_last)
    np.testing.assert_allclose(new_values[2], want_total)
    np.testing.assert_allclose(model.weight.value, np.arange(3.0))  # nothing written
    np.testing.assert_allclose(model.total.value, 0.0)


def test_jaxpr_call_auto_and_call_write_the_written_states_back() -> None:
    model = Model()
    sf = StatefulFunction(model.step)
    x = jnp.array([1.0, 2.0, 3.0])
    out = sf.jaxpr_call_auto(x)
    np.testing.assert_allclose(out, [1.0, 3.0, 7.0])
    np.testing.assert_allclose(model.total.value, 8.0)
    np.testing.assert_allclose(model.last.value, [0.0, 2.0, 6.0])
    out = sf(x)
    np.testing.assert_allclose(out, [1.0, 3.0, 7.0])
    np.testing.assert_allclose(model.total.value, 16.0)
    assert model.traces == 1


@pytest.mark.parametrize(
    ("state_returns", "returned"),
    [(("read", "write"), ("weight", "last", "total")), ("write", ("last", "total")), ("read", ("weight",))],
)
def test_state_returns_selects_the_states_jaxpr_call_returns(state_returns: str | tuple[str, ...], returned: tuple[str, ...]) -> None:
    model = Model()
    sf = StatefulFunction(model.step, state_returns=state_returns)
    values = [model.weight.value, model.last.value, model.total.value]
    new_values, _ = sf.jaxpr_call(values, jnp.ones(3))
    assert len(new_values) == len(returned)
    closed = sf.get_jaxpr()
    assert len(closed.out_avals) == 1 + len(returned)  # the output, then one leaf per state returned
    _, shapes = sf.get_out_shapes()
    assert len(shapes) == len(returned)
    # jaxpr_call_auto writes every written state back whatever is returned
    sf(jnp.ones(3))
    np.testing.assert_allclose(model.total.value, 3.0)


def test_state_returns_must_name_read_or_write() -> None:
    with pytest.raises(ValueError, match="state_returns"):
        StatefulFunction(Model().step, state_returns=("reads",))


def test_nested_stateful_functions_surface_inner_states_in_the_outer() -> None:
    model = Model()
    inner = StatefulFunction(model.step)
    bias = State(jnp.ones(3), name="bias")

    def outer(x: jax.Array) -> jax.Array:
        return inner(x) * bias.value

    sf = StatefulFunction(outer)
    out = sf(jnp.ones(3))
    np.testing.assert_allclose(out, [1.0, 2.0, 3.0])
    assert set(sf.get_states()) == {model.weight, model.last, model.total, bias}
    assert set(sf.get_write_states()) == {model.last, model.total}
    assert set(sf.get_read_states()) == {model.weight, bias}
    np.testing.assert_allclose(model.total.value, 3.0)  # the inner write, written back by the outer
    sf(jnp.ones(3))
    np.testing.assert_allclose(model.total.value, 6.0)
    assert model.traces == 1  # traced once, inside the outer trace


def test_jaxpr_call_works_under_jit_grad_and_vmap() -> None:
    model = Model()
    sf = StatefulFunction(model.step)
    x = jnp.array([1.0, 2.0, 3.0])
    values = [model.weight.value, model.last.value, model.total.value]

    jitted = jax.jit(lambda vals, x: sf.jaxpr_call(vals, x))
    new_values, out = jitted(values, x)
    np.testing.assert_allclose(out, model.eager(values[0], values[2], x)[0])
    np.testing.assert_allclose(new_values[2], 8.0)

    def loss(weight: jax.Array) -> jax.Array:
        _, out = sf.jaxpr_call([weight, values[1], values[2]], x)
        return out.sum()

    np.testing.assert_allclose(jax.grad(loss)(values[0]), x)  # d/dw sum(w * x + 1) = x

    xs = jnp.stack([x, 2 * x])
    _, outs = jax.vmap(lambda x: sf.jaxpr_call(values, x))(xs)
    np.testing.assert_allclose(outs, jnp.stack([model.eager(values[0], values[2], row)[0] for row in xs]))
    assert model.traces == 1


def test_a_function_with_pytree_arguments_and_outputs() -> None:
    params = State({"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}, name="params")

    def apply(inputs: dict[str, jax.Array], scale: float) -> tuple[jax.Array, dict[str, jax.Array]]:
        p = params.value
        y = inputs["x"] @ p["w"] + p["b"]
        params.value = {"w": p["w"] * scale, "b": p["b"] + 1}
        return y, {"sum": y.sum()}

    sf = StatefulFunction(apply)
    y, extra = sf({"x": jnp.ones((4, 2))}, 0.5)
    np.testing.assert_allclose(y, np.full((4, 3), 2.0))
    np.testing.assert_allclose(extra["sum"], 24.0)
    np.testing.assert_allclose(params.value["w"], np.full((2, 3), 0.5))
    np.testing.assert_allclose(params.value["b"], np.ones(3))
    y, _ = sf({"x": jnp.ones((4, 2))}, 0.5)
    np.testing.assert_allclose(y, np.full((4, 3), 2.0))
    assert sf.cache_info()["traces"] == 1


def test_states_with_empty_and_nested_values() -> None:
    empty = State({}, name="empty")
    nested = State({"a": (jnp.zeros(2), jnp.ones(())), "b": [jnp.zeros(1)]}, name="nested")

    def f(x: jax.Array) -> jax.Array:
        empty.value = {}
        a, s = nested.value["a"]
        nested.value = {"a": (a + x, s * 2), "b": nested.value["b"]}
        return a.sum()

    sf = StatefulFunction(f)
    for _ in range(2):
        sf(jnp.ones(2))
    assert empty.value == {}
    np.testing.assert_allclose(nested.value["a"][0], [2.0, 2.0])
    np.testing.assert_allclose(nested.value["a"][1], 4.0)
    assert sf.get_write_states() == (empty, nested)


def test_numbers_and_numpy_arrays_are_dynamic_arguments_keyed_by_abstract_value() -> None:
    rate = State(jnp.ones(3), name="rate")
    traces: list[int] = []

    def f(x: Any, lr: Any) -> jax.Array:
        traces.append(1)
        return rate.value * x * lr

    sf = StatefulFunction(f)
    np.testing.assert_allclose(sf(np.ones(3, np.float32), 0.5), [0.5, 0.5, 0.5])
    np.testing.assert_allclose(sf(np.full(3, 2.0, np.float32), 0.25), [0.5, 0.5, 0.5])
    assert len(traces) == 1  # a new number is a new value, not a new key
    assert sf.get_arg_cache_key(np.ones(3, np.float32), 0.5) == sf.get_arg_cache_key(jnp.ones(3), 0.1)


def test_an_argument_jax_cannot_trace_is_refused_naming_it_and_the_static_fix() -> None:
    sf = StatefulFunction(lambda x, mode: x)
    with pytest.raises(TypeError) as raised:
        sf(jnp.ones(2), {"mode": "train"})
    text = str(raised.value)
    assert "argument args[1]['mode']" in text and "is a str" in text and "static_argnums=1" in text


def test_a_stateful_function_may_call_itself_with_another_static_argument() -> None:
    step = State(jnp.ones(2), name="step")
    calls = State(jnp.zeros(()), name="calls")

    def walk(x: jax.Array, n: int) -> jax.Array:
        calls.value = calls.value + 1
        return x if n == 0 else walk_sf(x, n - 1) + step.value

    walk_sf = StatefulFunction(walk, static_argnums=1)
    with jax.checking_leaks():
        np.testing.assert_allclose(walk_sf(jnp.zeros(2), 3), [3.0, 3.0])
        np.testing.assert_allclose(walk_sf(jnp.zeros(2), 3), [3.0, 3.0])
    np.testing.assert_allclose(calls.value, 8.0)  # four levels, twice
    assert walk_sf.cache_info() == {"size": 4, "maxsize": 128, "traces": 4}
