"""Issue 8: never a silent wrong result, never a leaked tracer, clean recovery, a bounded cache."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck.stateful import (
    State,
    StateArgumentRefused,
    StatefulFunction,
    StateFromTrace,
    StateShapeError,
    UnknownCacheKey,
)
from jitcheck.stateful.jaxinternals import Tracer


class Counted:
    """A function of one state, counting its traces; ``eager`` runs it without any trace."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.traces = 0

    def __call__(self, x: jax.Array) -> jax.Array:
        self.traces += 1
        return self.eager(x)

    def eager(self, x: jax.Array) -> jax.Array:
        return x.sum() * self.state.value + 1


# ---- a State whose shape or dtype changed since tracing ------------------------------


def test_a_state_reset_to_another_shape_is_traced_again_and_equals_eager() -> None:
    fun = Counted(State(jnp.ones(3), name="w"))
    sf = StatefulFunction(fun)
    x = jnp.arange(2.0)
    np.testing.assert_allclose(sf(x), fun.eager(x))
    fun.state.reset(jnp.arange(5.0))
    out = sf(x)
    assert out.shape == (5,)
    np.testing.assert_allclose(out, fun.eager(x))
    assert fun.traces == 2
    assert sf.cache_info()["size"] == 1  # the same key, its entry replaced
    assert sf.get_jaxpr().in_avals[1].shape == (5,)


def test_a_state_reset_to_another_dtype_is_traced_again() -> None:
    fun = Counted(State(jnp.ones(3), name="w"))
    sf = StatefulFunction(fun)
    x = jnp.arange(2, dtype=jnp.int32)
    sf(x)
    fun.state.reset(jnp.arange(3, dtype=jnp.int32))
    out = sf(x)
    assert out.dtype == jnp.int32
    np.testing.assert_array_equal(out, fun.eager(x))
    assert fun.traces == 2


def test_a_state_replaced_out_of_band_is_caught_before_the_cached_jaxpr_runs() -> None:
    fun = Counted(State(jnp.ones(3), name="w"))
    sf = StatefulFunction(fun)
    x = jnp.arange(2.0)
    sf(x)
    fun.state._value = jnp.arange(4.0)  # bypassing every check, as a buggy library might
    np.testing.assert_allclose(sf(x), fun.eager(x))
    assert fun.traces == 2


def test_make_jaxpr_and_jaxpr_call_see_a_changed_state_too() -> None:
    fun = Counted(State(jnp.ones(3), name="w"))
    sf = StatefulFunction(fun)
    x = jnp.arange(2.0)
    sf.make_jaxpr(x)
    fun.state.reset(jnp.ones(4))
    sf.make_jaxpr(x)
    assert fun.traces == 2 and sf.get_jaxpr().in_avals[1].shape == (4,)
    fun.state.reset(jnp.ones(6))
    _, out = sf.jaxpr_call([jnp.arange(6.0)], x)  # the new shape, passed explicitly
    np.testing.assert_allclose(out, x.sum() * jnp.arange(6.0) + 1)
    assert fun.traces == 3


def test_a_weak_type_only_change_does_not_trace_again() -> None:
    fun = Counted(State(jnp.zeros(()), name="scale"))
    sf = StatefulFunction(fun)
    x = jnp.arange(3.0)
    sf(x)
    fun.state.reset(2.0)  # a Python float: stored as a strong f32
    np.testing.assert_allclose(sf(x), 7.0)
    weak = jnp.asarray(3.0)
    assert weak.weak_type
    fun.state._value = weak  # a weakly typed value put in out of band
    np.testing.assert_allclose(sf(x), 10.0)
    assert fun.traces == 1


# ---- States created inside the traced function ---------------------------------------


def test_a_state_created_in_the_trace_is_refused_and_the_trace_leaves_nothing() -> None:
    outside = jnp.arange(2.0)
    count = State(jnp.zeros(()), name="count")

    def f(x: jax.Array) -> jax.Array:
        count.value = count.value + 1
        scratch = State(outside, name="scratch")  # created once per trace, not once per call
        return scratch.value + x

    sf = StatefulFunction(f)
    with pytest.raises(StateFromTrace) as raised:
        sf(jnp.ones(2))
    assert raised.value.codes == ("JC603",)
    assert "'scratch' was created inside the trace of `f`" in str(raised.value)
    assert sf.cache_info()["size"] == 0
    np.testing.assert_allclose(count.value, 0.0)


def test_a_state_created_in_an_outer_trace_for_an_inner_function_is_refused() -> None:
    inner_states: list[State] = []

    def inner(x: jax.Array) -> jax.Array:
        return x + inner_states[0].value

    inner_sf = StatefulFunction(inner)

    def outer(x: jax.Array) -> jax.Array:
        inner_states.append(State(jnp.zeros(2) + x, name="temp"))
        return inner_sf(x)

    with pytest.raises(StateFromTrace, match="'temp' was created inside the trace of `outer`"):
        StatefulFunction(outer)(jnp.ones(2))
    assert inner_states == []


# ---- a user exception in the middle of a trace ---------------------------------------


def test_a_failing_trace_leaves_states_concrete_and_no_entry_and_the_next_call_traces_cleanly() -> None:
    weight = State(jnp.ones(3), name="weight")
    count = State(jnp.zeros(()), name="count")
    fail = [True]

    def f(x: jax.Array) -> jax.Array:
        count.value = count.value + 1
        weight.value = weight.value * 2
        if fail[0]:
            raise RuntimeError("user bug")
        return x * weight.value

    sf = StatefulFunction(f)
    with pytest.raises(RuntimeError, match="user bug"):
        sf(jnp.ones(3))
    for state in (weight, count):
        assert not isinstance(state.value, Tracer)
    np.testing.assert_allclose(weight.value, np.ones(3))
    np.testing.assert_allclose(count.value, 0.0)
    assert sf.cache_info()["size"] == 0
    with pytest.raises(UnknownCacheKey):
        sf.get_jaxpr(sf.get_arg_cache_key(jnp.ones(3)))
    fail[0] = False
    np.testing.assert_allclose(sf(jnp.ones(3)), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(count.value, 1.0)


def test_a_failing_trace_inside_an_outer_trace_leaves_states_concrete() -> None:
    total = State(jnp.zeros(()), name="total")

    def inner(x: jax.Array) -> jax.Array:
        total.value = total.value + x.sum()
        raise ValueError("inner bug")

    inner_sf = StatefulFunction(inner)
    outer_sf = StatefulFunction(lambda x: inner_sf(x) + total.value)
    with pytest.raises(ValueError, match="inner bug"):
        outer_sf(jnp.ones(2))
    assert not isinstance(total.value, Tracer)
    np.testing.assert_allclose(total.value, 0.0)
    assert outer_sf.cache_info()["size"] == inner_sf.cache_info()["size"] == 0


def test_a_failing_retrace_keeps_the_previous_entry_which_still_serves_its_shapes() -> None:
    weight = State(jnp.ones(3), name="weight")

    def f(x: jax.Array) -> jax.Array:
        if weight.value.shape != (3,):
            raise RuntimeError("only three weights")
        return x * weight.value

    sf = StatefulFunction(f)
    sf(jnp.ones(3))
    weight.reset(jnp.ones(4))
    with pytest.raises(RuntimeError, match="only three"):
        sf(jnp.ones(3))
    assert sf.get_jaxpr().in_avals[1].shape == (3,)
    weight.reset(jnp.full(3, 2.0))
    np.testing.assert_allclose(sf(jnp.ones(3)), [2.0, 2.0, 2.0])
    assert sf.cache_info()["traces"] == 1


# ---- States passed through arguments or returned -------------------------------------


@pytest.mark.parametrize(
    ("call", "where"),
    [
        (lambda sf, s: sf(s), "args[0]"),
        (lambda sf, s: sf(jnp.ones(2), extra=s), "kwargs['extra']"),
        (lambda sf, s: sf({"a": [jnp.ones(2), s]}), "args[0]['a'][1]"),
        (lambda sf, s: sf.make_jaxpr(s), "args[0]"),
        (lambda sf, s: sf.get_arg_cache_key((s,)), "args[0][0]"),
    ],
    ids=["positional", "keyword", "nested", "make_jaxpr", "get_arg_cache_key"],
)
def test_a_state_passed_as_a_traced_argument_is_refused_naming_where(call: Any, where: str) -> None:
    state = State(jnp.ones(2), name="s")

    def f(x: Any, extra: Any = None) -> Any:
        return x

    sf = StatefulFunction(f)
    with pytest.raises(StateArgumentRefused) as raised:
        call(sf, state)
    assert raised.value.codes == ("JC601",)
    assert raised.value.violations[0].leaf == where
    assert f"passed as the traced argument {where} of `f`" in str(raised.value)
    assert sf.cache_info()["traces"] == 0


def test_a_state_returned_from_the_function_is_refused_naming_the_output_path() -> None:
    state = State(jnp.ones(2), name="s")

    def f(x: jax.Array) -> Any:
        return x, {"state": state}

    with pytest.raises(StateArgumentRefused) as raised:
        StatefulFunction(f)(jnp.ones(2))
    assert raised.value.violations[0].leaf == "output[1]['state']"
    assert "returned from `f` at output[1]['state']" in str(raised.value)
    assert not isinstance(state.value, Tracer)


# ---- jaxpr_call's explicit state values ----------------------------------------------


def _two_states() -> tuple[StatefulFunction, State, State]:
    weight, count = State(jnp.ones(3), name="weight"), State(jnp.zeros(()), name="count")

    def f(x: jax.Array) -> jax.Array:
        count.value = count.value + 1
        return x * weight.value

    return StatefulFunction(f), weight, count


def test_jaxpr_call_with_the_wrong_number_of_state_values_names_the_expected_count() -> None:
    sf, _, _ = _two_states()
    sf.make_jaxpr(jnp.ones(3))
    with pytest.raises(ValueError, match=r"got 1 state value, expected 2: .* \['count', 'weight'\]"):
        sf.jaxpr_call([jnp.zeros(())], jnp.ones(3))


def test_jaxpr_call_with_a_none_state_value_names_the_index() -> None:
    sf, _, _ = _two_states()
    with pytest.raises(ValueError, match=r"state_vals\[1\] is None; every one of the 2 States .* State 'weight'"):
        sf.jaxpr_call([jnp.zeros(()), None], jnp.ones(3))


def test_jaxpr_call_with_a_state_value_of_another_shape_names_the_index() -> None:
    sf, _, _ = _two_states()
    with pytest.raises(StateShapeError) as raised:
        sf.jaxpr_call([jnp.zeros(()), jnp.ones(4)], jnp.ones(3))
    assert raised.value.violations[0].leaf == "state_vals[1]"
    assert "'weight' (state_vals[1]) holds f32[3] and cannot be set to f32[4]" in str(raised.value)


def test_jaxpr_call_needs_a_sequence_of_values() -> None:
    sf, _, _ = _two_states()
    with pytest.raises(TypeError, match="list or tuple"):
        sf.jaxpr_call({"count": jnp.zeros(())}, jnp.ones(3))  # type: ignore[arg-type]


# ---- the bounded cache ---------------------------------------------------------------


def test_the_cache_is_bounded_and_evicts_the_least_recently_used() -> None:
    fun = Counted(State(jnp.ones(()), name="w"))
    sf = StatefulFunction(fun, maxsize=2)
    x2, x3, x4 = jnp.ones(2), jnp.ones(3), jnp.ones(4)
    sf(x2)
    sf(x3)
    sf(x2)  # x2 is now the most recently used
    sf(x4)  # evicts x3
    assert sf.cache_info()["size"] == 2
    sf.get_jaxpr(sf.get_arg_cache_key(x2))
    with pytest.raises(UnknownCacheKey):
        sf.get_jaxpr(sf.get_arg_cache_key(x3))
    sf(x2)
    assert fun.traces == 3
    sf(x3)
    assert fun.traces == 4


def test_the_default_maxsize_is_128() -> None:
    fun = Counted(State(jnp.ones(()), name="w"))
    sf = StatefulFunction(fun)
    assert sf.maxsize == 128
    for n in range(1, 131):
        sf.make_jaxpr(jax.ShapeDtypeStruct((n,), jnp.float32))
    assert sf.cache_info()["size"] == 128
    with pytest.raises(UnknownCacheKey):
        sf.get_jaxpr(sf.get_arg_cache_key(jnp.ones(1)))
    sf.get_jaxpr(sf.get_arg_cache_key(jnp.ones(130)))


@pytest.mark.parametrize("maxsize", [0, -1, 1.5, True])
def test_maxsize_must_be_a_positive_int(maxsize: Any) -> None:
    with pytest.raises(ValueError, match="maxsize must be a positive int"):
        StatefulFunction(Counted(State(jnp.ones(()))), maxsize=maxsize)


# ---- construction parameters ---------------------------------------------------------


def test_abstracted_axes_is_refused_because_jax_has_no_dynamic_shapes() -> None:
    with pytest.raises(ValueError) as raised:
        StatefulFunction(Counted(State(jnp.ones(()))), abstracted_axes={0: "n"})
    text = str(raised.value)
    assert "abstracted_axes" in text and "no dynamic shapes" in text and "Pass None" in text
    assert StatefulFunction(Counted(State(jnp.ones(()))), abstracted_axes=None).abstracted_axes is None


def test_cache_type_accepts_none_and_jit_only() -> None:
    StatefulFunction(Counted(State(jnp.ones(()))), cache_type="jit")
    with pytest.raises(ValueError, match="cache_type='static' is not known"):
        StatefulFunction(Counted(State(jnp.ones(()))), cache_type="static")


def test_a_non_callable_is_refused() -> None:
    with pytest.raises(TypeError, match="needs a callable"):
        StatefulFunction(3)  # type: ignore[arg-type]


def test_inside_a_trace_a_write_of_another_shape_and_a_reset_are_refused() -> None:
    weight = State(jnp.ones(3), name="weight")

    def grows(x: jax.Array) -> jax.Array:
        weight.value = jnp.concatenate([weight.value, x])
        return x

    def resets(x: jax.Array) -> jax.Array:
        weight.reset(x)
        return x

    with pytest.raises(StateShapeError, match="'weight' holds f32\\[3\\] and cannot be set to f32\\[5\\]"):
        StatefulFunction(grows)(jnp.ones(2))
    with pytest.raises(RuntimeError, match="reset\\(\\) was called while `resets` is being traced"):
        StatefulFunction(resets)(jnp.ones(2))
    np.testing.assert_allclose(weight.value, np.ones(3))
