"""Node bodies: identity-compared callables refused, value-compared ones accepted."""

from __future__ import annotations

import dataclasses
import functools
import functools as ft
from collections.abc import Callable
from functools import partial
from functools import partial as p

import jax
import jax.tree_util
import numpy as np
from jax.tree_util import Partial
from jax.tree_util import Partial as TreePartial

import jitcheck
from jitcheck import NestingGraph, NodeDefinition, OrderedMap, ValuePartial
from jitcheck.core.partial import ValuePartial as CorePartial


def scale(x: jax.Array, factor: float) -> jax.Array:
    return x * factor


def double(x: jax.Array) -> jax.Array:
    return x * 2


@dataclasses.dataclass(frozen=True)
class FrozenScale:
    factor: float

    def __call__(self, x: jax.Array) -> jax.Array:
        return x * self.factor


@dataclasses.dataclass
class MutableScale:
    factor: float

    def __call__(self, x: jax.Array) -> jax.Array:
        return x * self.factor


class Model:
    def apply(self, x: jax.Array) -> jax.Array:
        return x

    @staticmethod
    def helper(x: jax.Array) -> jax.Array:
        return x

    @classmethod
    def build(cls, x: jax.Array) -> jax.Array:
        return x

    def nodes(self) -> list[NodeDefinition[str]]:
        return [
            NodeDefinition(self.apply, ("x",), ("y",)),  # mypy-expect: jitcheck-body # mypy-says: JC101 ( # mypy-says: Bound method "self.apply" used as a node body # mypy-says: pass a module-level function
            NodeDefinition(self.helper, ("x",), ("y",)),
            NodeDefinition(Model.helper, ("x",), ("y",)),
            NodeDefinition(self.build, ("x",), ("y",)),
            NodeDefinition(Model.build, ("x",), ("y",)),
            NodeDefinition(body=self.apply, inputs=("x",), outputs=("y",)),  # mypy-expect: jitcheck-body
        ]


MODEL = Model()


def other_receivers(model: Model) -> None:
    NodeDefinition(model.apply, ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: Bound method "model.apply" used as a node body
    NodeDefinition(Model().apply, ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: Bound method "Model().apply" used as a node body
    # A module-level object is the same object every time the graph is built.
    NodeDefinition(MODEL.apply, ("x",), ("y",))


def partials(x_scale: float) -> None:
    NodeDefinition(functools.partial(scale, factor=2.0), ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC102 ( # mypy-says: "functools.partial" "functools.partial(scale, factor=2.0)" used as a node body # mypy-says: use "jitcheck.ValuePartial(scale, factor=2.0)"
    NodeDefinition(partial(scale, factor=x_scale), ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC102
    NodeDefinition(p(scale, factor=2.0), ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC102 ( # mypy-says: "functools.partial" "p(scale, factor=2.0)"
    NodeDefinition(ft.partial(scale, factor=2.0), ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC102
    made = partial(scale, factor=2.0)
    NodeDefinition(made, ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC102 ( # mypy-says: "functools.partial" "made" used as a node body
    NodeDefinition(jax.tree_util.Partial(scale, 2.0), ("x",), ("y",))  # mypy-expect: no-untyped-call, jitcheck-body # mypy-says: JC103 ( # mypy-says: "jax.tree_util.Partial" "jax.tree_util.Partial(scale, 2.0)" used as a node body # mypy-says: use "jitcheck.ValuePartial(scale, 2.0)"
    NodeDefinition(Partial(scale, 2.0), ("x",), ("y",))  # mypy-expect: no-untyped-call, jitcheck-body # mypy-says: JC103
    NodeDefinition(TreePartial(scale, 2.0), ("x",), ("y",))  # mypy-expect: no-untyped-call, jitcheck-body # mypy-says: JC103
    # The value-compared partial is the fix.
    NodeDefinition(ValuePartial(scale, factor=2.0), ("x",), ("y",))
    NodeDefinition(jitcheck.ValuePartial(scale, factor=x_scale), ("x",), ("y",))
    NodeDefinition(CorePartial(scale, 2.0), ("x",), ("y",))
    # ... but what it wraps is judged too.
    NodeDefinition(ValuePartial(MODEL.apply), ("x",), ("y",))
    NodeDefinition(ValuePartial(Model().apply), ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: Bound method "Model().apply" used as the function of a "jitcheck.ValuePartial" in a node body
    NodeDefinition(ValuePartial(lambda x: x), ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC104
    NodeDefinition(ValuePartial(scale, np.ones(3)), ("x",), ("y",))  # mypy-expect: jitcheck-setting # mypy-says: JC201 ( # mypy-says: "np.ones(3)" used as an argument of a "jitcheck.ValuePartial" in a node body cannot be a jit cache key: it is an array


def lambdas_and_closures(factor: float) -> None:
    NodeDefinition(lambda x: x * factor, ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC104 ( # mypy-says: Lambda used as a node body # mypy-says: define it once with "def" at module level

    def inner(x: jax.Array) -> jax.Array:
        return x * factor

    @jax.jit
    def jitted_inner(x: jax.Array) -> jax.Array:
        return x * factor

    NodeDefinition(inner, ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC105 ( # mypy-says: Nested function "inner" used as a node body # mypy-says: move "inner" to module level
    NodeDefinition(jitted_inner, ("x",), ("y",))  # mypy-expect: jitcheck-body # mypy-says: JC105 ( # mypy-says: Nested function "jitted_inner"


def callable_objects() -> None:
    NodeDefinition(FrozenScale(2.0), ("x",), ("y",))
    NodeDefinition(MutableScale(2.0), ("x",), ("y",))  # mypy-expect: jitcheck-setting # mypy-says: JC203 ( # mypy-says: "MutableScale(2.0)" used as a node body cannot be a jit cache key: its type "MutableScale" is not frozen


def module_functions() -> None:
    NodeDefinition(double, ("x",), ("y",))
    NodeDefinition(jax.nn.relu, ("x",), ("y",))
    NodeDefinition(Model.apply, ("model", "x"), ("y",))


def written_among_nodes() -> None:
    # Not a NodeDefinition at all (mypy says so); the plugin says why a callable cannot be one.
    NestingGraph(OrderedMap({"a": lambda x: x}))  # mypy-expect: arg-type, jitcheck-body # mypy-says: JC104 ( # mypy-says: Lambda used as a graph node


def body_variable(fn: Callable[[jax.Array], jax.Array]) -> None:
    # A parameter: whatever the caller passed; judged at runtime.
    NodeDefinition(fn, ("x",), ("y",))


def silenced() -> None:
    # The plugin's error codes work with mypy's per-line ignores (and --warn-unused-ignores sees them used).
    NodeDefinition(lambda x: x, ("x",), ("y",))  # type: ignore[jitcheck-body]
