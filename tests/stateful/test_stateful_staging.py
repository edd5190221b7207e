"""A StatefulFunction under jax.jit, grad, vmap, scan and cond: the right numbers, or a refusal (JC605).

A plain staging transformation (``jax.jit``, ``lax.scan``, ``lax.cond``) would bake a
State's value into a program jax caches: refused, naming the State and the right
way. Eager ``grad`` and ``vmap`` read the States afresh at every call and are
allowed. Every number is compared with the same computation in pure jax.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck.stateful import State, StatefulFunction, StateUnderStaging

X = jnp.array([1.0, 2.0, 3.0])
W0 = jnp.array([0.5, -1.0, 2.0])
W1 = jnp.array([10.0, 20.0, -3.0])


def pure(w: jax.Array, x: jax.Array) -> jax.Array:
    return jnp.sin(w * x) + w


def make() -> tuple[State, StatefulFunction]:
    w = State(W0, name="w")
    return w, StatefulFunction(lambda x: jnp.sin(w.value * x) + w.value)


def _refused(call: object, transformation: str) -> StateUnderStaging:
    with pytest.raises(StateUnderStaging) as raised:
        call()  # type: ignore[operator]
    error = raised.value
    assert error.codes == ("JC605",)
    text = str(error)
    assert "State 'w'" in text and transformation in text
    assert "jitcheck.StatefulFunction" in text and "jaxpr_call(state_values" in text
    assert isinstance(error, RuntimeError)
    return error


def test_plain_jit_is_refused_where_it_used_to_keep_the_first_value() -> None:
    w, sf = make()
    outer = jax.jit(lambda x: sf(x) * 2)
    error = _refused(lambda: outer(X), "jax.jit of `<lambda>`")
    assert "test_stateful_staging.py" in str(error)  # the user's jitted function, by its source line
    w.value = W1
    _refused(lambda: outer(X), "jax.jit")  # still refused: never the stale value
    _refused(lambda: jax.jit(sf)(X), "jax.jit")  # jit of the StatefulFunction itself
    np.testing.assert_allclose(sf(X), pure(W1, X), rtol=1e-6)  # at top level it runs, with today's value


def test_the_right_ways_under_jit_follow_every_change_of_the_state() -> None:
    w, sf = make()
    outer_sf = StatefulFunction(lambda x: sf(x) * 2)  # compiled; the State is an input at each call

    @jax.jit
    def explicit(state_values: list[jax.Array], x: jax.Array) -> jax.Array:
        _, out = sf.jaxpr_call(state_values, x)
        return out * 2

    reference = jax.jit(lambda w_, x: pure(w_, x) * 2)
    for value in (W0, W1, W0 * 3):
        w.value = value
        want = reference(value, X)
        np.testing.assert_allclose(outer_sf(X), want, rtol=1e-6)
        np.testing.assert_allclose(explicit([s.value for s in sf.get_states()], X), want, rtol=1e-6)
    assert outer_sf.cache_info()["traces"] == 1
    assert explicit._cache_size() == 1  # type: ignore[attr-defined]


def test_a_stateful_function_without_states_runs_under_plain_jit() -> None:
    sf = StatefulFunction(lambda x: jnp.cos(x) * 3)
    np.testing.assert_allclose(jax.jit(lambda x: sf(x) + 1)(X), jnp.cos(X) * 3 + 1, rtol=1e-6)


def test_grad_reads_the_current_state_and_matches_pure_jax() -> None:
    w, sf = make()
    grad = jax.grad(lambda x: sf(x).sum())
    for value in (W0, W1):
        w.value = value
        np.testing.assert_allclose(grad(X), jax.grad(lambda x: pure(value, x).sum())(X), rtol=1e-6)
    # grad with respect to the State's value: jaxpr_call with the value as the differentiated argument
    by_w = jax.grad(lambda w_: sf.jaxpr_call([w_], X)[1].sum())(W1)
    np.testing.assert_allclose(by_w, jax.grad(lambda w_: pure(w_, X).sum())(W1), rtol=1e-6)
    _refused(lambda: jax.jit(grad)(X), "jax.jit")  # grad staged by a jit: refused
    outer_sf = StatefulFunction(grad)  # the right way: compiled, the State an input
    np.testing.assert_allclose(outer_sf(X), jax.grad(lambda x: pure(W1, x).sum())(X), rtol=1e-6)


def test_vmap_reads_the_current_state_and_matches_pure_jax() -> None:
    w, sf = make()
    xs = jnp.arange(12.0).reshape(4, 3) / 7
    for value in (W0, W1):
        w.value = value
        np.testing.assert_allclose(jax.vmap(sf)(xs), jax.vmap(lambda x: pure(value, x))(xs), rtol=1e-6)
    np.testing.assert_allclose(StatefulFunction(jax.vmap(sf))(xs), jax.vmap(lambda x: pure(W1, x))(xs), rtol=1e-6)


def test_scan_plain_is_refused_and_inside_a_stateful_function_is_right() -> None:
    w, sf = make()
    steps = State(jnp.zeros((), jnp.int32), name="steps")

    def body(carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        out = carry + sf(x)
        return out, out.sum()

    def run(xs: jax.Array) -> tuple[jax.Array, jax.Array]:
        return jax.lax.scan(body, jnp.zeros(3), xs)

    xs = jnp.arange(6.0).reshape(2, 3)
    _refused(lambda: run(xs), "jax.lax.scan of `body`")

    def counted(xs: jax.Array) -> tuple[jax.Array, jax.Array]:
        steps.value = steps.value + xs.shape[0]
        return run(xs)

    run_sf = StatefulFunction(counted)

    def reference(w_: jax.Array, xs: jax.Array) -> tuple[jax.Array, jax.Array]:
        def ref_body(carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
            out = carry + pure(w_, x)
            return out, out.sum()

        return jax.lax.scan(ref_body, jnp.zeros(3), xs)

    for value in (W0, W1):
        w.value = value
        got, want = run_sf(xs), reference(value, xs)
        for g, r in zip(got, want):
            np.testing.assert_allclose(g, r, rtol=1e-6)
    assert int(steps.value) == 4
    assert set(run_sf.get_states()) == {w, steps}
    assert run_sf.cache_info()["traces"] == 1


def test_cond_plain_is_refused_and_inside_a_stateful_function_is_right() -> None:
    w, sf = make()

    def branch(x: jax.Array) -> jax.Array:
        return sf(x)

    def choose(flag: jax.Array, x: jax.Array) -> jax.Array:
        return jax.lax.cond(flag, branch, lambda x: x * 0 - 1, x)

    _refused(lambda: choose(jnp.asarray(True), X), "jax.lax.cond")
    choose_sf = StatefulFunction(choose)
    for value in (W0, W1):
        w.value = value
        for flag in (True, False):
            want = pure(value, X) if flag else X * 0 - 1
            np.testing.assert_allclose(choose_sf(jnp.asarray(flag), X), want, rtol=1e-6)
    assert choose_sf.cache_info()["traces"] == 1


def test_a_write_under_plain_jit_is_refused_before_anything_is_written() -> None:
    count = State(jnp.zeros(()), name="count")

    def bump(x: jax.Array) -> jax.Array:
        count.value = count.value + 1
        return x

    sf = StatefulFunction(bump)
    with pytest.raises(StateUnderStaging, match="State 'count'"):
        jax.jit(sf)(X)
    np.testing.assert_allclose(count.value, 0.0)
    sf(X)
    np.testing.assert_allclose(count.value, 1.0)
