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
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"w": np.ones(3)}))  # mypy-expect: dict-item, jitcheck-setting # mypy-says: JC201 array `np.ones(3)` used as the node setting 'w' # mypy-says: pass the array as a traced (dynamic) input
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"w": jnp.ones(3)}))  # mypy-expect: jitcheck-setting # mypy-says: JC201 array `jnp.ones(3)`
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"sizes": [64, 64]}))  # mypy-expect: dict-item, jitcheck-setting # mypy-says: JC202 list `[64, 64]` used as the node setting 'sizes' # mypy-says: a tuple instead of a list
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"config": MutableName("c")}))  # mypy-expect: jitcheck-setting # mypy-says: JC203 `MutableName('c')` is an instance of the non-frozen dataclass `MutableName` used as the node setting 'config'
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"shape": EqOnly((3,))}))  # mypy-expect: jitcheck-setting # mypy-says: JC204 `EqOnly((3,))` is an instance of `EqOnly`, which defines `__eq__` but not `__hash__`
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"pair": (jnp.ones(3), 1)}))  # mypy-expect: jitcheck-setting # mypy-says: JC201 array `(jnp.ones(3), 1)`, which holds `Array`,
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"act": lambda x: x}))  # mypy-expect: jitcheck-body # mypy-says: JC104 lambda used as the node setting 'act'
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap({"fn": Model().apply}))  # mypy-expect: jitcheck-body # mypy-says: JC101 bound method `Model().apply` used as the node setting 'fn'
    NodeDefinition(scale, ("x",), ("y",), settings=OrderedMap([("config", MutableName("c"))]))  # mypy-expect: jitcheck-setting # mypy-says: used as the node setting 'config'


def from_a_variable(configs: OrderedMap[str, MutableName], fine: OrderedMap[str, Hashable]) -> None:
    NodeDefinition(scale, ("x",), ("y",), settings=configs)  # mypy-expect: jitcheck-setting # mypy-says: JC203 `configs` is an instance of the non-frozen dataclass `MutableName` used as a node setting
    NodeDefinition(scale, ("x",), ("y",), settings=fine)
