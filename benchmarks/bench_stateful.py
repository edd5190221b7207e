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
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from harness import Figure, Section, calibrate, interleaved

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


def _hit_figures(case: Case, brainstate: Any | None, repeat: int) -> list[Figure]:
    sf = jitcheck.StatefulFunction(case.jitcheck_function())
    x = case.x
    jitted = jax.jit(case.pure)
    args = case.pure_args()
    jax.block_until_ready(sf(x))
    jax.block_until_ready(jitted(*args))

    def ours() -> Any:
        return sf(x)

    def plain() -> Any:
        return jitted(*args)

    # The pure function used statefully: the new counter is the next call's input,
    # as in a training loop (a freshly computed input costs jax.jit's dispatch more).
    threaded_args = list(args)

    def threaded() -> Any:
        out, new = jitted(*threaded_args)
        if isinstance(new, tuple):
            threaded_args[: len(new)] = new
        else:
            threaded_args[-2] = new
        return out

    number = calibrate(plain, budget=0.01)
    ours_s, plain_s = interleaved(ours, plain, repeat=repeat, number=number)
    ours_t, threaded_s = interleaved(ours, threaded, repeat=repeat, number=number)
    figures = [
        Figure(
            f"cache-hit call, {case.name}",
            "jitcheck.StatefulFunction",
            "jax.jit of the pure function, same arrays every call",
            ours_s,
            plain_s,
        ),
        Figure(
            f"cache-hit call, {case.name}",
            "jitcheck.StatefulFunction",
            "jax.jit of the pure function, new state threaded in",
            ours_t,
            threaded_s,
            target=1.3,
        ),
    ]
    if brainstate is not None:
        # brainstate's compiled path, the peer a user would pick: brainstate.transform.jit.
        compiled = brainstate.transform.jit(case.brainstate_function(brainstate))
        jax.block_until_ready(compiled(x))

        def theirs_jit() -> Any:
            return compiled(x)

        ours_j, theirs_j = interleaved(ours, theirs_jit, repeat=repeat, number=calibrate(theirs_jit, budget=0.01))
        _, threaded_j = interleaved(theirs_jit, threaded, repeat=repeat, number=number)
        figures.append(
            Figure(
                f"cache-hit call, {case.name}",
                "jitcheck.StatefulFunction",
                "brainstate.transform.jit (compiled)",
                ours_j,
                theirs_j,
                target=1.0,
            )
        )
        figures.append(
            Figure(
                f"cache-hit call, {case.name}",
                "brainstate.transform.jit (compiled)",
                "jax.jit of the pure function, new state threaded in",
                theirs_j,
                threaded_j,
            )
        )
    if brainstate is not None and not isinstance(case, TrainingStep):
        theirs_sf = brainstate.transform.StatefulFunction(case.brainstate_function(brainstate))
        jax.block_until_ready(theirs_sf(x))

        def theirs() -> Any:
            return theirs_sf(x)

        ours_s2, theirs_s = interleaved(ours, theirs, repeat=repeat, number=calibrate(theirs, budget=0.01))
        figures.append(
            Figure(
                f"cache-hit call, {case.name}",
                "jitcheck.StatefulFunction",
                "brainstate.transform.StatefulFunction (eager: runs its jaxpr op by op)",
                ours_s2,
                theirs_s,
                target=1.0,
            )
        )
        figures.append(
            Figure(
                f"cache-hit call, {case.name}",
                "brainstate.transform.StatefulFunction (eager)",
                "jax.jit of the pure function, same arrays every call",
                theirs_s,
                plain_s,
            )
        )
    return figures


def _trace_figures(case: Case, brainstate: Any | None, repeat: int) -> list[Figure]:
    x = case.x
    args = case.pure_args()
    ours_fun = case.jitcheck_function()

    def ours() -> Any:
        return jitcheck.StatefulFunction(ours_fun).make_jaxpr(x)

    def plain() -> Any:
        return jax.make_jaxpr(functools.partial(case.pure))(*args)

    ours(), plain()
    number = calibrate(plain, budget=0.02)
    ours_s, plain_s = interleaved(ours, plain, repeat=repeat, number=number)
    figures = [
        Figure(
            f"first trace, {case.name}",
            "jitcheck.StatefulFunction.make_jaxpr",
            "jax.make_jaxpr of the pure function",
            ours_s,
            plain_s,
            target=1.2,
        )
    ]
    if brainstate is not None:
        theirs_fun = case.brainstate_function(brainstate)

        def theirs() -> Any:
            return brainstate.transform.StatefulFunction(theirs_fun).make_jaxpr(x)

        theirs()
        ours_s2, theirs_s = interleaved(ours, theirs, repeat=repeat, number=number)
        figures.append(
            Figure(
                f"first trace, {case.name}",
                "jitcheck.StatefulFunction.make_jaxpr",
                "brainstate.transform.StatefulFunction.make_jaxpr",
                ours_s2,
                theirs_s,
            )
        )
    return figures


def run(quick: bool) -> Section:
    """Measure both cases; brainstate's figures appear only when it is importable."""
    brainstate = _brainstate()
    repeat = 5 if quick else 25  # short batches, many of them: the best is the least disturbed
    figures: list[Figure] = []
    for case in (Small(), Larger(), TrainingStep()):
        figures += _hit_figures(case, brainstate, repeat)
        if not isinstance(case, TrainingStep):
            figures += _trace_figures(case, brainstate, repeat)
    notes = [
        "cache-hit call: one call after a warm-up call, so no trace or compile: jitcheck computes the key, "
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
