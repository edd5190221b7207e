"""Node settings: handed to the body as they are and hashed into the cache key."""

from __future__ import annotations

from collections.abc import Hashable

import jax
import jax.numpy as jnp
import numpy as np

from jitcheck import NodeDefinition, OrderedMap
from tests.mypy.cases.keys_lib import EqOnly, FrozenName, MutableName


def scale(x: jax.Array, **settings: object) -> jax.Array:
    return x


class Model:
    def apply(self, x: jax.Array) -> jax.Array:
        return x


def good() -> None:
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"factor": 2.0, "name": "s", "dims": (1, 2)}))
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"key": FrozenName("k")}))
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap([("factor", 2.0)]))


def bad() -> None:
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"w": np.ones(3)}))  # mypy-expect: dict-item, jitcheck-setting # mypy-says: JC201 ( # mypy-says: "np.ones(3)" used as the node setting "w" cannot be a jit cache key: its type "ndarray[tuple[int], dtype[float64]]" is an array # mypy-says: pass the array as a traced (dynamic) input
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"w": jnp.ones(3)}))  # mypy-expect: jitcheck-setting # mypy-says: JC201 ( # mypy-says: "jnp.ones(3)" used as the node setting "w" cannot be a jit cache key: its type "jax.Array" is an array
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"sizes": [64, 64]}))  # mypy-expect: dict-item, jitcheck-setting # mypy-says: JC202 ( # mypy-says: "[64, 64]" used as the node setting "sizes" cannot be a jit cache key: it is a list # mypy-says: a tuple instead of a list
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"config": MutableName("c")}))  # mypy-expect: jitcheck-setting # mypy-says: JC203 ( # mypy-says: "MutableName('c')" used as the node setting "config" cannot be a jit cache key: its type "MutableName" is not frozen
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"shape": EqOnly((3,))}))  # mypy-expect: jitcheck-setting # mypy-says: JC204 ( # mypy-says: "EqOnly((3,))" used as the node setting "shape" cannot be a jit cache key: its type "EqOnly" defines "__eq__" but not "__hash__"
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"pair": (jnp.ones(3), 1)}))  # mypy-expect: jitcheck-setting # mypy-says: JC201 ( # mypy-says: "(jnp.ones(3), 1)" used as the node setting "pair" cannot be a jit cache key: "jax.Array" (an item of the tuple) is an array
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"act": lambda x: x}))  # mypy-expect: jitcheck-body # mypy-says: JC104 ( # mypy-says: Lambda used as the node setting "act"
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"fn": Model().apply}))  # mypy-expect: jitcheck-body # mypy-says: JC101 ( # mypy-says: Bound method "Model().apply" used as the node setting "fn"
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap([("config", MutableName("c"))]))  # mypy-expect: jitcheck-setting # mypy-says: "MutableName('c')" used as the node setting "config" cannot be a jit cache key: its type "MutableName" is not frozen


def from_a_variable(configs: OrderedMap[str, MutableName], fine: OrderedMap[str, Hashable]) -> None:
    NodeDefinition(scale, ("x",), ("y",), settings=configs)  # mypy-expect: jitcheck-setting # mypy-says: JC203 ( # mypy-says: "configs" used as node settings cannot be a jit cache key: its values' type "MutableName" is not frozen
    NodeDefinition(scale, ("x",), ("y",), settings=fine)
