"""Issue 24: seven answers checked against the oracle (eager jax or plain ``jax.jit``).

Each test asserts the oracle's value, or a loud refusal with its rule code.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitcheck import JitGraph, NestingGraph, NodeDefinition
from jitcheck.core.violations import Refused
from jitcheck.stateful import (
    State,
    StatefulError,
    StatefulFunction,
    StateFromTrace,
    StateUnderStaging,
    StaticArgumentRefused,
    TracerInState,
)


def codes(error: BaseException) -> set[str]:
    return {found.rule.code for found in getattr(error, "violations", ())}


# ---- 1. jax's configuration is part of every cache key ---------------------------------


def _to_float_third(x: jax.Array) -> jax.Array:
    return x.astype(float) / 3


def test_x64_switched_between_calls_gives_jax_jit_dtype_both_ways() -> None:
    sf = StatefulFunction(_to_float_third)
    oracle = jax.jit(_to_float_third)
    x = jnp.ones(2, jnp.int32)
    assert sf(x).dtype == oracle(x).dtype == jnp.float32
    with jax.enable_x64(True):
        assert oracle(x).dtype == jnp.float64
        assert sf(x).dtype == jnp.float64
        np.testing.assert_allclose(sf(x), oracle(x))
    assert sf(x).dtype == jnp.float32


def test_x64_switch_reaches_the_states_read() -> None:
    w = State(np.arange(3, dtype=np.int32), name="w")
    sf = StatefulFunction(lambda x: w.value.astype(float) * x)
    sf(jnp.asarray(2.0))
    with jax.enable_x64(True):
        assert sf(jnp.asarray(2.0)).dtype == jax.jit(lambda x: jnp.arange(3).astype(float) * x)(jnp.asarray(2.0)).dtype


def test_strict_dtype_promotion_refuses_as_jax_jit_does() -> None:
    def add(x: jax.Array, y: jax.Array) -> jax.Array:
        return x + y

    sf = StatefulFunction(add)
    x, y = jnp.ones(2, jnp.int32), jnp.ones(2, jnp.float32)
    sf(x, y)
    with jax.numpy_dtype_promotion("strict"):
        with pytest.raises(Exception) as oracle:
            jax.jit(add)(x, y)
        with pytest.raises(type(oracle.value)):
            sf(x, y)
    np.testing.assert_allclose(sf(x, y), add(x, y))


def test_make_jaxpr_traces_again_under_another_configuration() -> None:
    sf = StatefulFunction(_to_float_third)
    x = jnp.ones(2, jnp.int32)
    sf.make_jaxpr(x)
    assert sf.get_jaxpr().out_avals[0].dtype == jnp.float32
    with jax.enable_x64(True):
        sf.make_jaxpr(x)
        assert sf.get_jaxpr().out_avals[0].dtype == jnp.float64


def test_a_configuration_switched_back_and_forth_traces_each_once() -> None:
    traces = []

    def f(x: jax.Array) -> jax.Array:
        traces.append(1)
        return x.astype(float) / 3

    sf = StatefulFunction(f)
    x = jnp.ones(2, jnp.int32)
    for _ in range(3):
        assert sf(x).dtype == jnp.float32
        with jax.enable_x64(True):
            assert sf(x).dtype == jnp.float64
    assert len(traces) == 2


def test_jit_call_follows_x64_as_jax_jit_does() -> None:
    graph = JitGraph(NestingGraph({"n": NodeDefinition(_to_float_third, ("x",), ("y",))}))
    x = jnp.ones(2, jnp.int32)
    assert graph.jit_call({"x": x})["y"].dtype == jnp.float32
    with jax.enable_x64(True):
        assert graph.jit_call({"x": x})["y"].dtype == jnp.float64
    assert graph.jit_call({"x": x})["y"].dtype == jnp.float32


# ---- 2. a write in a body that may never run ----------------------------------------------


def assert_refused_unwritten(call: Any, state: State, *texts: str) -> None:
    """``call()`` is refused with JC604 naming ``texts``, and ``state`` keeps its value."""
    before = np.asarray(state.value)
    with pytest.raises(TracerInState) as refused:
        call()
    assert "JC604" in codes(refused.value)
    for text in texts:
        assert text in str(refused.value)
    np.testing.assert_array_equal(state.value, before)


def test_a_write_in_a_cond_branch_not_taken_is_refused_or_not_written() -> None:
    a, b = State(jnp.full(3, 5.0), name="a"), State(jnp.ones(3), name="b")

    def f(pred: jax.Array) -> jax.Array:
        av = a.value

        def yes() -> int:
            b.value = av
            return 0

        jax.lax.cond(pred, yes, lambda: 0)
        return b.value.sum()

    assert_refused_unwritten(lambda: StatefulFunction(f)(jnp.asarray(False)), b, "State 'b'", "jax.lax.cond")


def test_a_numpy_constant_written_in_a_zero_length_scan_is_refused() -> None:
    b = State(jnp.ones(3), name="b")

    def f(x: jax.Array) -> jax.Array:
        def body(carry: Any, _: Any) -> tuple[Any, None]:
            b.value = np.full(3, 2.0, np.float32)
            return carry, None

        jax.lax.scan(body, 0, None, length=0)
        return b.value.sum() * x

    assert_refused_unwritten(lambda: StatefulFunction(f)(jnp.ones(())), b, "jax.lax.scan")


def test_an_outer_tracer_written_in_a_while_body_that_never_runs_is_refused() -> None:
    b = State(jnp.ones(3), name="b")

    def f(x: jax.Array) -> jax.Array:
        doubled = x * 2

        def body(i: jax.Array) -> jax.Array:
            b.value = doubled
            return i + 1

        jax.lax.while_loop(lambda i: i < 0, body, 0)
        return b.value.sum()

    assert_refused_unwritten(lambda: StatefulFunction(f)(jnp.ones(3)), b, "jax.lax.while_loop")


def test_reads_in_bodies_and_writes_after_them_still_equal_plain_jax() -> None:
    a, b = State(jnp.full(3, 5.0)), State(jnp.ones(3))

    def f(pred: jax.Array) -> jax.Array:
        chosen = jax.lax.cond(pred, lambda: a.value, lambda: b.value)
        b.value = chosen
        return chosen.sum()

    sf = StatefulFunction(f)
    assert float(sf(jnp.asarray(False))) == 3.0
    assert float(sf(jnp.asarray(True))) == 15.0
    np.testing.assert_array_equal(b.value, jnp.full(3, 5.0))


# ---- 3 and 4. node settings that the cache key cannot see (a State: JC606; an array: JC201) ------------------------------


def scale_by_state(x: jax.Array, *, s: State) -> jax.Array:
    return x * s.value


def test_a_state_as_a_node_setting_is_refused_at_construction() -> None:
    w = State(jnp.ones(2), name="w")
    with pytest.raises(Refused) as refused:
        JitGraph(NestingGraph({"n": NodeDefinition(scale_by_state, ("x",), ("y",), {"s": w})}))
    assert "JC606" in codes(refused.value)
    assert "settings['s']" in str(refused.value)
    assert "State" in str(refused.value)


def test_a_state_inside_a_frozen_setting_is_refused() -> None:
    w = State(jnp.ones(2), name="w")
    with pytest.raises(Refused) as refused:
        JitGraph(NestingGraph({"n": NodeDefinition(scale_by_state, ("x",), ("y",), {"s": (1, w)})}))
    assert "JC606" in codes(refused.value)
    assert "settings['s'][1]" in str(refused.value)


def test_a_state_as_a_static_argument_of_a_stateful_function_is_still_allowed() -> None:
    w = State(jnp.ones(2), name="w")
    sf = StatefulFunction(scale_by_state, static_argnames="s")
    np.testing.assert_allclose(sf(jnp.ones(2), s=w), jnp.ones(2))
    w.value = jnp.full(2, 7.0)
    np.testing.assert_allclose(sf(jnp.ones(2), s=w), jnp.full(2, 7.0))


@dataclasses.dataclass(frozen=True)
class Scaled:
    name: str
    factor: Any = dataclasses.field(compare=False, default=None)


def scale_by_field(x: jax.Array, *, c: Scaled) -> jax.Array:
    return x * c.factor


def test_an_array_in_a_compare_false_field_of_a_setting_is_refused() -> None:
    with pytest.raises(Refused) as refused:
        JitGraph(NestingGraph({"n": NodeDefinition(scale_by_field, ("x",), ("y",), {"c": Scaled("a", jnp.ones(2))})}))
    assert "JC201" in codes(refused.value)
    assert "settings['c'].factor" in str(refused.value)


def test_an_array_in_a_compare_false_field_of_a_static_argument_is_refused() -> None:
    sf = StatefulFunction(scale_by_field, static_argnames="c")
    with pytest.raises(StaticArgumentRefused) as refused:
        sf(jnp.ones(2), c=Scaled("a", jnp.full(2, 5.0)))
    assert "JC201" in codes(refused.value)
    assert "kwargs['c'].factor" in str(refused.value)


# ---- 6. a State read under a plain jax.jit -----------------------------------------------


def test_a_state_read_inside_a_plain_jit_is_refused() -> None:
    w = State(jnp.ones(2), name="w")
    f = jax.jit(lambda x: x * w.value)
    with pytest.raises(StateUnderStaging) as refused:
        f(jnp.ones(2))
    assert "JC605" in codes(refused.value)
    assert "State 'w'" in str(refused.value)
    assert "jax.jit" in str(refused.value)


def test_a_state_written_inside_a_plain_jit_is_refused() -> None:
    w = State(jnp.ones(2), name="w")

    def f(x: jax.Array) -> jax.Array:
        w.value = np.full(2, 3.0, np.float32)
        return x

    with pytest.raises(StateUnderStaging) as refused:
        jax.jit(f)(jnp.ones(2))
    assert "JC605" in codes(refused.value)
    np.testing.assert_array_equal(w.value, jnp.ones(2))


def test_a_state_read_under_eager_grad_and_vmap_stays_allowed() -> None:
    w = State(jnp.full(2, 3.0))
    assert jax.grad(lambda x: (x * w.value).sum())(jnp.ones(2)).tolist() == [3.0, 3.0]
    assert jax.vmap(lambda x: x * w.value)(jnp.ones((2, 2))).tolist() == [[3.0, 3.0], [3.0, 3.0]]


# ---- 7. a State created inside the traced function --------------------------------------


def test_a_state_created_inside_a_stateful_trace_is_refused_with_the_fix() -> None:
    holder: dict[str, State] = {}

    def f(x: jax.Array) -> jax.Array:
        if "s" not in holder:
            holder["s"] = State(jnp.zeros(()), name="lazy")
        holder["s"].value = holder["s"].value + 1
        return holder["s"].value

    with pytest.raises(StateFromTrace) as refused:
        StatefulFunction(f)(jnp.ones(()))
    assert "JC603" in codes(refused.value)
    text = str(refused.value)
    assert "'lazy'" in text and "outside" in text
    assert "new State" in text


def test_a_state_created_inside_a_plain_jit_is_refused() -> None:
    with pytest.raises(StatefulError) as refused:
        jax.jit(lambda x: State(np.zeros(2, np.float32)).value + x)(jnp.ones(2))
    assert codes(refused.value) & {"JC603", "JC605"}
