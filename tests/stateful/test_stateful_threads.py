"""The cache under 8 threads: no missing entry while entries are re-traced, no wrong result."""

from __future__ import annotations

import threading
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jitcheck.stateful import State, StatefulFunction
from jitcheck.stateful.cache import BoundedCache

THREADS = 8


def _run(workers: list[Callable[[], None]]) -> list[BaseException]:
    errors: list[BaseException] = []
    start = threading.Barrier(len(workers))

    def guarded(work: Callable[[], None]) -> None:
        try:
            start.wait()
            work()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(work,)) for work in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=900)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    return errors


def test_threads_with_mixed_keys_never_miss_an_entry_while_it_is_retraced() -> None:
    # ``scale`` flips between shape () and (1,): every flip makes every entry stale,
    # and each stale entry is traced again while the other threads keep calling.
    scale = State(jnp.asarray(2.0, jnp.float32), name="scale")

    def times_scale(x: jax.Array) -> jax.Array:
        return x * scale.value

    sf = StatefulFunction(times_scale)
    inputs = [jnp.arange(1.0, n + 1.0) for n in range(1, 5)]  # four cache keys
    keys = [sf.get_arg_cache_key(x) for x in inputs]
    for x in inputs:
        sf(x)
    done = threading.Event()
    # Progress is counted in calls, never in seconds: the flipper waits for 20 more
    # calls after each flip, or for every caller to have run out of iterations.
    progress = threading.Condition()
    counts = {"calls": 0, "finished": 0}
    callers = THREADS - 1

    def caller(offset: int) -> Callable[[], None]:
        def work() -> None:
            i = 0
            try:
                while (i < 10 or not done.is_set()) and i < 3000:
                    x = inputs[(offset + i) % len(inputs)]
                    np.testing.assert_allclose(sf(x), 2 * np.asarray(x))
                    for key in keys:
                        sf.get_jaxpr(key)  # never missing
                        assert sf.get_states(key) == (scale,)
                    with progress:
                        counts["calls"] += 1
                        progress.notify_all()
                    i += 1
            finally:
                with progress:
                    counts["finished"] += 1
                    progress.notify_all()

        return work

    def flipper() -> None:
        try:
            for i in range(6):
                scale.reset(jnp.full((1,) if i % 2 == 0 else (), 2.0, jnp.float32))
                with progress:
                    wanted = counts["calls"] + 20  # let the callers meet this shape before the next flip
                    progress.wait_for(lambda: counts["calls"] >= wanted or counts["finished"] == callers)
        finally:
            done.set()

    errors = _run([caller(i) for i in range(THREADS - 1)] + [flipper])
    assert errors == []
    assert done.is_set()
    assert sf.cache_info()["size"] == 4
    assert sf.cache_info()["traces"] > 4 * 3  # entries were re-traced meanwhile


def test_threads_with_more_keys_than_the_cache_holds_always_get_right_results() -> None:
    offset = State(jnp.asarray(1.0, jnp.float32), name="offset")
    sf = StatefulFunction(lambda x: x + offset.value, maxsize=2)
    inputs = [jnp.zeros(n) for n in range(1, 5)]

    def caller(start: int) -> Callable[[], None]:
        def work() -> None:
            for i in range(5):
                x = inputs[(start + i) % len(inputs)]
                np.testing.assert_allclose(sf(x), np.ones(x.shape))

        return work

    assert _run([caller(i) for i in range(THREADS)]) == []
    assert sf.cache_info()["size"] <= 2
    assert sf.cache_info()["traces"] > 4  # evicted keys came back and were traced again


def test_bounded_cache_replaces_in_place_and_never_shows_a_gap() -> None:
    cache: BoundedCache[int] = BoundedCache(maxsize=4)
    cache.put("k", 0)
    seen_none: list[int] = []

    def writer() -> None:
        for i in range(1, 2000):
            cache.put("k", i)

    def reader() -> None:
        for _ in range(2000):
            if cache.get("k") is None:
                seen_none.append(1)

    assert _run([writer, reader, reader, reader]) == []
    assert seen_none == []
    assert cache.get("k") == 1999
