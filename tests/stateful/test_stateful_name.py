"""StatefulFunction's ``name=`` (docs/stateful.md): the name in its messages, its repr and its trace events."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitcheck.core import events
from jitcheck.stateful import State, StatefulFunction
from jitcheck.stateful.errors import UnknownCacheKey


def test_name_replaces_the_function_name_in_messages_repr_and_trace_events() -> None:
    weight = State(jnp.ones(3), name="weight")

    def step(x: jax.Array) -> jax.Array:
        return x * weight.value

    named = StatefulFunction(step, name="trainer")
    assert named.name == "trainer"
    assert repr(named) == "StatefulFunction(trainer, cached=0/128)"
    assert repr(StatefulFunction(step)) == "StatefulFunction(step, cached=0/128)"
    seen: list[events.TraceEvent] = []
    stop = events.subscribe(seen.append)
    try:
        named(jnp.ones(3))
    finally:
        stop()
    (event,) = seen
    assert event.name == "trainer" and event.owner is named
    with pytest.raises(UnknownCacheKey, match=r"^StatefulFunction `trainer` has no trace under the cache key"):
        named.get_jaxpr(named.get_arg_cache_key(jnp.ones(5)))
    with pytest.raises(TypeError, match=r"^jaxpr_call of `trainer` takes the State values"):
        named.jaxpr_call(3, jnp.ones(3))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"StatefulFunction `trainer`: abstracted_axes="):
        StatefulFunction(step, abstracted_axes=("n",), name="trainer")
