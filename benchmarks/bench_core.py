"""Core benchmarks: Traced vs raw jax.make_jaxpr, the cost of the checks, JitGraph dispatch.

    python benchmarks/run.py --only core --output -
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from harness import Figure, Section, calibrate, interleaved
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
        repeat=repeat,
        number=number,
    )
    figures.append(
        Figure(
            f"build a {2 * layers}-node JitGraph",
            "JitGraph(NestingGraph(nodes)), all checks",
            "unchecked(JitGraph, NestingGraph(nodes))",
            checked_s,
            unchecked_s,
            note="both build every node; the checks are paid once per construction, and a graph is then a cache key for as long as it lives",
        )
    )

    values = {p: jnp.zeros(s.shape, s.dtype) for p, s in specs.items()}
    jitted_raw = jax.jit(raw)
    graph.jit_call(values)
    jitted_raw(*values.values())
    fresh = [build(layers) for _ in range(repeat * 50)]
    it = iter(fresh * 4)
    hit_s, jit_s = interleaved(
        lambda: jax.block_until_ready(next(it).jit_call(values)),
        lambda: jax.block_until_ready(jitted_raw(*values.values())),
        repeat=repeat,
        number=50,
    )
    figures.append(
        Figure(
            "cache hit with a rebuilt equal graph",
            "rebuilt_graph.jit_call(values)",
            "jax.jit(composed)(*values), same computation",
            hit_s,
            jit_s,
            note="includes hashing and comparing the rebuilt graph (a static argument) on every call",
        )
    )
    return Section("Core: graphs and Traced", figures, [f"{2 * layers} nodes in {layers} nested graphs, (32, 64) activations."])
