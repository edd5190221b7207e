"""Trace events for the debug layer's retrace watch, and the bounded cache on its own."""

from __future__ import annotations

from collections.abc import Iterator

import jax
import jax.numpy as jnp
import pytest

from jitcheck.core.events import ArgumentKey, TraceEvent, subscribe
from jitcheck.stateful import State, StatefulFunction
from jitcheck.stateful.cache import BoundedCache

WEIGHT = State(jnp.ones(3), name="weight")


def scaled(x: jax.Array, extra: dict[str, jax.Array], times: int) -> jax.Array:
    return x * WEIGHT.value * times + extra["b"]


@pytest.fixture
def events() -> Iterator[list[TraceEvent]]:
    seen: list[TraceEvent] = []
    unsubscribe = subscribe(seen.append)
    yield seen
    unsubscribe()


def test_each_new_cache_key_notifies_one_trace_event_with_its_arguments(events: list[TraceEvent]) -> None:
    sf = StatefulFunction(scaled, static_argnames="times")
    extra = {"b": jnp.zeros(3)}
    sf(jnp.ones(3), extra, 2)
    sf(jnp.ones(3), extra, 2)  # a hit: no event
    assert len(events) == 1
    event = events[0]
    assert event.owner is sf and event.name == "scaled"
    assert event.wraps is scaled  # counted per wrapped function: a StatefulFunction rebuilt per call is a retrace
    arguments = dict(event.arguments)
    assert arguments["args[2]"] == ArgumentKey("static", 2)
    assert arguments["args[0]"] == ArgumentKey("array", ((3,), jnp.dtype("float32"), False))  # a bare leaf
    assert arguments["args[1]"] == ArgumentKey("tree", jax.tree_util.tree_structure(extra))
    assert len(arguments) == len(event.arguments)  # every path once
    assert arguments["args[1]['b']"] == ArgumentKey("array", ((3,), jnp.dtype("float32"), False))
    assert arguments["state 'weight'"] == ArgumentKey("array", ((3,), jnp.dtype("float32"), False))

    sf(jnp.ones(3), extra, 3)
    assert len(events) == 2
    assert dict(events[1].arguments)["args[2]"] == ArgumentKey("static", 3)


def test_a_retrace_for_a_changed_state_is_an_event_showing_the_new_state_shape(events: list[TraceEvent]) -> None:
    state = State(jnp.ones(2), name="grown")
    sf = StatefulFunction(lambda x: x.sum() * state.value)
    sf(jnp.ones(3))
    state.reset(jnp.ones(5))
    sf(jnp.ones(3))
    assert [dict(e.arguments)["state 'grown'"].payload[0] for e in events] == [(2,), (5,)]


def test_no_listener_no_cost_path_still_traces() -> None:
    sf = StatefulFunction(scaled, static_argnums=2)
    sf(jnp.ones(3), {"b": jnp.zeros(3)}, 1)
    assert sf.cache_info()["traces"] == 1


def test_bounded_cache_evicts_the_least_recently_used() -> None:
    cache: BoundedCache[str] = BoundedCache(maxsize=2)
    cache.put("a", "A")
    cache.put("b", "B")
    assert cache.get("a") == "A"  # a is now more recent than b
    cache.put("c", "C")
    assert "b" not in cache and cache.keys() == ["a", "c"]
    assert cache.peek("a") == "A"
    cache.put("c", "C2")  # a replacement evicts nothing
    assert len(cache) == 2 and cache.get("c") == "C2"
    cache.discard("a", "other")  # only the entry it names
    assert "a" in cache
    cache.discard("a", "A")
    assert "a" not in cache
    cache.clear()
    assert len(cache) == 0 and cache.get("c") is None
