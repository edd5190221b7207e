"""A function a thread runs (``threading.Thread(target=f, args=...)``) is called where the thread is made: once per
iteration of a loop that starts one thread per actor, in this process and with its jit caches. A jit built in
that function is built again in every thread, and compiles the same computation again unless the threads hand it
what makes another program."""

from __future__ import annotations

import textwrap

from jitcheck.lint.check import check_source

from .support import HEADER, compiles_of, shown

_ACTORS = """\
    import threading

    def rollout(params, steps, results, slot):
        @jax.jit
        def act(params, obs):
            return jnp.tanh(params * obs)

        obs = jnp.ones(3)
        for _ in range(steps):
            obs = act(params, obs)
        results[slot] = obs

    def run_actors(count):
        results = {}
        threads = []
        for slot in range(count):
            thread = threading.Thread(target=rollout, args=(jnp.ones(3), 4, results, slot))
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()
        return results
    """


def test_a_jit_built_in_each_actor_thread_is_reported() -> None:
    assert shown(_ACTORS) == [(4, "JC105")]
    assert compiles_of(_ACTORS, "run_actors(3)", "act") == 3  # one program, compiled in each of the 3 threads
    # The help's fix: `act` at module level, what it captured passed as arguments: one compile for all threads.
    hoisted = _ACTORS.replace("    def rollout(params, steps, results, slot):\n        @jax.jit\n        def act(params, obs):\n"
                              "            return jnp.tanh(params * obs)\n",
                              "    @jax.jit\n    def act(params, obs):\n        return jnp.tanh(params * obs)\n\n"
                              "    def rollout(params, steps, results, slot):\n")
    assert hoisted != _ACTORS
    assert shown(hoisted) == []
    assert compiles_of(hoisted, "run_actors(3)", "act") == 1


def test_the_message_and_evidence_name_the_thread_not_a_call() -> None:
    # The code has no call of `rollout`: the message says what it shows, a thread started in a loop.
    offset = HEADER.count("\n")
    found = [f for f in check_source(HEADER + textwrap.dedent(_ACTORS), "actors.py") if f.code == "JC105"]
    assert len(found) == 1
    assert "on every call of `rollout`, run by threads started in a loop:" in found[0].message
    assert [(r.kind, r.line - offset) for r in found[0].evidence.again] == [("thread-in-loop", 17)]  # the `Thread(...)` line
    assert "the target of a thread started in a loop" in found[0].evidence.again[0].text


def test_the_arguments_a_thread_is_given_by_name_are_its_call_arguments() -> None:
    by_name = _ACTORS.replace("args=(jnp.ones(3), 4, results, slot)",
                              'args=(jnp.ones(3),), kwargs={"steps": 4, "results": results, "slot": slot}')
    assert shown(by_name) == [(4, "JC105")]
    assert compiles_of(by_name, "run_actors(2)", "act") == 2


def test_one_thread_started_once_is_one_run() -> None:
    once = _ACTORS.replace("for slot in range(count):", "for slot in [0][:count]:").replace(
        "        for slot in [0][:count]:\n            thread", "        slot = 0\n        if count:\n            thread")
    assert "for slot" not in once
    assert shown(once) == []
    assert compiles_of(once, "run_actors(1)", "act") == 1


def test_threads_handed_what_makes_another_program_are_not_the_same_computation() -> None:
    # Each thread is handed another width, which the rebuilt jit reads as a shape: another program per thread.
    widths = _ACTORS.replace("def rollout(params, steps, results, slot):", "def rollout(width, steps, results, slot):") \
        .replace("return jnp.tanh(params * obs)", "return jnp.tanh(params * jnp.tile(obs, width)[:3])") \
        .replace("obs = act(params, obs)", "obs = act(jnp.ones(3), obs)") \
        .replace("for slot in range(count):", "for slot, width in enumerate((1, 2, 3)[:count]):") \
        .replace("args=(jnp.ones(3), 4, results, slot)", "args=(width, 4, results, slot)")
    assert shown(widths) == []
    assert compiles_of(widths, "run_actors(3)", "act") == 3  # three widths, three programs


def _default(body: str, path: str) -> list[tuple[int, str]]:
    """The default selection's findings of ``body`` (after HEADER) checked as the module at ``path``, lines counted
    from the body's first line."""
    offset = HEADER.count("\n")
    found = check_source(HEADER + textwrap.dedent(body), path)
    return [(f.line - offset, f.code) for f in found if f.confidence == "high"]


def test_an_actor_timing_its_rollouts_for_its_log_is_not_a_benchmark() -> None:
    # A training script's actor reads the clock around each update to log its rollout time: the work is what it
    # wants, and each thread still compiles the same `act` again. Where measuring is the point (a module or a
    # function named for it), the clock marks compiling on purpose.
    timed = "    import time\n" + _ACTORS.replace(
        "        for _ in range(steps):\n            obs = act(params, obs)\n",
        "        for _ in range(steps):\n            start = time.time()\n            obs = act(params, obs)\n"
        "            print('rollout_time', time.time() - start)\n")
    assert timed.count("time.time()") == 2
    assert _default(timed, "scripts/train_actors.py") == [(5, "JC105")]
    assert compiles_of(timed, "run_actors(2)", "act") == 2
    assert _default(timed, "benchmarks/actor_speed.py") == []
    assert _default(timed.replace("rollout", "benchmark_rollout"), "scripts/train_actors.py") == []
