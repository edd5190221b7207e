"""StatefulFunction: cache-hit call overhead and first-trace time, against jax.jit and brainstate.

Three stateful functions: a small one (three states, arrays of a few elements, so
dispatch dominates), a larger one (a five-layer MLP whose weights, biases and step
counter are eleven states), and a real training step (loss, gradient and an SGD
update of every parameter State). Each is written with jitcheck States under
``jitcheck.StatefulFunction``; as the same pure function (states in, new states
out) under plain ``jax.jit``; and, when brainstate is installed (the ``bench``
extra), with brainstate States under ``brainstate.transform.jit`` (compiled: the
peer a user would pick, and the target) and ``brainstate.transform.StatefulFunction``
(eager: it interprets its jaxpr op by op; shown for reference).

A cache-hit call is timed after a warm-up call, so no trace or compile is in it. A
first trace is ``make_jaxpr`` on a fresh wrapper, against ``jax.make_jaxpr`` of a
fresh ``functools.partial`` of the pure function (so jax's own trace cache does not
answer it).
"""

from __future__ import annotations

import functools
import importlib
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from harness import Figure, Section, rotated_figure, rotating

import jitcheck

LAYERS = 5
WIDTH = 64
BATCH = 16


class Case:
    """One stateful function written the three ways, with a warm call of each."""

    name: str
    x: Any

    def jitcheck_function(self) -> Callable[..., Any]:
        raise NotImplementedError

    def brainstate_function(self, brainstate: Any) -> Callable[..., Any]:
        raise NotImplementedError

    def pure(self, *args: Any) -> Any:
        raise NotImplementedError

    def pure_args(self) -> tuple[Any, ...]:
        raise NotImplementedError


class Small(Case):
    """y = w @ x + b, and a step counter; w is 4x4."""

    name = "small"

    def __init__(self) -> None:
        self.x = jnp.ones(4)

    def jitcheck_function(self) -> Callable[..., Any]:
        w, b, count = jitcheck.State(jnp.ones((4, 4))), jitcheck.State(jnp.ones(4)), jitcheck.State(jnp.zeros(()))

        def step(x: jax.Array) -> jax.Array:
            count.value = count.value + 1
            return w.value @ x + b.value

        return step

    def brainstate_function(self, brainstate: Any) -> Callable[..., Any]:
        w, b, count = brainstate.State(jnp.ones((4, 4))), brainstate.State(jnp.ones(4)), brainstate.State(jnp.zeros(()))

        def step(x: jax.Array) -> jax.Array:
            count.value = count.value + 1
            return w.value @ x + b.value

        return step

    def pure(self, *args: Any) -> Any:
        w, b, count, x = args
        return w @ x + b, count + 1

    def pure_args(self) -> tuple[Any, ...]:
        return jnp.ones((4, 4)), jnp.ones(4), jnp.zeros(()), self.x


def _mlp_params() -> list[tuple[jax.Array, jax.Array]]:
    keys = jax.random.split(jax.random.key(0), LAYERS)
    return [(jax.random.normal(k, (WIDTH, WIDTH)) / WIDTH**0.5, jnp.zeros(WIDTH)) for k in keys]


class Larger(Case):
    """A five-layer MLP (64 wide, batch 16); its weights, biases and a step counter are states."""

    name = "larger (5-layer MLP)"

    def __init__(self) -> None:
        self.x = jnp.ones((BATCH, WIDTH))

    def _step(self, state: Callable[[Any], Any]) -> Callable[..., Any]:
        params = [(state(w), state(b)) for w, b in _mlp_params()]
        count = state(jnp.zeros(()))

        def step(x: jax.Array) -> jax.Array:
            for w, b in params:
                x = jnp.tanh(x @ w.value + b.value)
            count.value = count.value + 1
            return x

        return step

    def jitcheck_function(self) -> Callable[..., Any]:
        return self._step(jitcheck.State)

    def brainstate_function(self, brainstate: Any) -> Callable[..., Any]:
        return self._step(brainstate.State)

    def pure(self, *args: Any) -> Any:
        *flat, count, x = args
        for w, b in zip(flat[::2], flat[1::2]):
            x = jnp.tanh(x @ w + b)
        return x, count + 1

    def pure_args(self) -> tuple[Any, ...]:
        flat = [a for pair in _mlp_params() for a in pair]
        return (*flat, jnp.zeros(()), self.x)


class TrainingStep(Case):
    """A real training step: MSE loss of a three-layer MLP, its gradient, an SGD update of every weight, a counter.

    The eleven States (weights, biases, step counter) are read and all written at
    every step; the pure function takes them and returns their new values, which
    the next step gets (a training loop), so every baseline threads them through.
    """

    name = "training step (3-layer MLP, grad + SGD)"
    layers = 3
    rate = 1e-2

    def __init__(self) -> None:
        self.x = jnp.ones((BATCH, WIDTH))
        self.y = jnp.zeros((BATCH, WIDTH))

    def _params(self) -> list[tuple[jax.Array, jax.Array]]:
        return _mlp_params()[: self.layers]

    @staticmethod
    def _loss(params: list[tuple[jax.Array, jax.Array]], x: jax.Array, y: jax.Array) -> jax.Array:
        for w, b in params:
            x = jnp.tanh(x @ w + b)
        return jnp.mean((x - y) ** 2)

    def _step(self, state: Callable[[Any], Any]) -> Callable[..., Any]:
        params = [(state(w), state(b)) for w, b in self._params()]
        count = state(jnp.zeros(()))
        y = self.y

        def step(x: jax.Array) -> jax.Array:
            values = [(w.value, b.value) for w, b in params]
            loss, grads = jax.value_and_grad(self._loss)(values, x, y)
            for (w, b), (gw, gb) in zip(params, grads):
                w.value = w.value - self.rate * gw
                b.value = b.value - self.rate * gb
            count.value = count.value + 1
            return loss

        return step

    def jitcheck_function(self) -> Callable[..., Any]:
        return self._step(jitcheck.State)

    def brainstate_function(self, brainstate: Any) -> Callable[..., Any]:
        return self._step(brainstate.State)

    def pure(self, *args: Any) -> Any:
        *flat, count, x = args
        params = list(zip(flat[::2], flat[1::2]))
        loss, grads = jax.value_and_grad(self._loss)(params, x, self.y)
        new = [a - self.rate * g for (w, b), (gw, gb) in zip(params, grads) for a, g in ((w, gw), (b, gb))]
        return loss, (*new, count + 1)

    def pure_args(self) -> tuple[Any, ...]:
        flat = [a for pair in self._params() for a in pair]
        return (*flat, jnp.zeros(()), self.x)


def _brainstate() -> Any | None:
    try:
        return importlib.import_module("brainstate")
    except Exception:
        return None


def _hit_figures(case: Case, brainstate: Any | None, rounds: int) -> list[Figure]:
    """Every subject of ``case`` timed in the same rounds, rotating, the same number of calls each,
    each call waiting for its result."""
    sf = jitcheck.StatefulFunction(case.jitcheck_function())
    x = case.x
    jitted = jax.jit(case.pure)
    args = case.pure_args()
    wait = jax.block_until_ready

    # The pure function used statefully: the new state is the next call's input, as in
    # a training loop (a freshly computed input costs jax.jit's dispatch more).
    threaded_args = list(args)

    def threaded() -> Any:
        out, new = jitted(*threaded_args)
        if isinstance(new, tuple):
            threaded_args[: len(new)] = new
        else:
            threaded_args[-2] = new
        return wait(out)

    subjects: dict[str, Callable[[], Any]] = {
        "jitcheck": lambda: wait(sf(x)),
        "jax.jit": lambda: wait(jitted(*args)),
        "jax.jit threaded": threaded,
    }
    if brainstate is not None:
        compiled = brainstate.transform.jit(case.brainstate_function(brainstate))
        subjects["brainstate.transform.jit"] = lambda: wait(compiled(x))
        if not isinstance(case, TrainingStep):
            eager = brainstate.transform.StatefulFunction(case.brainstate_function(brainstate))
            subjects["brainstate StatefulFunction"] = lambda: wait(eager(x))
    for fn in subjects.values():  # warm: traced and compiled before any timing
        fn()
        fn()
    slowest = max(_once(fn) for fn in subjects.values())
    number = max(20, int(0.01 / slowest))
    times = rotating(subjects, rounds=rounds, number=number)
    name = f"cache-hit call, {case.name}"
    ours = "jitcheck.StatefulFunction"
    figures = [
        rotated_figure(name, times, "jitcheck", "jax.jit", subject_label=ours,
                       baseline_label="jax.jit of the pure function, same arrays every call"),
        rotated_figure(name, times, "jitcheck", "jax.jit threaded", subject_label=ours,
                       baseline_label="jax.jit of the pure function, new state threaded in",
                       target=1.2 if isinstance(case, Small) else 1.3),
    ]
    if "brainstate.transform.jit" in times:
        figures.append(rotated_figure(name, times, "jitcheck", "brainstate.transform.jit", subject_label=ours,
                                      baseline_label="brainstate.transform.jit (compiled)", target=1.0))
        figures.append(rotated_figure(name, times, "brainstate.transform.jit", "jax.jit threaded",
                                      subject_label="brainstate.transform.jit (compiled)",
                                      baseline_label="jax.jit of the pure function, new state threaded in"))
    if "brainstate StatefulFunction" in times:
        figures.append(rotated_figure(name, times, "jitcheck", "brainstate StatefulFunction", subject_label=ours,
                                      baseline_label="brainstate.transform.StatefulFunction (eager: runs its jaxpr op by op)",
                                      target=1.0))
    figures[0].note = f"{number} calls of each subject per round, {rounds} rounds"
    return figures


def _once(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return max(time.perf_counter() - start, 1e-7)


def _trace_figures(case: Case, brainstate: Any | None, rounds: int) -> list[Figure]:
    x = case.x
    args = case.pure_args()
    ours_fun = case.jitcheck_function()
    subjects: dict[str, Callable[[], Any]] = {
        "jitcheck": lambda: jitcheck.StatefulFunction(ours_fun).make_jaxpr(x),
        "jax": lambda: jax.make_jaxpr(functools.partial(case.pure))(*args),
    }
    if brainstate is not None:
        theirs_fun = case.brainstate_function(brainstate)
        subjects["brainstate"] = lambda: brainstate.transform.StatefulFunction(theirs_fun).make_jaxpr(x)
    for fn in subjects.values():
        fn()
    number = max(3, int(0.02 / max(_once(fn) for fn in subjects.values())))
    times = rotating(subjects, rounds=rounds, number=number)
    name = f"first trace, {case.name}"
    figures = [
        rotated_figure(name, times, "jitcheck", "jax", subject_label="jitcheck.StatefulFunction.make_jaxpr",
                       baseline_label="jax.make_jaxpr of the pure function", target=1.2)
    ]
    if "brainstate" in times:
        figures.append(rotated_figure(name, times, "jitcheck", "brainstate", subject_label="jitcheck.StatefulFunction.make_jaxpr",
                                      baseline_label="brainstate.transform.StatefulFunction.make_jaxpr"))
    return figures


def run(quick: bool) -> Section:
    """Measure both cases; brainstate's figures appear only when it is importable."""
    brainstate = _brainstate()
    rounds = 7 if quick else 41  # short batches, many rounds: the median of their ratios, and the best
    figures: list[Figure] = []
    for case in (Small(), Larger(), TrainingStep()):
        figures += _hit_figures(case, brainstate, rounds)
        if not isinstance(case, TrainingStep):
            figures += _trace_figures(case, brainstate, max(5, rounds // 3))
    notes = [
        "how: every subject of a case is timed in the same rounds, in an order that rotates each round, with "
        "the same number of calls each, and every call waits for its result (jax.block_until_ready); the "
        "ratio is the median of the per-round ratios (what the target is judged by) beside the ratio of the "
        "best rounds; the machine is shared and was loaded while measuring (2 cores, other work running), "
        "which the per-round ratios largely cancel",
        "cache-hit call: one call after warm-up calls, so no trace or compile: jitcheck computes the key, "
        "finds the entry, reads the states, makes one jax.jit dispatch of the compiled jaxpr and writes the "
        "written states back; the jax.jit baseline is the same computation as a pure function of the state "
        "values, dispatched with the same arrays every time; the 'new state threaded in' baseline passes "
        "each call's new counter to the next call, as a training loop does (jitcheck does the same with "
        "the written State), and a just-computed input costs jax.jit's dispatch more",
        "which is which: brainstate.transform.jit compiles the function with its states threaded through "
        "(the peer a user would pick); brainstate.transform.StatefulFunction called directly evaluates its "
        "jaxpr op by op, eagerly, and is shown for reference only. The target is against the compiled one",
        "training step: a real step (loss, jax.value_and_grad, SGD update of all seven States (three weights, three biases, the counter)); the pure "
        "jax.jit baseline gets the new parameters back and passes them to the next step, as a training loop does",
        "first trace: make_jaxpr on a newly built StatefulFunction (construction included) against "
        "jax.make_jaxpr of a new functools.partial of the pure function; brainstate likewise",
    ]
    if brainstate is None:
        notes.append(
            "brainstate is not installed here (`pip install -e .[bench]` adds it), so only jitcheck against "
            "jax is measured"
        )
    else:
        notes.append(f"brainstate {getattr(brainstate, '__version__', '?')}")
    return Section("StatefulFunction (jitcheck.stateful)", figures, notes)
