"""Differential property test (issue 24): random StatefulFunction programs against plain jax.

Each program reads and writes a few States through ``lax.cond`` branches, ``lax.scan``
and ``lax.while_loop`` bodies that may run zero times, and is called several times
with jax's configuration switched between calls (x64, strict dtype promotion). The
oracle is the same program written purely (the States' values in, their new values
out) under plain ``jax.jit``, with the new values threaded into the next call. Every
call must give the oracle's output, dtype and new State values, or raise what the
oracle raises, or (for a State written inside a body that may not run) be refused
with JC604, leaving the States as they were. A second property builds random graphs
with labels, places and settings that are not strings (tuples, ints) and checks that
copies and pickles are equal and hit jax's cache, and that a State as a setting is
refused (JC606).
"""

from __future__ import annotations

import contextlib
import copy
import pickle
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jitcheck import JitGraph, NestingGraph, NodeDefinition
from jitcheck.core.violations import Refused
from jitcheck.stateful import State, StatefulError, StatefulFunction

N_STATES = 3

Op = tuple[Any, ...]

ops = st.one_of(
    st.tuples(st.just("mix"), st.integers(0, N_STATES - 1), st.integers(0, N_STATES - 1)),
    st.tuples(st.just("scale_by_x"), st.integers(0, N_STATES - 1)),
    st.tuples(st.just("add_int"), st.integers(0, N_STATES - 1)),
    st.tuples(st.just("cond"), st.integers(0, N_STATES - 1), st.integers(0, N_STATES - 1), st.floats(-2, 2), st.sampled_from(["none", "outer", "constant"])),
    st.tuples(st.just("scan"), st.integers(0, N_STATES - 1), st.integers(0, N_STATES - 1), st.integers(0, 2), st.sampled_from(["none", "outer", "constant"])),
    st.tuples(st.just("while"), st.integers(0, N_STATES - 1), st.integers(0, N_STATES - 1), st.integers(0, 2), st.sampled_from(["none", "outer", "constant"])),
)

CONFIGS = {
    "standard": contextlib.nullcontext,
    "x64": lambda: jax.enable_x64(True),
    "strict": lambda: jax.numpy_dtype_promotion("strict"),
}


def run(program: list[Op], values: list[Any], x: jax.Array, read: Callable[[int], Any], write: Callable[[int, Any], None]) -> Any:
    """The program, on States (``read``/``write`` go through State.value) or on plain values."""
    for op in program:
        kind = op[0]
        if kind == "mix":
            _, i, j = op
            write(i, read(i) * 0.5 + read(j))
        elif kind == "scale_by_x":
            write(op[1], read(op[1]) * x)
        elif kind == "add_int":
            write(op[1], read(op[1]) + jnp.arange(3, dtype=jnp.int32))
        elif kind == "cond":
            _, i, j, threshold, in_body = op
            source = read(j)

            def taken() -> Any:
                if in_body != "none":
                    write(i, source if in_body == "outer" else np.full(3, 7.0, np.float32))
                return source * 2.0

            chosen = jax.lax.cond(x[0] > threshold, taken, lambda: read(i))
            if in_body == "none":
                write(i, chosen)
        elif kind == "scan":
            _, i, j, length, in_body = op
            step = read(j)

            def body(carry: Any, _: Any) -> tuple[Any, None]:
                if in_body != "none":
                    write(i, step if in_body == "outer" else np.full(3, 7.0, np.float32))
                return carry + step, None

            total, _ = jax.lax.scan(body, read(i), None, length=length)
            if in_body == "none":
                write(i, total)
        elif kind == "while":
            _, i, j, count, in_body = op
            step = read(j)

            def loop(state: tuple[Any, Any]) -> tuple[Any, Any]:
                k, value = state
                if in_body != "none":
                    write(i, step if in_body == "outer" else np.full(3, 7.0, np.float32))
                return k + 1, value + step

            _, total = jax.lax.while_loop(lambda s: s[0] < count, loop, (0, read(i)))
            if in_body == "none":
                write(i, total)
    return (sum(read(k) for k in range(N_STATES)) * x).astype(float) / 3


def writes_in_a_body(program: list[Op]) -> bool:
    return any(op[0] in ("cond", "scan", "while") and op[-1] != "none" for op in program)


def pure(program: list[Op]) -> Callable[..., Any]:
    def f(values: list[Any], x: jax.Array) -> tuple[Any, list[Any]]:
        box = list(values)

        def write(k: int, v: Any) -> None:
            box[k] = jnp.asarray(v, jnp.float32) if not isinstance(v, jax.core.Tracer) else v.astype(jnp.float32)

        out = run(program, box, x, lambda k: box[k], write)
        return out, box

    return f


@settings(max_examples=20, deadline=None)
@given(
    program=st.lists(ops, min_size=1, max_size=4),
    configs=st.lists(st.sampled_from(sorted(CONFIGS)), min_size=2, max_size=3),
    xs=st.lists(st.floats(-2, 2, width=32), min_size=3, max_size=3),
)
def test_random_stateful_programs_equal_plain_jax_or_are_refused(program: list[Op], configs: list[str], xs: list[float]) -> None:
    start = [np.arange(3, dtype=np.float32) + k for k in range(N_STATES)]
    states = [State(v, name=f"s{k}") for k, v in enumerate(start)]

    def write(k: int, v: Any) -> None:
        states[k].value = v

    sf = StatefulFunction(lambda x: run(program, [], x, lambda k: states[k].value, write), name="program")
    oracle = jax.jit(pure(program))
    x = jnp.asarray(xs, jnp.float32)
    threaded = [jnp.asarray(v) for v in start]
    for name in configs:
        with CONFIGS[name]():
            if writes_in_a_body(program):
                before = [np.asarray(s.value) for s in states]
                try:
                    sf(x)
                except StatefulError as refused:
                    assert {v.rule.code for v in refused.violations} == {"JC604"}, str(refused)
                except jax.dtypes.TypePromotionError:
                    assert name == "strict"
                else:
                    raise AssertionError(f"a State written inside a body was not refused: {program}")
                for state, value in zip(states, before):
                    np.testing.assert_array_equal(state.value, value)
                continue
            try:
                want, new = oracle(threaded, x)
            except Exception as failure:  # the oracle refuses: so must we, the same way
                try:
                    sf(x)
                except type(failure):
                    continue
                raise AssertionError(f"jax.jit raised {type(failure).__name__} under {name}; jitcheck did not")
            got = sf(x)
            assert got.dtype == want.dtype, (name, program)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
            for state, value in zip(states, new):
                np.testing.assert_allclose(state.value, value, rtol=1e-5, atol=1e-5)
            threaded = list(new)


# ---- graphs: labels, places and settings that are not strings; States as settings ----------


TRACES: list[Any] = []


def affine(x: jax.Array, *, shift: tuple[Any, ...]) -> jax.Array:
    TRACES.append(shift)
    return x * 2.0 + float(sum(shift))


def scaled(x: jax.Array, *, s: Any) -> jax.Array:
    return x * s.value


labels = st.one_of(st.integers(0, 50), st.tuples(st.sampled_from("abc"), st.integers(0, 5)))
shifts = st.tuples(st.integers(-3, 3), st.sampled_from([0.5, 1.0, 2.5]))


@st.composite
def graphs(draw: Any) -> tuple[list[Any], bool]:
    length = draw(st.integers(1, 4))
    chosen = draw(st.lists(labels, min_size=length, max_size=length, unique=True))
    nodes = [(label, draw(shifts)) for label in chosen]
    with_state = draw(st.booleans())
    return nodes, with_state


def build(nodes: list[Any], state: State | None) -> JitGraph[Any, Any]:
    described: dict[Any, Any] = {}
    place: Any = ("in", 0)
    for k, (label, shift) in enumerate(nodes):
        out = (k + 1, "p") if k % 2 else k + 1
        described[label] = NodeDefinition(affine, (place,), (out,), {"shift": shift})
        place = out
    if state is not None:
        described[("state", 0)] = NodeDefinition(scaled, (place,), ("scaled",), {"s": state})
    return JitGraph(NestingGraph(described))


COPIES: dict[str, Callable[[Any], Any]] = {"deepcopy": copy.deepcopy, "pickle": lambda g: pickle.loads(pickle.dumps(g))}


@settings(max_examples=20, deadline=None)
@given(drawn=graphs(), how=st.sampled_from(sorted(COPIES)))
def test_random_graphs_copied_or_pickled_hit_the_cache_and_states_as_settings_are_refused(drawn: tuple[list[Any], bool], how: str) -> None:
    nodes, with_state = drawn
    if with_state:
        try:
            build(nodes, State(jnp.ones(2)))
        except Refused as refused:
            assert "JC606" in {v.rule.code for v in refused.violations}
            return
        raise AssertionError("a State as a node setting was not refused")
    graph = build(nodes, None)
    values = {("in", 0): jnp.arange(2.0)}
    eager = graph(values)
    first = graph.jit_call(values)
    copied = COPIES[how](graph)
    assert copied == graph and hash(copied) == hash(graph)
    before = len(TRACES)
    again = copied.jit_call(values)
    assert len(TRACES) == before, "the copy was traced again"
    assert list(again) == list(first) == list(eager)
    for place in eager:
        np.testing.assert_allclose(again[place], eager[place])


