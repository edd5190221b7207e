"""State on its own: reads, writes that must keep shape and dtype, reset, and what it may hold."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck.stateful import State, StatefulError, StateShapeError, TracerInState


def test_a_write_of_the_same_shape_and_dtype_replaces_the_value() -> None:
    state = State(jnp.zeros(3), name="w")
    state.value = jnp.arange(3.0)
    np.testing.assert_array_equal(state.value, [0.0, 1.0, 2.0])


@pytest.mark.parametrize(
    ("new", "shown"),
    [
        (jnp.zeros(4), "f32[4]"),
        (jnp.zeros(3, jnp.int32), "i32[3]"),
        (jnp.zeros((3, 1)), "f32[3,1]"),
    ],
)
def test_a_write_of_another_shape_or_dtype_is_refused_naming_both(new: jax.Array, shown: str) -> None:
    state = State(jnp.zeros(3), name="w")
    with pytest.raises(StateShapeError) as raised:
        state.value = new
    assert raised.value.codes == ("JC602",)
    text = str(raised.value)
    assert "State 'w' holds f32[3]" in text and shown in text
    assert "State.reset(value)" in text  # the fix
    np.testing.assert_array_equal(state.value, np.zeros(3))


def test_a_write_of_another_structure_is_refused() -> None:
    state = State({"a": jnp.zeros(2), "b": jnp.zeros(())}, name="params")
    with pytest.raises(StateShapeError) as raised:
        state.value = {"a": jnp.zeros(2)}
    assert "{'a': f32[2], 'b': f32[]}" in str(raised.value)


def test_a_python_number_is_cast_to_the_state_dtype_when_jax_would_promote_it_so() -> None:
    state = State(jnp.zeros((), jnp.bfloat16))
    state.value = 0.5
    assert state.value.dtype == jnp.bfloat16
    assert not state.value.weak_type
    assert float(state.value) == 0.5


def test_a_python_float_into_an_int_state_is_refused() -> None:
    state = State(jnp.zeros((), jnp.int32), name="count")
    with pytest.raises(StateShapeError, match="i32"):
        state.value = 0.5


def test_weakly_typed_values_are_stored_strongly_typed() -> None:
    from_number = State(1.0)
    from_weak_array = State(jnp.asarray(2.0))
    assert jnp.asarray(2.0).weak_type
    for state in (from_number, from_weak_array):
        assert state.value.dtype == jnp.float32
        assert not state.value.weak_type


def test_reset_changes_the_shape_and_dtype_on_purpose() -> None:
    state = State(jnp.zeros(3))
    state.reset(jnp.ones((2, 2), jnp.int32))
    assert state.value.shape == (2, 2) and state.value.dtype == jnp.int32


def test_a_leaf_that_is_not_an_array_or_number_is_refused_with_its_path() -> None:
    with pytest.raises(TypeError, match=r"State 'cfg': the value at \['mode'\] is a str"):
        State({"mode": "train", "x": jnp.zeros(2)}, name="cfg")


def test_numpy_values_are_kept_as_numpy() -> None:
    state = State(np.zeros(3, np.float32))
    state.value = np.ones(3, np.float32)
    assert isinstance(state.value, np.ndarray)


def test_states_compare_and_hash_by_identity() -> None:
    a, b = State(jnp.zeros(2)), State(jnp.zeros(2))
    assert a == a and a != b
    assert len({a, b, a}) == 2


def test_repr_shows_name_and_shapes() -> None:
    assert repr(State({"w": jnp.zeros((2, 3))}, name="layer")) == "State('layer', {'w': f32[2,3]})"


def test_a_tracer_written_outside_a_stateful_trace_is_refused() -> None:
    state = State(jnp.zeros(3), name="w")

    def write(x: jax.Array) -> jax.Array:
        state.value = x
        return x

    def create(x: jax.Array) -> jax.Array:
        State(x)
        return x

    def reset(x: jax.Array) -> jax.Array:
        state.reset(x)
        return x

    for body in (write, create, reset):
        with pytest.raises(TracerInState) as raised:
            jax.vmap(body)(jnp.ones((2, 3)))  # eager: the value written is a tracer of vmap
        assert raised.value.codes == ("JC604",)
        assert "StatefulFunction" in str(raised.value)
    # under a staging transformation the use itself is refused, whatever the value
    for body, code in ((write, "JC605"), (create, "JC603"), (reset, "JC605")):
        with pytest.raises(StatefulError) as refused:
            jax.jit(body)(jnp.ones(3))
        assert refused.value.codes == (code,)
        assert "StatefulFunction" in str(refused.value) or "outside" in str(refused.value)
    np.testing.assert_array_equal(state.value, np.zeros(3))
