"""A realistic module that uses jitcheck well: the plugin must report nothing."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Hashable

import jax
import jax.numpy as jnp

from jitcheck import GraphWithValues, JitGraph, NestingGraph, NodeDefinition, OrderedMap, ValuePartial


class Stage(enum.Enum):
    ENCODE = "encode"
    DECODE = "decode"


@dataclasses.dataclass(frozen=True)
class Port:
    stage: Stage
    name: str


@dataclasses.dataclass(frozen=True)
class Dense:
    width: int

    def __call__(self, x: jax.Array) -> jax.Array:
        return x[..., : self.width]


def scale(x: jax.Array, factor: float) -> jax.Array:
    return x * factor


def shift(x: jax.Array, *, by: float = 0.0) -> jax.Array:
    return x + by


class Trainer:
    @staticmethod
    def normalise(x: jax.Array) -> jax.Array:
        return x / 2.0

    def graph(self, factor: float) -> JitGraph[Stage, Port]:
        encode = NodeDefinition(ValuePartial(scale, factor=factor), (Port(Stage.ENCODE, "x"),), (Port(Stage.ENCODE, "h"),))
        normalise = NodeDefinition(self.normalise, (Port(Stage.ENCODE, "h"),), (Port(Stage.DECODE, "n"),))
        return JitGraph(NestingGraph(OrderedMap({Stage.ENCODE: encode, Stage.DECODE: normalise})))


def build() -> JitGraph[tuple[str, int], str]:
    nodes = {
        ("dense", 0): NodeDefinition(Dense(4), ("x",), ("h",)),
        ("shift", 1): NodeDefinition(shift, ("h",), ("y",), settings=OrderedMap({"by": 1.0})),
    }
    return JitGraph(NestingGraph(OrderedMap(nodes), outputs=("y",)))


def run(keys: frozenset[Hashable]) -> GraphWithValues[JitGraph[tuple[str, int], str], str]:
    del keys
    return GraphWithValues(build(), OrderedMap({"x": jnp.ones((2, 8))}))
