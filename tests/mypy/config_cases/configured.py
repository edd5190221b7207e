"""Checked with the plugin options of test_mypy_plugin_config.py (the same in TOML and ini form):

    constructors = ["tests.mypy.config_cases.configured.make_node(fn)",
                    "tests.mypy.config_cases.configured.build_graph"]
    graph-classes = ["tests.mypy.config_cases.configured.Pipeline[label, _, place]"]
    ignore = ["JC105"]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

import jax

from jitcheck import JitGraph, NestingGraph, NodeDefinition, OrderedMap
from jitcheck.core.names import N, V

L = TypeVar("L", bound=Hashable)
X = TypeVar("X")
P = TypeVar("P", bound=Hashable)


@dataclasses.dataclass
class MutableName:
    text: str


def double(x: jax.Array) -> jax.Array:
    return x * 2


def make_node(fn: Callable[[jax.Array], jax.Array], place: str) -> NodeDefinition[str]:
    """A project's own node factory: `fn` becomes a node body."""
    return NodeDefinition(fn, (place,), (place + "_out",))


def build_graph(label: N, node: NodeDefinition[V]) -> JitGraph[N, V]:
    """A project's own graph factory: its inferred Label and Place are judged."""
    return JitGraph(NestingGraph(OrderedMap({label: node})))


class Pipeline(Generic[L, X, P]):
    """A graph-like class of another library: L names stages, P names values, X is free."""


class Trainer:
    def step(self, x: jax.Array) -> jax.Array:
        return x

    def nodes(self, factor: float) -> None:
        make_node(double, "x")
        make_node(self.step, "x")  # mypy-expect: jitcheck-body # mypy-says: JC101 ( # mypy-says: Bound method "self.step" used as a node body
        make_node(lambda x: x * factor, "x")  # mypy-expect: jitcheck-body # mypy-says: JC104

        def inner(x: jax.Array) -> jax.Array:
            return x * factor

        # JC105 is ignored by the configuration.
        make_node(inner, "x")
        NodeDefinition(inner, ("x",), ("y",))


node = NodeDefinition(double, ("x",), ("y",))
good_graph = build_graph("a", node)
bad_graph = build_graph(MutableName("a"), node)  # mypy-expect: jitcheck-label # mypy-says: JC301 ( # mypy-says: "MutableName" is not a valid Label of "JitGraph"

good_pipeline: Pipeline[str, list[int], str]
bad_stage: Pipeline[MutableName, int, str]  # mypy-expect: jitcheck-label # mypy-says: not a valid Label of "Pipeline"
bad_value: Pipeline[str, int, dict[str, int]]  # mypy-expect: type-var, jitcheck-place # mypy-says: JC302 ( # mypy-says: "dict[str, int]" is not a valid Place of "Pipeline"
