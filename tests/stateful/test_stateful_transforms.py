"""StatefulFunction under jax transformations: no leaked tracer, named axes, refused escapes."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck.stateful import State, StatefulFunction, StateUnderStaging, TracerInState
from jitcheck.stateful.jaxinternals import Tracer


def _no_tracer_cached(sf: StatefulFunction) -> None:
    for key in sf._cache.keys():
        entry = sf._cache.peek(key)
        assert entry is not None
        assert not any(isinstance(c, Tracer) for c in entry.closed.consts)
        assert not any(isinstance(a, Tracer) for a in key[3])


def test_checking_leaks_passes_under_jit() -> None:
    weight = State(jnp.arange(3.0), name="weight")
    sf = StatefulFunction(lambda x: weight.value * x)
    outer = StatefulFunction(lambda x: sf(x) + 1)  # jitcheck's compiled wrapper, not a plain jax.jit (JC605)
    with jax.checking_leaks():
        out = outer(jnp.ones(3))
        with pytest.raises(StateUnderStaging):
            jax.jit(lambda x: sf(x) * 2)(jnp.ones(3))  # a cache hit inside a plain jit: refused, nothing leaked
    np.testing.assert_allclose(out, [1.0, 2.0, 3.0])
    assert sf.cache_info()["traces"] == 1
    _no_tracer_cached(sf)
    _no_tracer_cached(outer)
    np.testing.assert_allclose(sf(jnp.ones(3)), [0.0, 1.0, 2.0])  # reused at top level


def test_checking_leaks_passes_under_grad() -> None:
    weight = State(jnp.arange(3.0), name="weight")
    sf = StatefulFunction(lambda x: (weight.value * x**2).sum())
    with jax.checking_leaks():
        grad = jax.grad(sf)(jnp.ones(3))
    np.testing.assert_allclose(grad, [0.0, 2.0, 4.0])
    _no_tracer_cached(sf)


def test_checking_leaks_passes_nested_inside_another_stateful_function() -> None:
    total = State(jnp.zeros(()), name="total")
    inner = StatefulFunction(lambda x: total.value + x.sum())

    def outer(x: jax.Array) -> jax.Array:
        total.value = inner(x)
        return total.value

    sf = StatefulFunction(outer)
    with jax.checking_leaks():
        sf(jnp.ones(3))
        sf(jnp.ones(3))
    np.testing.assert_allclose(total.value, 6.0)
    _no_tracer_cached(sf)
    _no_tracer_cached(inner)


def test_a_function_closing_over_an_enclosing_tracer_is_not_cached() -> None:
    seen: list[jax.Array] = []

    def uses_closure(y: jax.Array) -> jax.Array:
        return y + seen[-1]

    sf = StatefulFunction(uses_closure)

    def outer(x: jax.Array) -> jax.Array:
        seen.append(x * 2)  # a tracer of the jit below, closed over by uses_closure
        out = sf(x)
        seen.clear()
        return out

    with jax.checking_leaks():
        out = jax.jit(outer)(jnp.ones(2))
    np.testing.assert_allclose(out, [3.0, 3.0])
    assert sf.cache_info()["size"] == 0 and sf.cache_info()["traces"] == 1


def test_a_write_under_a_plain_jax_transformation_is_refused_and_nothing_written() -> None:
    count = State(jnp.zeros(()), name="count")

    def bump(x: jax.Array) -> jax.Array:
        count.value = count.value + x.sum()
        return x * 2

    sf = StatefulFunction(bump)
    with pytest.raises(StateUnderStaging, match="JC605"):  # under jax.jit: refused before anything runs
        jax.jit(sf)(jnp.ones(2))
    for transformation, call in (
        ("differentiation", lambda: jax.grad(lambda x: sf(x).sum())(jnp.ones(2))),
        ("jax.vmap", lambda: jax.vmap(sf)(jnp.ones((3, 2)))),
    ):
        with pytest.raises(TracerInState) as raised:
            call()
        assert raised.value.codes == ("JC604",)
        text = str(raised.value)
        assert "State 'count'" in text and transformation in text and "nothing was written" in text
        assert not isinstance(count.value, Tracer)
    np.testing.assert_allclose(count.value, 0.0)
    sf(jnp.ones(2))  # at top level the same function writes
    np.testing.assert_allclose(count.value, 2.0)


def test_under_grad_a_write_that_does_not_depend_on_the_input_is_concrete_and_kept() -> None:
    count = State(jnp.zeros(()), name="count")

    def bump(x: jax.Array) -> jax.Array:
        count.value = count.value + 1  # jax computes it with the primal values: no tracer
        return (x * 2).sum()

    sf = StatefulFunction(bump)
    with jax.checking_leaks():
        np.testing.assert_allclose(jax.grad(sf)(jnp.ones(2)), [2.0, 2.0])
    assert not isinstance(count.value, Tracer)
    np.testing.assert_allclose(count.value, 1.0)


def test_a_write_inside_a_transformation_nested_in_the_traced_function_is_refused() -> None:
    count = State(jnp.zeros(()), name="count")

    def scans(x: jax.Array) -> jax.Array:
        def body(carry: jax.Array, _: None) -> tuple[jax.Array, None]:
            count.value = carry
            return carry + 1, None

        out, _ = jax.lax.scan(body, x.sum(), None, length=2)
        return out

    with pytest.raises(TracerInState) as raised:
        StatefulFunction(scans)(jnp.ones(2))
    assert "nested in the trace of `scans`" in str(raised.value)
    np.testing.assert_allclose(count.value, 0.0)


def test_a_read_inside_a_nested_transformation_is_collected() -> None:
    weight = State(jnp.full(2, 3.0), name="weight")

    def scans(x: jax.Array) -> jax.Array:
        def body(carry: jax.Array, _: None) -> tuple[jax.Array, None]:
            return carry * weight.value, None

        out, _ = jax.lax.scan(body, x, None, length=2)
        return out

    sf = StatefulFunction(scans)
    np.testing.assert_allclose(sf(jnp.ones(2)), [9.0, 9.0])
    assert sf.get_states() == (weight,)


def centred(x: jax.Array) -> jax.Array:
    return x - jax.lax.pmean(x, "batch") + OFFSET.value


OFFSET = State(jnp.full(3, 10.0), name="offset")


def test_axis_env_lets_a_collective_trace_and_run_under_vmap_with_that_axis_name() -> None:
    with pytest.raises(NameError, match="batch"):
        StatefulFunction(centred).make_jaxpr(jnp.ones(3))  # no axis named batch at top level
    sf = StatefulFunction(centred, axis_env=[("batch", 4)])
    sf.make_jaxpr(jnp.ones(3))
    assert "pmean" in str(sf.get_jaxpr()) or "psum" in str(sf.get_jaxpr())
    xs = jnp.arange(12.0).reshape(4, 3)
    _, out = jax.vmap(lambda x: sf.jaxpr_call([OFFSET.value], x), axis_name="batch")(xs)
    want = jax.vmap(centred, axis_name="batch")(xs)  # eager execution under vmap
    np.testing.assert_allclose(out, want)
    np.testing.assert_allclose(out, xs - xs.mean(axis=0) + 10.0)
    np.testing.assert_allclose(jax.vmap(sf, axis_name="batch")(xs), want)  # the call, too
    # traced at top level, then once more under vmap's axis environment, which jax.jit keys its cache on too
    assert sf.cache_info()["traces"] == 2


def test_jit_of_the_stateful_function_itself_is_refused_even_when_it_only_reads() -> None:
    weight = State(jnp.arange(3.0), name="weight")
    sf = StatefulFunction(lambda x: weight.value * x)
    with pytest.raises(StateUnderStaging, match="State 'weight'"):
        jax.jit(sf)(jnp.ones(3))  # would bake weight into the jitted program
    weight.value = jnp.ones(3)
    np.testing.assert_allclose(sf(jnp.ones(3)), [1.0, 1.0, 1.0])  # the value is read at each call


def test_disable_jit_runs_the_same_program() -> None:
    weight = State(jnp.arange(3.0), name="weight")
    count = State(jnp.zeros(()), name="count")

    def f(x: jax.Array) -> jax.Array:
        count.value = count.value + 1
        return weight.value * x

    sf = StatefulFunction(f)
    with jax.disable_jit():
        np.testing.assert_allclose(sf(jnp.ones(3)), [0.0, 1.0, 2.0])
        weight.reset(jnp.ones(4))
        np.testing.assert_allclose(sf(jnp.ones(4)), np.ones(4))
    np.testing.assert_allclose(count.value, 2.0)
