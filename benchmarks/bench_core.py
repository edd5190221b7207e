"""Core benchmarks: Traced vs raw jax.make_jaxpr, the cost of the checks, JitGraph dispatch.

    python benchmarks/run.py --only core --output -

A graph is rebuilt every step in real programs, so every JitGraph figure builds a new
graph (equal to the one before) for each call: the checks are answered from the memo
of graphs already checked, and the cache hit compares the rebuilt graph with the one
in jax's cache.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from harness import Figure, Section, calibrate, interleaved, rotated_figure, rotating
from jitcheck import GraphWithValues, JitGraph, NestingGraph, NodeDefinition, Traced, ValuePartial, unchecked


def affine(x: jax.Array, w: jax.Array, *, shift: float) -> jax.Array:
    return jnp.tanh(x @ w + shift)


def mix(x: jax.Array, y: jax.Array) -> jax.Array:
    return x * 0.5 + y * 0.5


def describe(layers: int) -> dict[str, Any]:
    """A residual MLP of ``layers`` blocks, two nested levels deep."""
    blocks: dict[str, Any] = {}
    for i in range(layers):
        blocks[f"block{i}"] = NestingGraph(
            {
                "affine": NodeDefinition(ValuePartial(affine, shift=0.1 * i), (f"h{i}", f"w{i}"), (f"a{i}",)),
                "mix": NodeDefinition(mix, (f"a{i}", f"h{i}"), (f"h{i + 1}",)),
            }
        )
    return blocks


def build(layers: int) -> JitGraph[str, str]:
    return JitGraph(NestingGraph(describe(layers)))


def composed(layers: int) -> Any:
    def run(h: jax.Array, *ws: jax.Array) -> list[jax.Array]:
        outs = []
        for i in range(layers):
            a = affine(h, ws[i], shift=0.1 * i)
            outs += [a, mix(a, h)]
            h = outs[-1]
        return outs

    return run


def run(quick: bool) -> Section:
    layers = 16 if quick else 64
    repeat = 5 if quick else 15
    graph = build(layers)
    specs = {"h0": jax.ShapeDtypeStruct((32, 64), jnp.float32)}
    specs.update({f"w{i}": jax.ShapeDtypeStruct((64, 64), jnp.float32) for i in range(layers)})
    raw = composed(layers)
    raw_args = list(specs.values())

    # jax.make_jaxpr keeps traces per function object: a fresh function each time makes
    # the baseline a real first trace, as every Traced is.
    traced_s, raw_s = interleaved(
        lambda: Traced(GraphWithValues(graph, specs)).jaxpr,
        lambda: jax.make_jaxpr(composed(layers))(*raw_args),
        repeat=repeat,
    )
    figures = [
        Figure(
            f"trace a {2 * layers}-node graph",
            "Traced(GraphWithValues(graph, specs))",
            "jax.make_jaxpr of the same composed function (a fresh function object)",
            traced_s,
            raw_s,
            target=1.2,
            note="both trace from scratch; the Traced figure includes checking the values against the graph's inputs and recording every place's shape",
        )
    ]

    number = calibrate(lambda: build(layers), budget=0.05)
    checked_s, unchecked_s = interleaved(
        lambda: JitGraph(NestingGraph(describe(layers))),
        lambda: unchecked(JitGraph, NestingGraph(describe(layers))),
        repeat=repeat * 2,
        number=number,
    )
    figures.append(
        Figure(
            f"rebuild a {2 * layers}-node JitGraph",
            "JitGraph(NestingGraph(nodes)), all checks, rebuilt equal",
            "unchecked(JitGraph, NestingGraph(nodes))",
            checked_s,
            unchecked_s,
            target=1.2,
            note=(
                "both build every node; the checked build also computes the graph's type-strict key "
                "(which the unchecked one computes later, at its first jit_call) and finds the checks' "
                "result in the memo of graphs already checked"
            ),
        )
    )

    values = {p: jnp.zeros(s.shape, s.dtype) for p, s in specs.items()}
    jitted_raw = jax.jit(raw)
    graph.jit_call(values)
    jitted_raw(*values.values())
    fresh = [build(layers) for _ in range(repeat * 2 * 50)]
    it = iter(fresh * 4)
    hit_s, jit_s = interleaved(
        lambda: jax.block_until_ready(next(it).jit_call(values)),
        lambda: jax.block_until_ready(jitted_raw(*values.values())),
        repeat=repeat * 2,
        number=50,
    )
    figures.append(
        Figure(
            f"cache hit with a rebuilt equal graph, {2 * layers} nodes",
            "rebuilt_graph.jit_call(values)",
            "jax.jit(composed)(*values), same computation",
            hit_s,
            jit_s,
            target=1.3,
            note="hashing and comparing the rebuilt graph (a static argument) on every call, and the values and outputs as mappings",
        )
    )
    figures += _small(repeat)
    return Section(
        "Core: graphs and Traced",
        figures,
        [
            f"{2 * layers} nodes in {layers} nested graphs, (32, 64) activations; the small graph: "
            f"{2 * SMALL} nodes, (4, 8) activations, where dispatch rather than compute sets the time.",
        ],
    )


SMALL = 8


def _small(repeat: int) -> list[Figure]:
    """The dispatch-bound case: a small graph, rebuilt every step, on tiny arrays."""
    values = {"h0": jnp.zeros((4, 8), jnp.float32)}
    values.update({f"w{i}": jnp.zeros((8, 8), jnp.float32) for i in range(SMALL)})
    jitted_raw = jax.jit(composed(SMALL))
    build(SMALL).jit_call(values)
    jitted_raw(*values.values())
    number = 200
    fresh = iter([build(SMALL) for _ in range(repeat * 2 * number)] * 4)
    hit_s, jit_s = interleaved(
        lambda: jax.block_until_ready(next(fresh).jit_call(values)),
        lambda: jax.block_until_ready(jitted_raw(*values.values())),
        repeat=repeat * 2,
        number=number,
    )
    step_s, step_jit_s = interleaved(
        lambda: jax.block_until_ready(build(SMALL).jit_call(values)),
        lambda: jax.block_until_ready(jitted_raw(*values.values())),
        repeat=repeat * 2,
        number=number,
    )
    checked_step_s, unchecked_step_s = interleaved(
        lambda: jax.block_until_ready(build(SMALL).jit_call(values)),
        lambda: jax.block_until_ready(unchecked(JitGraph, NestingGraph(describe(SMALL))).jit_call(values)),
        repeat=repeat * 2,
        number=number,
    )
    return [
        _one_output(rounds=41 if repeat > 5 else 9),
        Figure(
            f"cache hit with a rebuilt equal graph, {2 * SMALL} nodes (dispatch-bound)",
            "rebuilt_graph.jit_call(values)",
            "jax.jit(composed)(*values), same computation",
            hit_s,
            jit_s,
            target=1.3,
            note="the graphs are built before the timing; the figure is the call alone",
        ),
        Figure(
            f"a whole step: rebuild the {2 * SMALL}-node graph, checked, and call it",
            "JitGraph(...).jit_call(values)",
            "jax.jit(composed)(*values), same computation",
            step_s,
            step_jit_s,
            note="reported: what a training loop that rebuilds its graph every step pays over a plain jax.jit call",
        ),
        Figure(
            f"a whole step, checked or not: rebuild the {2 * SMALL}-node graph and call it",
            "JitGraph(...).jit_call(values), all checks",
            "unchecked(JitGraph, ...).jit_call(values)",
            checked_step_s,
            unchecked_step_s,
            target=1.2,
            note="what the checks cost a loop that rebuilds its graph every step: both build the graph, key it and call it",
        ),
    ]


def _one_output(rounds: int) -> Figure:
    """The dispatch-bound hit that matters most: a rebuilt 16-node graph handing back one output,
    against jax.jit of the same computation returning that one array, rotating, median of rounds."""
    values = {"h0": jnp.zeros((4, 8), jnp.float32)}
    values.update({f"w{i}": jnp.zeros((8, 8), jnp.float32) for i in range(SMALL)})
    last = f"h{SMALL}"
    run = composed(SMALL)
    jitted_raw = jax.jit(lambda *args: run(*args)[-1])

    def rebuilt() -> JitGraph[str, str]:
        return JitGraph(NestingGraph(describe(SMALL), outputs=(last,)))

    number = 200
    fresh = iter([rebuilt() for _ in range((rounds + 2) * number)])
    wait = jax.block_until_ready
    ordered = list(values.values())
    subjects = {
        "jitcheck": lambda: wait(next(fresh).jit_call(values)[last]),
        "jax.jit": lambda: wait(jitted_raw(*ordered)),
    }
    for fn in subjects.values():
        for _ in range(number):
            fn()
    times = rotating(subjects, rounds=rounds, number=number)
    return rotated_figure(
        f"cache hit with a rebuilt equal graph, {2 * SMALL} nodes, one output (dispatch-bound)",
        times,
        "jitcheck",
        "jax.jit",
        subject_label="rebuilt_graph.jit_call(values)[out]",
        baseline_label="jax.jit(composed)(*values), the same one output",
        target=1.15,
        note=f"the graphs (outputs=('{last}',)) are built before the timing; {number} calls each per round, "
        f"{rounds} rounds, rotating, every call waiting for its result",
    )
