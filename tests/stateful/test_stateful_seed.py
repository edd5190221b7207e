"""The seed page's StatefulFunction in full: positional order, make_jaxpr(return_shape=True), states(), to_state_manager()."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitcheck
from jitcheck.stateful import State, StatefulFunction, StateDictManager, StateShapeError


def test_the_constructor_takes_the_seeds_parameters_in_the_seeds_order() -> None:
    parameters = inspect.signature(StatefulFunction).parameters
    positional = [p.name for p in parameters.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert positional == ["fun", "static_argnums", "axis_env", "abstracted_axes", "state_returns", "cache_type"]
    assert parameters["static_argnames"].kind is inspect.Parameter.KEYWORD_ONLY
    # by position, as the seed orders them: state_returns fifth, so jaxpr_call returns only the written States
    read = State(jnp.ones(2), name="read")
    written = State(jnp.zeros(2), name="written")

    def step(x: jax.Array, scale: float) -> jax.Array:
        written.value = written.value + read.value * x * scale
        return x

    sf = StatefulFunction(step, 1, [("batch", 2)], None, "write", None)
    assert sf.static_argnums == (1,) and sf.axis_env == (("batch", 2),)
    assert sf.compile_and_get_states_by_static_args(jnp.full(2, 3.0), 2.0) == (written, read)
    new_values, out = sf.jaxpr_call([written.value, read.value], jnp.full(2, 3.0), 2.0)
    assert len(new_values) == 1
    np.testing.assert_allclose(new_values[0], [6.0, 6.0])
    with pytest.raises(TypeError):
        StatefulFunction(step, 1, "scale")  # type: ignore[arg-type]  # a name is not an axis_env


def test_make_jaxpr_with_return_shape_gives_the_jaxpr_and_the_output_shapes() -> None:
    weight = State(jnp.ones((3, 2), jnp.float32), name="weight")

    def f(x: jax.Array) -> dict[str, jax.Array]:
        y = x @ weight.value
        return {"y": y, "n": jnp.sum(y).astype(jnp.int32)}

    sf = StatefulFunction(f)
    x = jax.ShapeDtypeStruct((4, 3), jnp.float32)
    jaxpr, shapes = sf.make_jaxpr(x, return_shape=True)
    assert isinstance(jaxpr, jax.extend.core.ClosedJaxpr)
    assert shapes == {"y": jax.ShapeDtypeStruct((4, 2), jnp.float32), "n": jax.ShapeDtypeStruct((), jnp.int32)}
    assert str(jaxpr) == str(sf.get_jaxpr())
    want_jaxpr, want_shapes = jax.make_jaxpr(lambda x, w: {"y": x @ w, "n": jnp.sum(x @ w).astype(jnp.int32)}, return_shape=True)(
        x, weight.value
    )
    assert shapes == want_shapes
    assert [str(v.aval) for v in jaxpr.jaxpr.invars] == [str(v.aval) for v in want_jaxpr.jaxpr.invars]
    assert sf.make_jaxpr(x) is sf  # without it: self, for chaining
    assert sf.cache_info()["traces"] == 1


def test_return_shape_is_never_passed_to_the_function() -> None:
    seen: list[object] = []

    def f(x: jax.Array, **kwargs: object) -> jax.Array:
        seen.append(kwargs)
        return x

    StatefulFunction(f).make_jaxpr(jnp.ones(2), return_shape=True)
    assert seen == [{}]


def test_states_and_to_state_manager() -> None:
    weight = State(jnp.ones(2), name="weight")
    count = State(jnp.zeros((), jnp.int32), name="count")
    anonymous = State(jnp.full(2, 5.0))

    def f(x: jax.Array) -> jax.Array:
        count.value = count.value + 1
        return x * weight.value + anonymous.value

    sf = StatefulFunction(f)
    sf(jnp.ones(2))
    assert sf.states() == sf.get_states() == (count, weight, anonymous)
    manager = sf.to_state_manager()
    assert isinstance(manager, StateDictManager) and isinstance(manager, dict)
    assert jitcheck.StateDictManager is StateDictManager
    assert list(manager) == ["count", "weight", id(anonymous)]
    assert manager["weight"] is weight
    values = manager.collect_values()
    np.testing.assert_allclose(values["count"], 1)
    # set them all at once, then run: the function sees the new values
    manager.assign_values({"weight": jnp.full(2, 2.0), "count": jnp.asarray(10, jnp.int32)})
    np.testing.assert_allclose(sf(jnp.ones(2)), [7.0, 7.0])
    assert int(count.value) == 11
    # the collected values feed jaxpr_call in the order of states()
    _, out = sf.jaxpr_call(list(manager.collect_values().values()), jnp.ones(2))
    np.testing.assert_allclose(out, [7.0, 7.0])
    with pytest.raises(StateShapeError):
        manager.assign_values({"weight": jnp.ones(3)})  # checked like state.value = ...
    with pytest.raises(KeyError, match="'wieght'"):
        manager.assign_values({"count": jnp.asarray(0, jnp.int32), "wieght": jnp.ones(2)})
    assert int(count.value) == 11  # nothing written when a key is unknown
    with pytest.raises(TypeError, match="States only"):
        manager["x"] = jnp.ones(2)  # type: ignore[assignment]
    assert manager.subset(lambda s: s.name is None) == {id(anonymous): anonymous}
    first, rest = manager.split_values(State)
    assert list(first) == list(manager) and rest == {}


def test_states_with_a_shared_name_are_keyed_by_id() -> None:
    a, b = State(jnp.ones(()), name="w"), State(jnp.ones(()), name="w")
    sf = StatefulFunction(lambda: a.value + b.value)
    sf()
    assert list(sf.to_state_manager()) == [id(a), id(b)]
